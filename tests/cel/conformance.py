"""Run the CEL spec's conformance vectors (shared/upstream-cel-spec) against svc's environment.

Each test case ends as pass, fail or skip; a skip always carries one of the named reasons below,
for features the project does not claim (protobuf messages, static type checking...). Running this
module prints the counts per file: ``python -m tests.cel.conformance``.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from svc.machinery.cel import CelError, Environment
from svc.machinery.cel.operators import equals
from svc.machinery.cel.parser import ParseError
from svc.machinery.cel.values import NANOS, CelType, Duration, Optional, Timestamp, Uint, map_key
from tests.cel.textproto import Enum, Message, first, parse

DATA = Path(__file__).resolve().parents[3] / "shared" / "upstream-cel-spec" / "tests" / "simple" / "testdata"
if not DATA.is_dir():
    DATA = Path("/work/shared/upstream-cel-spec/tests/simple/testdata")

MESSAGES = "protobuf message types, enums and wrappers, which the project never exposes to CEL"
TYPE_CHECK = "the checker types schema-typed rules; the spec's deduced-type vectors need cel-go's full inference"
UNKNOWNS = "partial evaluation with unknowns is not used by Kubernetes"
CONTAINER = "expression containers (namespaces): Kubernetes environments declare none"
NO_MACROS = "parsing with macros disabled is not offered by Kubernetes"
BLOCK = "cel.block is an optimizer-internal extension Kubernetes does not enable"
_SKIPPED_FILES = {
    "block_ext.textproto": BLOCK,
    **dict.fromkeys(
        ("proto2.textproto", "proto3.textproto", "proto2_ext.textproto", "enums.textproto", "wrappers.textproto"),
        MESSAGES,
    ),
}
_MESSAGE_NAMES = (
    "google.protobuf.",
    "cel.expr.conformance",
    "TestAllTypes",
    "NestedTestAllTypes",
    "proto2.",
    "proto3.",
)


class Skip(Exception):
    """A case outside what the environment claims; the message is one of the named reasons."""


@dataclass(frozen=True)
class Outcome:
    file: str
    section: str
    name: str
    status: str  # "pass", "fail" or "skip"
    detail: str = ""

    @property
    def key(self) -> str:
        return f"{self.file}/{self.section}/{self.name}"


def _any(message: Message) -> Any:
    (type_url,) = message
    body = first(message, type_url)
    if type_url.endswith("google.protobuf.Duration]"):
        return Duration(first(body, "seconds", 0) * NANOS + first(body, "nanos", 0))
    if type_url.endswith("google.protobuf.Timestamp]"):
        return Timestamp(first(body, "seconds", 0) * NANOS + first(body, "nanos", 0))
    raise Skip(MESSAGES)


def value(message: Message) -> Any:
    """A `cel.expr.Value` as the environment's runtime value."""
    if "null_value" in message:
        return None
    if "bool_value" in message:
        return first(message, "bool_value") == Enum("true")
    if "int64_value" in message:
        return first(message, "int64_value")
    if "uint64_value" in message:
        return Uint(first(message, "uint64_value"))
    if "double_value" in message:
        return float(first(message, "double_value"))
    if "string_value" in message:
        return first(message, "string_value").decode()
    if "bytes_value" in message:
        return first(message, "bytes_value")
    if "list_value" in message:
        return [value(v) for v in first(message, "list_value").get("values", [])]
    if "map_value" in message:
        entries = first(message, "map_value").get("entries", [])
        return {map_key(value(first(e, "key"))): value(first(e, "value")) for e in entries}
    if "type_value" in message:
        return CelType(first(message, "type_value").decode())
    if "object_value" in message:
        return _any(first(message, "object_value"))
    if not message:
        raise Skip(MESSAGES)
    raise Skip(MESSAGES)


def same(got: Any, expected: Any) -> bool:
    """Equal in value and in CEL type (an int result must not stand for a uint or a double)."""
    if type(expected) is float and type(got) is float:
        return got == expected or (math.isnan(got) and math.isnan(expected))
    if type(got) is not type(expected) and not (type(got) in (list, tuple) and type(expected) is list):
        return False
    if type(expected) is list:
        return len(got) == len(expected) and all(same(g, e) for g, e in zip(got, expected, strict=True))
    if type(expected) is dict:
        return len(got) == len(expected) and all(
            any(equals(k, gk) and same(gv, v) for gk, gv in got.items()) for k, v in expected.items()
        )
    if type(expected) is Optional:
        return equals(got, expected)
    return equals(got, expected)


def _prepare(test: Message) -> tuple[str, dict[str, Any], bool, Any]:
    expr = first(test, "expr").decode()
    if first(test, "disable_macros") == Enum("true"):
        raise Skip(NO_MACROS)
    if first(test, "check_only") == Enum("true") or "typed_result" in test:
        raise Skip(TYPE_CHECK)
    if "unknown" in test or "any_unknowns" in test:
        raise Skip(UNKNOWNS)
    container = (first(test, "container") or b"").decode()
    if any(name in expr for name in _MESSAGE_NAMES) or container.startswith(("cel.expr.conformance", "google.")):
        raise Skip(MESSAGES)
    if container:
        raise Skip(CONTAINER)
    if "cel.block" in expr:
        raise Skip(BLOCK)
    bindings = {}
    for entry in test.get("bindings", []):
        bindings[first(entry, "key").decode()] = value(first(first(entry, "value"), "value"))
    expect_error = "eval_error" in test or "any_eval_errors" in test
    expected = None if expect_error else value(first(test, "value", {"bool_value": [Enum("true")]}))
    declared = [first(d, "name").decode() for d in test.get("type_env", []) if "ident" in d]
    return (
        expr,
        bindings | {name: bindings.get(name) for name in declared if name in bindings},
        expect_error,
        (
            expected,
            declared,
        ),
    )


def run_case(file: str, section: str, test: Message) -> Outcome:
    name = first(test, "name").decode()
    try:
        expr, bindings, expect_error, (expected, declared) = _prepare(test)
        program = Environment([*bindings, *declared], strict=first(test, "disable_check") != Enum("true")).compile(expr)
    except Skip as skip:
        return Outcome(file, section, name, "skip", str(skip))
    except ParseError as err:
        if "message construction" in str(err):
            return Outcome(file, section, name, "skip", MESSAGES)
        return Outcome(file, section, name, "pass" if expect_error else "fail", f"parse: {err}")
    except CelError as err:
        return Outcome(file, section, name, "pass" if expect_error else "fail", f"compile: {err}")
    try:
        got = program.evaluate(bindings)
    except CelError as err:
        return Outcome(file, section, name, "pass" if expect_error else "fail", f"error: {err}")
    except Exception as err:
        return Outcome(file, section, name, "fail", f"crash: {type(err).__name__}: {err}")
    if expect_error:
        return Outcome(file, section, name, "fail", f"expected an error, got {got!r}")
    if same(got, expected):
        return Outcome(file, section, name, "pass")
    return Outcome(file, section, name, "fail", f"got {got!r}, expected {expected!r}")


def files() -> list[Path]:
    return sorted(DATA.glob("*.textproto"))


def run_file(path: Path) -> list[Outcome]:
    document = parse(path.read_text())
    outcomes = []
    for section in document.get("section", []):
        section_name = first(section, "name").decode()
        for test in section.get("test", []):
            if path.name in _SKIPPED_FILES:
                reason = _SKIPPED_FILES[path.name]
                outcomes.append(Outcome(path.name, section_name, first(test, "name").decode(), "skip", reason))
            else:
                outcomes.append(run_case(path.name, section_name, test))
    return outcomes


def main() -> None:
    totals: Counter[str] = Counter()
    for path in files():
        counts = Counter(o.status for o in run_file(path))
        totals.update(counts)
        print(f"{path.name:28} pass {counts['pass']:4} fail {counts['fail']:4} skip {counts['skip']:4}")
    print(f"{'total':28} pass {totals['pass']:4} fail {totals['fail']:4} skip {totals['skip']:4}")


if __name__ == "__main__":
    main()
