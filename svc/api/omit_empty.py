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
zero of their type, and any field set to null. A list or map field without `omitempty` (a Role's
`rules`, an EndpointSlice's `ports`) is the exception: Go writes it even when nil, as `null`, and
reads it back from Protobuf storage as nil when it was empty, so what is written (`pruner`) has it
null when empty or absent. Before that, upstream's field manager and admission see the request as
decoding leaves it, where such a field sent empty (`rules: []`) is an empty slice, not nil: the
field manager records it (`f:rules`), while one absent or null is nil on both sides of the compare
and recorded by nobody. `decoded_pruner` gives that view: such a field keeps an empty value and
loses a null.

The other side of the same rule: a field Go's JSON always writes (`always_written`: a non-pointer
struct, which encoding/json never omits, or a scalar without `omitempty`) is in every object
upstream reads back, so what is written has it, at its zero when absent or null (zeros.py: `{}` with
the struct's own such fields, a zero Time null, a Quantity "0", a scalar "" / 0 / false). An
admission webhook's `object` is the decoded request as Go writes it (`View.SENT`): the zeros, and a
list sent empty kept empty. Each message's plan is built once per view; pruning an object walks only
the keys it has, and then the message's few such fields. Kinds without a message (custom resources,
kept as given upstream) have no plan and are left alone.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from svc.wire.protobuf.forms import form_of
from svc.wire.protobuf.schema import FieldSpec, schema
from svc.wire.protobuf.zeros import Make, written, zero_maker

Obj = dict[str, Any]
Prune = Callable[[Obj], None]

_SCALARS = {"string": str, "int32": int, "int64": int, "bool": bool, "bytes": str}
_NONE = type(None)
_UNKNOWN = object()
_EMPTIED = (list, dict)
# OpenAPI definition names spell the proto package root `k8s.io` as `io.k8s`.
_OPENAPI_ROOT, _PROTO_ROOT = "io.k8s.", "k8s.io."


class View(enum.Enum):
    """Which of upstream's readings of an object a prune gives."""

    STORED = "stored"
    """As read back from storage, which every answer shows: lists and maps without `omitempty` null
    when empty, and every field Go's JSON always writes present (zero when absent)."""
    DECODED = "decoded"
    """As upstream's field manager compares a decoded request: a list without `omitempty` sent empty
    stays, a null one is absent; no zeros are added (the compare fills them itself)."""
    SENT = "sent"
    """As Go writes a decoded request (the `object` an admission webhook gets): every field Go's JSON
    always writes present, a list without `omitempty` sent empty stays empty, an absent one is null."""


@dataclass
class _Plan:
    """One message's plan. Most values are not empty, so a value is first tested for truth: a true one
    is only looked at further when it is an object or a list that can hold messages; a false one
    ("", 0, false, null, [], {}) is dropped when its key's field drops that type of empty value."""

    dropped: dict[str, tuple[type, ...]] = field(default_factory=dict)
    objects: dict[str, Prune] = field(default_factory=dict)  # message or map-of-messages fields
    lists: dict[str, Prune] = field(default_factory=dict)  # repeated message fields: their items' prune
    nulls: list[str] = field(default_factory=list)  # list and map fields written as null when empty
    filled: dict[str, Prune] = field(default_factory=dict)  # message fields whose `{}` gets written fields
    written: dict[str, Make] = field(default_factory=dict)  # fields made their zero when absent or null


_pruners: dict[tuple[str, View], Prune] = {}


@functools.cache
def pruner(group: str, version: str, kind: str, view: View = View.STORED) -> Prune | None:
    """What prunes objects of a kind (by its upstream group, "" for core) to a view, by default as they
    are written; None: nothing to prune."""
    message = schema().message_for(f"{group}/{version}" if group else version, kind)
    return None if message is None else message_pruner(message, view)


@functools.cache
def member_pruner(group: str, version: str, kind: str, member: str) -> Prune | None:
    """What prunes (and fills) one struct member of a kind's objects as they are written (a `status`);
    None: the kind has no such member."""
    message = schema().message_for(f"{group}/{version}" if group else version, kind)
    if message is None:
        return None
    for spec in schema().messages[message]:
        if spec.json_name == member and spec.label == "optional" and spec.type in schema().messages:
            return message_pruner(spec.type)
    return None


def decoded_pruner(group: str, version: str, kind: str) -> Prune | None:
    """What prunes objects of a kind as decoding a request leaves them: lists and maps written as null
    keep an empty value and lose a null."""
    return pruner(group, version, kind, View.DECODED)


def message_pruner(message: str, view: View = View.STORED) -> Prune:
    """The prune of one message's JSON objects (a kind's, or a part's such as a status)."""
    found = _pruners.get((message, view))
    return found if found is not None else _compile(message, view)


def typed_pruner(group_of: Callable[[str], str], view: View = View.STORED) -> Prune:
    """What prunes a built-in object found by its own apiVersion and kind (`group_of` spells its group
    as upstream does); any other object is left alone. Each apiVersion and kind is looked up once."""
    found: dict[tuple[str, str], Prune | None] = {}

    def prune(obj: Obj) -> None:
        api_version, kind = obj.get("apiVersion"), obj.get("kind")
        if type(api_version) is not str or type(kind) is not str:
            return
        chosen = found.get((api_version, kind), _UNKNOWN)
        if chosen is _UNKNOWN:
            group, _, version = api_version.rpartition("/")
            chosen = found[api_version, kind] = pruner(group_of(group) if group else "", version, kind, view)
        if chosen is not None:
            chosen(obj)  # type: ignore[operator]

    return prune


def _compile(message: str, view: View) -> Prune:
    plan = _Plan()
    dropped, objects, lists, nulls, filled, written = (
        plan.dropped,
        plan.objects,
        plan.lists,
        plan.nulls,
        plan.filled,
        plan.written,
    )

    def prune(obj: Obj) -> None:
        gone = refilled = None
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
            if filled and type(value) is dict:
                sub = filled.get(key)
                if sub is not None:
                    sub(value)
                    continue
            types = dropped.get(key)
            if types is not None and type(value) in types:
                if gone is None:
                    gone = [key]
                else:
                    gone.append(key)
            elif value is None and key in written:
                if refilled is None:
                    refilled = [key]
                else:
                    refilled.append(key)
        if gone is not None:
            for key in gone:
                del obj[key]
        for key in nulls:
            value = obj.get(key)
            if value is None or (not value and type(value) in _EMPTIED):
                obj[key] = None
        if written:
            if refilled is not None:
                for key in refilled:
                    obj[key] = written[key]()
            if (only not in obj) if only is not None else not obj.keys() >= written_keys:  # usually all there
                for key, zero in written.items():
                    if key not in obj:
                        obj[key] = zero()

    _pruners[(message, view)] = prune  # before the plan: messages may refer to themselves
    _build(message, plan, view)
    written_keys = frozenset(written)
    only = next(iter(written)) if len(written) == 1 else None
    return prune


def _build(message: str, plan: _Plan, view: View) -> None:
    """Fill a message's plan; the fields of a struct inlined into its JSON object join the plan."""
    for spec in schema().messages[message]:
        if spec.inline:
            _build(spec.type, plan, view)
        else:
            _add(spec, plan, view)


def _add(spec: FieldSpec, plan: _Plan, view: View) -> None:
    key = spec.json_name
    message = spec.type not in _SCALARS and form_of(spec.type) is None
    if spec.label == "repeated":
        plan.dropped[key] = (_NONE, list)
        if message:
            plan.lists[key] = message_pruner(spec.type, view)
    elif spec.label == "map":
        plan.dropped[key] = (_NONE, dict)
        if message:
            plan.objects[key] = _each_value(message_pruner(spec.type, view))
    elif message:
        plan.dropped[key] = (_NONE,)
        plan.objects[key] = message_pruner(spec.type, view)
        if view is not View.DECODED and written(spec.type):
            plan.filled[key] = plan.objects[key]
    elif spec.omitted_when_zero and spec.type in _SCALARS:
        plan.dropped[key] = (_NONE, _SCALARS[spec.type])
    else:
        plan.dropped[key] = (_NONE,)
    if view is View.DECODED:
        if spec.null_when_empty:  # an empty value stays, a null is nil like an absent one
            plan.dropped[key] = (_NONE,)
        return
    if spec.null_when_empty and view is View.STORED:  # null when empty or absent
        del plan.dropped[key]
        plan.nulls.append(key)
    elif spec.null_when_empty or spec.always_written:  # its zero when absent or null
        del plan.dropped[key]
        plan.written[key] = zero_maker(spec)


@functools.cache
def null_fields(definition: str) -> tuple[str, ...]:
    """The list and map fields a Go value of an OpenAPI definition (`io.k8s.api.rbac.v1.Role`) always
    carries, as `null` when nil; none for a definition without a message."""
    message = _PROTO_ROOT + definition.removeprefix(_OPENAPI_ROOT)
    if not definition.startswith(_OPENAPI_ROOT) or message not in schema().messages:
        return ()
    return tuple(_nulls_of(message))


def _nulls_of(message: str) -> list[str]:
    found = []
    for spec in schema().messages[message]:
        if spec.inline:
            found.extend(_nulls_of(spec.type))
        elif spec.null_when_empty:
            found.append(spec.json_name)
    return found


def _each_value(prune: Prune) -> Prune:
    def each(obj: Obj) -> None:
        for value in obj.values():
            if type(value) is dict:
                prune(value)

    return each
