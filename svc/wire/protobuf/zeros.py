"""Go's zero value of a field as upstream's JSON writes it.

A non-pointer field without `omitempty` (or a struct, which encoding/json never omits unless tagged
`omitzero`) is in every object upstream reads back, zero or not: a ReplicaSet's `status.replicas` is
0, a ResourceClaim's absent `spec.devices` is `{}`, a pod condition's absent `lastProbeTime` is null.
The zero of a struct is an object of its own always-written fields, each at its zero (a NodeStatus's
`daemonEndpoints` is `{"kubeletEndpoint": {"Port": 0}}`), with its null lists; custom-marshalled types
write theirs (forms.py). Which fields is in the message table (`always_written`, `null_when_empty`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from svc.wire.protobuf.forms import form_of
from svc.wire.protobuf.schema import FieldSpec, schema

Make = Callable[[], object]

_SCALAR_ZEROS: dict[str, object] = {"string": "", "int32": 0, "int64": 0, "bool": False, "bytes": None}


def zero_maker(spec: FieldSpec) -> Make:
    """A function giving a fresh zero value of the field (callers may change what they get)."""
    if spec.null_when_empty or spec.label != "optional":
        return _constant(None)
    if spec.type in _SCALAR_ZEROS:
        return _constant(_SCALAR_ZEROS[spec.type])
    form = form_of(spec.type)
    if form is not None:
        return _constant(form.zero)
    return struct_zero(spec.type)


def written(message: str) -> tuple[tuple[str, Make], ...]:
    """The fields of a message that Go's JSON always has, by JSON name, with their zero's maker; the
    fields of a struct inlined into the message's JSON object are its own."""
    found: list[tuple[str, Make]] = []
    for spec in schema().messages[message]:
        if spec.inline:
            found.extend(written(spec.type))
        elif spec.always_written or spec.null_when_empty:
            found.append((spec.json_name, zero_maker(spec)))
    return tuple(found)


@functools.cache
def struct_zero(message: str) -> Callable[[], dict]:
    """The maker of a struct's zero value (Go structs cannot hold themselves by value: no cycles)."""
    parts = written(message)
    if not parts:
        return dict

    def make() -> dict:
        return {key: zero() for key, zero in parts}

    return make


@functools.cache
def _constant(value: object) -> Make:
    return lambda: value
