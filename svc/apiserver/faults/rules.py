"""Fault rules: what a rule matches, what it does, and how a configuration document becomes rules.

A document is `{"seed": N?, "rules": [...]}`; each rule has optional match lists (`verbs`,
`resources` as `resource`, `group/resource` or either with `/subresource`, `namespaces`, `names`,
`users`; absent means any), an optional `probability` (0..1, default 1) and `count` (how many times
it may fire, default unlimited), and exactly one action: `error` (`code`, `reason`, `message`,
`retryAfterSeconds`), `delay` (`seconds`) or `dropWatch` (`afterSeconds`). The first rule that
matches and fires decides.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from svc.apiserver.request_info import RequestInfo
from svc.machinery import status

_MATCH_FIELDS = ("verbs", "resources", "namespaces", "names", "users")
_ACTIONS = ("error", "delay", "dropWatch")
_RULE_FIELDS = frozenset({*_MATCH_FIELDS, *_ACTIONS, "probability", "count"})
# The reason upstream gives each code it answers with; any other code needs an explicit reason.
_REASONS = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    409: "Conflict",
    410: "Expired",
    429: "TooManyRequests",
    500: "InternalError",
    503: "ServiceUnavailable",
    504: "Timeout",
}


@dataclass
class ErrorAction:
    code: int
    reason: str
    message: str
    retry_after: int | None = None

    def status_error(self) -> status.StatusError:
        details = None if self.retry_after is None else {"retryAfterSeconds": self.retry_after}
        headers = {} if self.retry_after is None else {"Retry-After": str(self.retry_after)}
        return status.StatusError(self.code, self.reason, self.message, details, headers)

    def describe(self) -> dict[str, Any]:
        described: dict[str, Any] = {"code": self.code, "reason": self.reason, "message": self.message}
        if self.retry_after is not None:
            described["retryAfterSeconds"] = self.retry_after
        return {"error": described}


@dataclass
class DelayAction:
    seconds: float

    def describe(self) -> dict[str, Any]:
        return {"delay": {"seconds": self.seconds}}


@dataclass
class DropWatchAction:
    after_seconds: int

    def describe(self) -> dict[str, Any]:
        return {"dropWatch": {"afterSeconds": self.after_seconds}}


Action = ErrorAction | DelayAction | DropWatchAction


@dataclass
class Rule:
    action: Action
    match: dict[str, frozenset[str]] = field(default_factory=dict)
    probability: float = 1.0
    remaining: int | None = None

    def matches(self, info: RequestInfo, user: str) -> bool:
        if isinstance(self.action, DropWatchAction) and info.verb != "watch":
            return False
        wanted = self.match
        resources = wanted.get("resources")
        if resources is not None and (not info.is_resource_request or resources.isdisjoint(_resource_names(info))):
            return False
        checks = (("verbs", info.verb), ("namespaces", info.namespace), ("names", info.name), ("users", user))
        return all(key not in wanted or value in wanted[key] for key, value in checks)

    def fires(self, dice: random.Random) -> bool:
        """Whether it acts on this matching request; a firing uses up one of its count."""
        if self.remaining == 0 or (self.probability < 1 and dice.random() >= self.probability):
            return False
        if self.remaining is not None:
            self.remaining -= 1
        return True

    def describe(self) -> dict[str, Any]:
        described: dict[str, Any] = {key: sorted(values) for key, values in self.match.items()}
        described["probability"] = self.probability
        if self.remaining is not None:
            described["count"] = self.remaining
        return described | self.action.describe()


def _resource_names(info: RequestInfo) -> set[str]:
    names = {f"{info.api_group}/{info.resource}"}
    if not info.api_group:
        names.add(info.resource)
    if info.subresource:
        names |= {f"{name}/{info.subresource}" for name in list(names)}
    return names


@dataclass
class FaultSet:
    """The rules in force; the filter asks it about each request (nothing to ask when empty)."""

    rules: list[Rule] = field(default_factory=list)
    dice: random.Random = field(default_factory=random.Random)

    def pick(self, info: RequestInfo, user: str) -> Action | None:
        for rule in self.rules:
            if rule.matches(info, user) and rule.fires(self.dice):
                return rule.action
        return None

    def replace(self, other: FaultSet) -> None:
        self.rules, self.dice = other.rules, other.dice

    def describe(self) -> dict[str, Any]:
        return {"rules": [rule.describe() for rule in self.rules]}


def parse_fault_set(document: object) -> FaultSet:
    """Rules from a decoded document; ValueError naming the first bad field."""
    if document is None:
        return FaultSet()
    if not isinstance(document, Mapping):
        raise ValueError("fault configuration: expected an object with a 'rules' list")
    unknown = set(document) - {"rules", "seed"}
    if unknown:
        raise ValueError(f"fault configuration: unknown field {sorted(unknown)[0]!r}")
    seed = document.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise ValueError("fault configuration: seed: must be an integer")
    items = document.get("rules") or []
    if not isinstance(items, list):
        raise ValueError("fault configuration: rules: must be a list")
    rules = [_rule(item, f"rules[{index}]") for index, item in enumerate(items)]
    return FaultSet(rules, random.Random(seed))


def _rule(item: object, where: str) -> Rule:
    if not isinstance(item, Mapping):
        raise ValueError(f"{where}: must be an object")
    unknown = set(item) - _RULE_FIELDS
    if unknown:
        raise ValueError(f"{where}: unknown field {sorted(unknown)[0]!r}")
    match = {key: _strings(item[key], f"{where}.{key}") for key in _MATCH_FIELDS if item.get(key) is not None}
    probability = item.get("probability", 1.0)
    if isinstance(probability, bool) or not isinstance(probability, int | float) or not 0 <= probability <= 1:
        raise ValueError(f"{where}.probability: must be a number between 0 and 1")
    count = item.get("count")
    if count is not None and not _count(count):
        raise ValueError(f"{where}.count: must be a non-negative integer")
    actions = [name for name in _ACTIONS if item.get(name) is not None]
    if len(actions) != 1:
        raise ValueError(f"{where}: exactly one of error, delay, dropWatch is required")
    action = _action(actions[0], item[actions[0]], f"{where}.{actions[0]}")
    return Rule(action, match, float(probability), count)


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _strings(value: object, where: str) -> frozenset[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(entry, str) for entry in value):
        raise ValueError(f"{where}: must be a non-empty list of strings")
    return frozenset(value)


def _action(name: str, spec: object, where: str) -> Action:
    if not isinstance(spec, Mapping):
        raise ValueError(f"{where}: must be an object")
    if name == "delay":
        seconds = spec.get("seconds")
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds < 0:
            raise ValueError(f"{where}.seconds: must be a non-negative number")
        return DelayAction(float(seconds))
    if name == "dropWatch":
        after = spec.get("afterSeconds", 0)
        if not _count(after):
            raise ValueError(f"{where}.afterSeconds: must be a non-negative integer")
        return DropWatchAction(after)
    return _error(spec, where)


def _error(spec: Mapping[str, Any], where: str) -> ErrorAction:
    code = spec.get("code", 500)
    if isinstance(code, bool) or not isinstance(code, int) or not 400 <= code <= 599:
        raise ValueError(f"{where}.code: must be an HTTP error code (400-599)")
    reason = spec.get("reason", _REASONS.get(code, ""))
    if not isinstance(reason, str) or not reason:
        raise ValueError(f"{where}.reason: required for code {code}")
    message = spec.get("message", f"injected fault: {reason}")
    if not isinstance(message, str):
        raise ValueError(f"{where}.message: must be a string")
    retry_after = spec.get("retryAfterSeconds", 1 if code == 429 else None)
    if retry_after is not None and not _count(retry_after):
        raise ValueError(f"{where}.retryAfterSeconds: must be a non-negative integer")
    return ErrorAction(code, reason, message, retry_after)
