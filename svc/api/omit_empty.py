"""Empty values that upstream's Go types never give back, left out of an object as upstream's code sees it.

Upstream decodes every write into its Go struct, stores it, and answers create, update and patch with
the object decoded from what it stored, as GET and watch do. So an empty value the struct cannot
tell from an absent one never comes back in any answer: an empty map or list (`data: {}`,
`finalizers: []`) is a nil or empty Go map or slice that Protobuf storage holds as nothing, and a
non-pointer scalar tagged `omitempty` holding "", 0 or false is left out of its JSON. The generic
store drops those values from what it writes, so the stored object, the write's answer, GET and
watch events are the same whatever `--storage-media-type` says. Upstream's own code does not see
them either: its field manager reads objects through their Go types (`ToUnstructured` skips them),
and its update checks compare with `Semantic.DeepEqual` (an empty list equals an absent one); so an
`Update` entry is recorded, and an update checked, on the pruned object too. The exception is the few
checks that compare with `reflect.DeepEqual`, where a map sent as `{}` differs from the nil map of an
object stored without it (an immutable ConfigMap's or Secret's data): the kind names those maps
(`Strategy.nil_distinct_maps`) and `GenericStore.prune_served` leaves them, sent empty, to the checks.

Which fields is derived from the message table of the built-in kinds (upstream's `generated.proto`
and Go struct tags, see tools/gen_proto_table.py), exactly as the Protobuf codec round trip drops
them: map and repeated fields when empty, the fields it marks `omitted_when_zero` when they hold the
zero of their type, and any field set to null. (A slice without `omitempty`, such as a Role's
`rules`, reads back from upstream's Protobuf storage as `null`; like our codec, we leave it out.)
Each message's plan is built once; pruning an object walks only the keys it has. Kinds without a
message (custom resources, kept as given upstream) have no plan and are left alone.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from svc.wire.protobuf.forms import form_of
from svc.wire.protobuf.schema import FieldSpec, schema

Obj = dict[str, Any]
Prune = Callable[[Obj], None]

_SCALARS = {"string": str, "int32": int, "int64": int, "bool": bool, "bytes": str}
_NONE = type(None)


@dataclass
class _Plan:
    """One message's plan. Most values are not empty, so a value is first tested for truth: a true one
    is only looked at further when it is an object or a list that can hold messages; a false one
    ("", 0, false, null, [], {}) is dropped when its key's field drops that type of empty value."""

    dropped: dict[str, tuple[type, ...]] = field(default_factory=dict)
    objects: dict[str, Prune] = field(default_factory=dict)  # message or map-of-messages fields
    lists: dict[str, Prune] = field(default_factory=dict)  # repeated message fields: their items' prune


_pruners: dict[str, Prune] = {}


@functools.cache
def pruner(group: str, version: str, kind: str) -> Prune | None:
    """What prunes objects of a kind (by its upstream group, "" for core); None: nothing to prune."""
    message = schema().message_for(f"{group}/{version}" if group else version, kind)
    return None if message is None else _pruner(message)


def _pruner(message: str) -> Prune:
    found = _pruners.get(message)
    return found if found is not None else _compile(message)


def _compile(message: str) -> Prune:
    plan = _Plan()
    dropped, objects, lists = plan.dropped, plan.objects, plan.lists

    def prune(obj: Obj) -> None:
        gone = None
        for key, value in obj.items():
            if value:
                kind = type(value)
                if kind is dict:
                    sub = objects.get(key)
                    if sub is not None:
                        sub(value)
                elif kind is list:
                    sub = lists.get(key)
                    if sub is not None:
                        for item in value:
                            if type(item) is dict:
                                sub(item)
                continue
            types = dropped.get(key)
            if types is not None and type(value) in types:
                if gone is None:
                    gone = [key]
                else:
                    gone.append(key)
        if gone is not None:
            for key in gone:
                del obj[key]

    _pruners[message] = prune  # before the plan: messages may refer to themselves
    _build(message, plan)
    return prune


def _build(message: str, plan: _Plan) -> None:
    """Fill a message's plan; the fields of a struct inlined into its JSON object join the plan."""
    for spec in schema().messages[message]:
        if spec.inline:
            _build(spec.type, plan)
        else:
            _add(spec, plan)


def _add(spec: FieldSpec, plan: _Plan) -> None:
    key = spec.json_name
    message = spec.type not in _SCALARS and form_of(spec.type) is None
    if spec.label == "repeated":
        plan.dropped[key] = (_NONE, list)
        if message:
            plan.lists[key] = _pruner(spec.type)
    elif spec.label == "map":
        plan.dropped[key] = (_NONE, dict)
        if message:
            plan.objects[key] = _each_value(_pruner(spec.type))
    elif message:
        plan.dropped[key] = (_NONE,)
        plan.objects[key] = _pruner(spec.type)
    elif spec.omitted_when_zero and spec.type in _SCALARS:
        plan.dropped[key] = (_NONE, _SCALARS[spec.type])
    else:
        plan.dropped[key] = (_NONE,)


def _each_value(prune: Prune) -> Prune:
    def each(obj: Obj) -> None:
        for value in obj.values():
            if type(value) is dict:
                prune(value)

    return each
