"""FlowSchema and PriorityLevelConfiguration (`pkg/apis/flowcontrol/validation`, v1 rules).

Upstream also pins the specs of its mandatory objects (`exempt`, `catch-all`) to fixed values; that
check belongs with the bootstrap configuration the server maintains and is not repeated here.
"""

from __future__ import annotations

import math
from typing import Any, Final

from svc.api.validation.engine import Check, KindRules, items, lookup, mapping, text
from svc.machinery.field_errors import FieldError, duplicate, forbidden, invalid, not_supported, required
from svc.machinery.validation import name_is_dns_label, name_is_dns_subdomain

MAX_MATCHING_PRECEDENCE: Final = 10_000
MAX_QUEUES: Final = 10_000_000
_MAX_HASH_BITS: Final = 60
_DISTINGUISHERS: Final = ("ByNamespace", "ByUser")
_VERBS: Final = frozenset(("create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"))
_SUBJECT_KINDS: Final = ("Group", "ServiceAccount", "User")
_ENABLEMENTS: Final = ("Exempt", "Limited")
_LIMIT_RESPONSES: Final = ("Queue", "Reject")
_NAMESPACE_INTRO: Final = "each member of this list must be '*' or a DNS-1123 label; "


def _wildcard_list(values: list[Any], path: str, what: str, required_detail: str) -> list[FieldError]:
    if not values:
        return [required(path, required_detail)]
    if len(values) > 1 and "*" in values:
        return [invalid(path, values, f"if '*' is present, must not specify other {what}")]
    return []


def _verbs(rule: Any, path: str) -> list[FieldError]:
    verbs = items(lookup(rule, "verbs"))
    errors = _wildcard_list(verbs, f"{path}.verbs", "verbs", "verbs must contain at least one value")
    if verbs and "*" not in verbs and not set(verbs) <= _VERBS:
        errors.append(not_supported(f"{path}.verbs", verbs, sorted(_VERBS)))
    return errors


def _resource_rule(rule: Any, path: str) -> list[FieldError]:
    errors = _verbs(rule, path)
    groups, resources = items(lookup(rule, "apiGroups")), items(lookup(rule, "resources"))
    errors += _wildcard_list(
        groups, f"{path}.apiGroups", "api groups", "resource rules must supply at least one api group"
    )
    errors += _wildcard_list(
        resources, f"{path}.resources", "resources", "resource rules must supply at least one resource"
    )
    namespaces = items(lookup(rule, "namespaces"))
    if not namespaces and lookup(rule, "clusterScope") is not True:
        detail = "resource rules that are not cluster scoped must supply at least one namespace"
        errors.append(required(f"{path}.namespaces", detail))
    elif "*" in namespaces:
        if len(namespaces) > 1:
            errors.append(
                invalid(f"{path}.namespaces", namespaces, "if '*' is present, must not specify other namespaces")
            )
    else:
        for index, namespace in enumerate(namespaces):
            where = f"{path}.namespaces[{index}]"
            errors += [
                invalid(where, namespace, _NAMESPACE_INTRO + m) for m in name_is_dns_label(str(namespace), False)
            ]
    return errors


def _url_path_error(value: str, path: str) -> list[FieldError]:
    if not value:
        return [invalid(path, value, "must not be empty")]
    if value == "/":
        return []
    for failed, message in (
        (not value.startswith("/"), "must start with slash"),
        (" " in value, "must not contain white-space"),
        ("//" in value, "must not contain double slash"),
        (
            value.count("*") > 1 or (value.count("*") == 1 and value[-2:] != "/*"),
            "wildcard can only do suffix matching",
        ),
    ):
        if failed:
            return [invalid(path, value, message)]
    return []


def _non_resource_rule(rule: Any, path: str) -> list[FieldError]:
    errors = _verbs(rule, path)
    urls = items(lookup(rule, "nonResourceURLs"))
    where = f"{path}.nonResourceURLs"
    errors += _wildcard_list(urls, where, "non-resource URLs", "nonResourceURLs must contain at least one value")
    if urls and "*" not in urls:
        for index, url in enumerate(urls):
            errors += _url_path_error(str(url), f"{where}[{index}]")
    return errors


_OTHER_MEMBERS: Final = (
    ("serviceAccount", "serviceAccount is forbidden when subject kind is not 'ServiceAccount'"),
    ("user", "user is forbidden when subject kind is not 'User'"),
    ("group", "group is forbidden when subject kind is not 'Group'"),
)
_MEMBER: Final = {"ServiceAccount": "serviceAccount", "User": "user", "Group": "group"}


def _subject(subject: Any, path: str) -> list[FieldError]:
    kind = lookup(subject, "kind")
    member = _MEMBER.get(kind) if isinstance(kind, str) else None
    if member is None:
        return [not_supported(f"{path}.kind", kind if kind is not None else "", _SUBJECT_KINDS)]
    value, where = lookup(subject, member), f"{path}.{member}"
    errors: list[FieldError] = []
    if not isinstance(value, dict):
        errors.append(required(where, f"{member} is required when subject kind is '{kind}'"))
    else:
        name = text(value, "name")
        if not name:
            errors.append(required(f"{where}.name"))
        elif member == "serviceAccount" and name != "*":
            errors += [invalid(f"{where}.name", name, m) for m in name_is_dns_subdomain(name, False)]
        if member == "serviceAccount":
            namespace = text(value, "namespace")
            if not namespace:
                errors.append(required(f"{where}.namespace", "must specify namespace for service account"))
            errors += [
                invalid(f"{where}.namespace", namespace, m) for m in name_is_dns_label(namespace, False) if namespace
            ]
    for other, detail in _OTHER_MEMBERS:
        if other != member and lookup(subject, other) is not None:
            errors.append(forbidden(f"{path}.{other}", detail))
    return errors


def _policy_rules(rule: Any, path: str) -> list[FieldError]:
    subjects = items(lookup(rule, "subjects"))
    errors = [] if subjects else [required(f"{path}.subjects", "subjects must contain at least one value")]
    for index, subject in enumerate(subjects):
        errors += _subject(subject, f"{path}.subjects[{index}]")
    resource_rules, non_resource_rules = items(lookup(rule, "resourceRules")), items(lookup(rule, "nonResourceRules"))
    if not resource_rules and not non_resource_rules:
        errors.append(required(path, "at least one of resourceRules and nonResourceRules has to be non-empty"))
    for index, entry in enumerate(resource_rules):
        errors += _resource_rule(entry, f"{path}.resourceRules[{index}]")
    for index, entry in enumerate(non_resource_rules):
        errors += _non_resource_rule(entry, f"{path}.nonResourceRules[{index}]")
    return errors


def _conditions(obj: Any, _: str) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[Any] = set()
    for index, condition in enumerate(items(lookup(obj, "status.conditions"))):
        kind = lookup(condition, "type")
        if kind in seen:
            errors.append(duplicate(f"status.conditions[{index}].type", kind))
        seen.add(kind)
        if not kind:
            errors.append(required(f"status.conditions[{index}].type", "must not be empty"))
    return errors


def _flow_schema(obj: Any, _: str) -> list[FieldError]:
    spec = mapping(obj, "spec")
    errors: list[FieldError] = []
    precedence = spec.get("matchingPrecedence")
    value = precedence if isinstance(precedence, int) else 0
    if value <= 0:
        errors.append(invalid("spec.matchingPrecedence", value, "must be a positive value"))
    if value > MAX_MATCHING_PRECEDENCE:
        errors.append(invalid("spec.matchingPrecedence", value, f"must not be greater than {MAX_MATCHING_PRECEDENCE}"))
    if value == 1 and text(obj, "metadata.name") != "exempt":
        errors.append(
            invalid("spec.matchingPrecedence", value, "only the schema named 'exempt' may have matchingPrecedence 1")
        )
    method = spec.get("distinguisherMethod")
    if isinstance(method, dict) and method.get("type") not in _DISTINGUISHERS:
        errors.append(not_supported("spec.distinguisherMethod.type", method.get("type") or "", _DISTINGUISHERS))
    level = text(spec, "priorityLevelConfiguration.name")
    if level:
        where = "spec.priorityLevelConfiguration.name"
        errors += [invalid(where, level, message) for message in name_is_dns_subdomain(level, False)]
    else:
        errors.append(required("spec.priorityLevelConfiguration.name", "must reference a priority level"))
    for index, rule in enumerate(items(spec.get("rules"))):
        errors += _policy_rules(rule, f"spec.rules[{index}]")
    return errors


def _positive(node: Any, key: str, path: str) -> list[FieldError]:
    value = lookup(node, key)
    value = value if isinstance(value, int) else 0
    return [invalid(f"{path}.{key}", value, "must be positive")] if value <= 0 else []


def _queuing(queuing: Any, path: str) -> list[FieldError]:
    errors = _positive(queuing, "queueLengthLimit", path)
    queues, hand = lookup(queuing, "queues"), lookup(queuing, "handSize")
    queues, hand = (queues if isinstance(queues, int) else 0), (hand if isinstance(hand, int) else 0)
    if queues <= 0:
        errors.append(invalid(f"{path}.queues", queues, "must be positive"))
    elif queues > MAX_QUEUES:
        errors.append(invalid(f"{path}.queues", queues, f"must not be greater than {MAX_QUEUES}"))
    if hand <= 0:
        errors.append(invalid(f"{path}.handSize", hand, "must be positive"))
    elif hand > queues:
        errors.append(invalid(f"{path}.handSize", hand, f"should not be greater than queues ({queues})"))
    elif _entropy_bits(queues, hand) > _MAX_HASH_BITS:
        detail = f"required entropy bits of deckSize {queues} and handSize {hand} should not be greater than "
        detail += str(_MAX_HASH_BITS)
        errors.append(invalid(f"{path}.handSize", hand, detail))
    return errors


def _entropy_bits(deck: int, hand: int) -> int:
    """Upstream's shuffle-sharding `RequiredEntropyBits`: ceil(log2(deck) * hand)."""
    return math.ceil(math.log2(deck) * hand)


def _limit_response(response: Any, path: str) -> list[FieldError]:
    kind, queuing = lookup(response, "type"), lookup(response, "queuing")
    if kind == "Reject":
        if queuing is not None:
            return [forbidden(f"{path}.queuing", "must be nil if limited.limitResponse.type is not Limited")]
        return []
    if kind == "Queue":
        if not isinstance(queuing, dict):
            return [required(f"{path}.queuing", "must not be empty if limited.limitResponse.type is Limited")]
        return _queuing(queuing, f"{path}.queuing")
    return [not_supported(f"{path}.type", kind if kind is not None else "", _LIMIT_RESPONSES)]


def _limited(limited: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    shares = lookup(limited, "nominalConcurrencyShares")
    if isinstance(shares, int) and shares < 0:
        errors.append(invalid(f"{path}.nominalConcurrencyShares", shares, "must be a non-negative integer"))
    errors += _limit_response(lookup(limited, "limitResponse"), f"{path}.limitResponse")
    lendable = lookup(limited, "lendablePercent")
    if isinstance(lendable, int) and not 0 <= lendable <= 100:
        errors.append(invalid(f"{path}.lendablePercent", lendable, "must be between 0 and 100, inclusive"))
    borrowing = lookup(limited, "borrowingLimitPercent")
    if isinstance(borrowing, int) and borrowing < 0:
        errors.append(
            invalid(f"{path}.borrowingLimitPercent", borrowing, "if specified, must be a non-negative integer")
        )
    return errors


def _priority_level(obj: Any, _: str) -> list[FieldError]:
    spec = mapping(obj, "spec")
    kind = spec.get("type")
    errors: list[FieldError] = []
    if (text(obj, "metadata.name") == "exempt") != (kind == "Exempt"):
        errors.append(invalid("spec.type", kind or "", "type must be 'Exempt' if and only if name is 'exempt'"))
    if kind == "Exempt":
        if spec.get("limited") is not None:
            errors.append(forbidden("spec.limited", "must be nil if the type is not Limited"))
    elif kind == "Limited":
        if not isinstance(spec.get("limited"), dict):
            errors.append(required("spec.limited", "must not be empty when type is Limited"))
        else:
            errors += _limited(spec["limited"], "spec.limited")
    else:
        errors.append(not_supported("spec.type", kind if kind is not None else "", _ENABLEMENTS))
    return errors


RULES: Final[dict[tuple[str, str], KindRules]] = {
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): KindRules(create=(Check(_flow_schema), Check(_conditions))),
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): KindRules(
        create=(Check(_priority_level), Check(_conditions))
    ),
}
