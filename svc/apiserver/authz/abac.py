"""ABAC (`--authorization-mode=ABAC`, `--authorization-policy-file`): a file of policies, one JSON
object a line, each allowing a subject some requests.

Both of upstream's formats are read: `abac.authorization.kubernetes.io/v1beta1` Policy objects and the
unversioned v0 lines, converted as upstream converts them (in v0, no subject or a `*` subject means
every authenticated user, an empty namespace or resource means all, and any API group matches; in
v1beta1 a `*` user or group also means every authenticated user). A read-only policy allows only
get, list and watch. Blank lines and lines starting with `#` are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from svc.apiserver.authz.authorizer import Attributes, Decision
from svc.apiserver.authz.rbac.rules import Rule
from svc.registry.admission import UserInfo

ALL_AUTHENTICATED = "system:authenticated"
_READ_ONLY_VERBS = frozenset({"get", "list", "watch"})
_V1BETA1 = "abac.authorization.kubernetes.io/v1beta1"
_ANY = "*"


@dataclass(frozen=True)
class Policy:
    user: str = ""
    group: str = ""
    readonly: bool = False
    api_group: str = ""
    resource: str = ""
    namespace: str = ""
    non_resource_path: str = ""

    def subject_matches(self, user: UserInfo) -> bool:
        matched = False
        if self.user:
            matched = self.user == _ANY or self.user == user.name
            if not matched:
                return False
        if self.group:
            matched = self.group == _ANY or self.group in user.groups
        return matched

    def request_matches(self, attributes: Attributes) -> bool:
        if self.readonly and attributes.verb not in _READ_ONLY_VERBS:
            return False
        if attributes.is_resource_request:
            return (
                self.namespace in (_ANY, attributes.namespace)
                and self.resource in (_ANY, attributes.resource)
                and self.api_group in (_ANY, attributes.api_group)
            )
        path = self.non_resource_path
        return path in (_ANY, attributes.path) or (path.endswith("*") and attributes.path.startswith(path.rstrip("*")))

    def rules(self, namespace: str) -> list[Rule]:
        """The policy as rules in a namespace, for SelfSubjectRulesReview."""
        if self.namespace not in (_ANY, namespace):
            return []
        verbs = ("get", "list", "watch") if self.readonly else (_ANY,)
        rules = []
        if self.resource:
            rules.append(Rule(verbs, (self.api_group,), (self.resource,)))
        if self.non_resource_path:
            rules.append(Rule(verbs, non_resource_urls=(self.non_resource_path,)))
        return rules


class PolicyFileError(ValueError):
    """The policy file cannot be read or a line of it is not a policy (upstream's message)."""


def _string(spec: dict[str, Any], name: str) -> str:
    value = spec.get(name, "")
    if not isinstance(value, str):
        raise ValueError(f'json: cannot unmarshal {type(value).__name__} into Go struct field "{name}" of type string')
    return value


def _flag(spec: dict[str, Any], name: str) -> bool:
    value = spec.get(name, False)
    if not isinstance(value, bool):
        raise ValueError(f'json: cannot unmarshal {type(value).__name__} into Go struct field "{name}" of type bool')
    return value


def _from_v1beta1(obj: dict[str, Any]) -> Policy:
    if obj.get("kind") != "Policy":
        raise ValueError(f'no kind "{obj.get("kind", "")}" is registered for version "{_V1BETA1}"')
    spec = obj.get("spec") or {}
    if not isinstance(spec, dict):
        raise ValueError("spec must be an object")
    user, group = _string(spec, "user"), _string(spec, "group")
    if _ANY in (user, group):
        user, group = "", ALL_AUTHENTICATED
    return Policy(
        user=user,
        group=group,
        readonly=_flag(spec, "readonly"),
        api_group=_string(spec, "apiGroup"),
        resource=_string(spec, "resource"),
        namespace=_string(spec, "namespace"),
        non_resource_path=_string(spec, "nonResourcePath"),
    )


def _from_v0(obj: dict[str, Any]) -> Policy:
    user, group = _string(obj, "user"), _string(obj, "group")
    if (not user and not group) or _ANY in (user, group):
        user, group = "", ALL_AUTHENTICATED
    resource = _string(obj, "resource")
    return Policy(
        user=user,
        group=group,
        readonly=_flag(obj, "readonly"),
        api_group=_ANY,
        resource=resource or _ANY,
        namespace=_string(obj, "namespace") or _ANY,
        non_resource_path="" if resource else _ANY,
    )


def _policy(line: bytes) -> Policy:
    obj = orjson.loads(line)
    if not isinstance(obj, dict):
        raise ValueError("a policy must be a JSON object")
    version = obj.get("apiVersion")
    if version is None:
        return _from_v0(obj)
    if version != _V1BETA1:
        raise ValueError(f'no kind "{obj.get("kind", "")}" is registered for version "{version}"')
    return _from_v1beta1(obj)


def load_policy_file(path: str) -> list[Policy]:
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise PolicyFileError(f"error reading policy file {path}: {error.strerror or error}") from None
    policies = []
    for number, raw in enumerate(data.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(b"#"):
            continue
        try:
            policies.append(_policy(line))
        except (orjson.JSONDecodeError, ValueError) as error:
            text = line.decode(errors="replace")
            raise PolicyFileError(f"error reading policy file {path}, line {number}: {text}: {error}") from None
    return policies


class AbacAuthorizer:
    def __init__(self, policies: list[Policy]) -> None:
        self._policies = policies

    async def authorize(self, attributes: Attributes) -> tuple[Decision, str]:
        for policy in self._policies:
            if policy.subject_matches(attributes.user) and policy.request_matches(attributes):
                return Decision.ALLOW, ""
        return Decision.NO_OPINION, "No policy matched."

    def rules_for(self, user: UserInfo, namespace: str) -> list[Rule]:
        return [rule for policy in self._policies if policy.subject_matches(user) for rule in policy.rules(namespace)]
