"""A diff of two objects in the layout of go-cmp's `cmp.Diff`, which upstream appends to some errors
(a pod update that changes more than it may: "pod updates may not change fields other than ...").

The layout follows go-cmp's reporter: the type opens the block, every line starts with "-", "+" or a
space, then a space and one tab per level; a changed leaf is a "-" line and a "+" line; within a struct
or a list of the same length the unchanged members near a change are shown (two on each side) and the
longer runs between collapse into "... // N identical fields" ("elements" in lists). Values print as
Go literals: quoted strings, `nil` for what is absent, `{Name: value}` for objects. Objects here are
JSON, so fields are those present, in their own order, and named as Go names them (first letter
capitalised); a few element types are known by their list's name. go-cmp itself varies the space after
the marker on purpose, so its text is not for machines either; this is for the person reading it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from svc.machinery.gotext import json_marshal

_CONTEXT: Final = 2
_ELEMENT_TYPES: Final = {
    "containers": "core.Container",
    "initContainers": "core.Container",
    "ephemeralContainers": "core.EphemeralContainer",
    "volumes": "core.Volume",
    "tolerations": "core.Toleration",
    "ports": "core.ContainerPort",
    "env": "core.EnvVar",
    "volumeMounts": "core.VolumeMount",
    "imagePullSecrets": "core.LocalObjectReference",
}


def _go_name(key: str) -> str:
    return key[:1].upper() + key[1:]


def go_literal(value: Any) -> str:
    """A JSON value as Go's `%v` of the matching internal type prints it, near enough."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json_marshal(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_go_name(str(k))}: {go_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "{" + ", ".join(go_literal(item) for item in value) + "}"
    return str(value)


class _Report:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def line(self, mark: str, depth: int, text: str) -> None:
        self.lines.append(f"{mark} " + "\t" * depth + text)

    def elided(self, depth: int, count: int, unit: str) -> None:
        self.line(" ", depth, f"... // {count} identical {unit}{'' if count == 1 else 's'}")

    def members(self, pairs: list[tuple[str, Any, Any]], depth: int, unit: str) -> None:
        """`(label, old, new)` in order; equal runs keep two members of context on each side."""
        changed = [index for index, (_, old, new) in enumerate(pairs) if old != new]
        shown = {i for c in changed for i in range(c - _CONTEXT, c + _CONTEXT + 1) if 0 <= i < len(pairs)}
        index = 0
        while index < len(pairs):
            if index in shown:
                self.member(*pairs[index], depth)
                index += 1
                continue
            run = index
            while run < len(pairs) and run not in shown:
                run += 1
            if run - index == 1:
                self.member(*pairs[index], depth)
            else:
                self.elided(depth, run - index, unit)
            index = run

    def member(self, label: str, old: Any, new: Any, depth: int) -> None:
        prefix = f"{label}: " if label else ""
        if old == new:
            self.line(" ", depth, f"{prefix}{go_literal(new)},")
        elif isinstance(old, Mapping) and isinstance(new, Mapping):
            self.line(" ", depth, f"{prefix}{{")
            self.struct(old, new, depth + 1)
            self.line(" ", depth, "},")
        elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
            element = _ELEMENT_TYPES.get(label[:1].lower() + label[1:], "")
            self.line(" ", depth, f"{prefix}[]{element}{{")
            self.members([("", a, b) for a, b in zip(old, new, strict=True)], depth + 1, "element")
            self.line(" ", depth, "},")
        else:
            self.line("-", depth, f"{prefix}{go_literal(old)},")
            self.line("+", depth, f"{prefix}{go_literal(new)},")

    def struct(self, old: Mapping[str, Any], new: Mapping[str, Any], depth: int) -> None:
        keys = list(dict.fromkeys([*old, *new]))
        self.members([(_go_name(key), old.get(key), new.get(key)) for key in keys], depth, "field")


def cmp_diff(old: Mapping[str, Any], new: Mapping[str, Any], type_name: str) -> str:
    """The diff of two objects of the internal type `type_name`, ending with a newline as go-cmp's does."""
    report = _Report()
    report.lines.append(f"  {type_name}{{")
    report.struct(old, new, 1)
    report.lines.append("  }")
    return "\n".join(report.lines) + "\n"
