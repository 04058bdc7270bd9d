"""The `semver` library: Semantic Versioning 2.0.0 values, optionally normalised from `v1.2`."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from svc.machinery.cel.values import CelError, CelType, NoSuchOverload, register_type

SEMVER_TYPE: Final = CelType("kubernetes.Semver")
_SEMVER: Final = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?"
    r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?"
)
_LOOSE_CORE: Final = re.compile(r"v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(.*)", re.DOTALL)


class Semver:
    __slots__ = ("build", "major", "minor", "patch", "pre")
    cel_type = SEMVER_TYPE

    def __init__(self, major: int, minor: int, patch: int, pre: str, build: str) -> None:
        self.major, self.minor, self.patch, self.pre, self.build = major, minor, patch, pre, build

    def key(self) -> tuple[Any, ...]:
        """Precedence: the core, then a release above any pre-release, then the pre-release fields."""
        fields = tuple((0, int(f), "") if f.isdigit() else (1, 0, f) for f in self.pre.split(".")) if self.pre else ()
        return (self.major, self.minor, self.patch, not self.pre, fields)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Semver) and other.key() == self.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def cel_string(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        return text + (f"-{self.pre}" if self.pre else "") + (f"+{self.build}" if self.build else "")


register_type(Semver, SEMVER_TYPE)


def _normalize(text: str) -> str:
    match = _LOOSE_CORE.fullmatch(text)
    if match is None:
        return text
    major, minor, patch, rest = match.groups()
    return f"{int(major)}.{int(minor or 0)}.{int(patch or 0)}{rest}"


def _parse(text: str, normalize: bool) -> Semver:
    match = _SEMVER.fullmatch(_normalize(text) if normalize else text)
    if match is None:
        raise CelError(
            f"No Major.Minor.Patch elements found: {text!r}" if "." not in text else f"Invalid semver {text!r}"
        )
    major, minor, patch, pre, build = match.groups()
    return Semver(int(major), int(minor), int(patch), pre or "", build or "")


def to_semver(text: Any, normalize: Any = False) -> Semver:
    if type(text) is not str or type(normalize) is not bool:
        raise NoSuchOverload("semver")
    return _parse(text, normalize)


def is_semver(text: Any, normalize: Any = False) -> bool:
    if type(text) is not str or type(normalize) is not bool:
        raise NoSuchOverload("isSemver")
    try:
        _parse(text, normalize)
    except CelError:
        return False
    return True


def _semver(name: str, value: Any) -> Semver:
    if type(value) is not Semver:
        raise NoSuchOverload(name)
    return value


def compare_to(value: Any, other: Any) -> int:
    a, b = _semver("compareTo", value).key(), _semver("compareTo", other).key()
    return (a > b) - (a < b)


FUNCTIONS: Final[dict[str, Callable[..., Any]]] = {
    "semver": to_semver,
    "isSemver": is_semver,
    "major": lambda v: _semver("major", v).major,
    "minor": lambda v: _semver("minor", v).minor,
    "patch": lambda v: _semver("patch", v).patch,
    "compareTo": compare_to,
    "isGreaterThan": lambda a, b: compare_to(a, b) > 0,
    "isLessThan": lambda a, b: compare_to(a, b) < 0,
}
