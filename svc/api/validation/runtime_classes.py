"""RuntimeClass (node.k8s.io), as upstream's `pkg/apis/node/validation`: a DNS-label handler that never
changes, a pod overhead checked as container limits are, and scheduling constraints."""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.engine import Check, Immutable, KindRules, items, lookup, mapping, string_map, text
from svc.api.validation.pods import toleration_errors
from svc.api.validation.resources import requirements_errors
from svc.machinery.field_errors import FieldError, duplicate, invalid
from svc.machinery.validation import name_is_dns_label, validate_labels


def _handler(obj: Any, _: str) -> list[FieldError]:
    handler = text(obj, "handler")
    return [invalid("handler", handler, message) for message in name_is_dns_label(handler, False)]


def _overhead(obj: Any, _: str) -> list[FieldError]:
    if type(lookup(obj, "overhead")) is not dict:
        return []
    return requirements_errors({"limits": mapping(obj, "overhead.podFixed")}, "overhead")


def _scheduling(obj: Any, _: str) -> list[FieldError]:
    scheduling = lookup(obj, "scheduling")
    if type(scheduling) is not dict:
        return []
    errors = validate_labels(string_map(scheduling, "nodeSelector"), "scheduling.nodeSelector")
    path = "scheduling.tolerations"
    tolerations = items(scheduling.get("tolerations"))
    errors += toleration_errors(tolerations, path, comparison_operators=False)
    seen: list[Any] = []
    for index, toleration in enumerate(tolerations):
        if type(toleration) is not dict:
            continue
        identity = (toleration.get("key", ""), toleration.get("operator", ""), toleration.get("value", ""))
        identity += (toleration.get("effect", ""),)
        if identity in seen:
            errors.append(duplicate(f"{path}[{index}]", toleration))
        seen.append(identity)
    return errors


RUNTIME_CLASS = KindRules(
    create=(Check(_handler), Check(_overhead), Check(_scheduling)), update=(Immutable("handler"),)
)

RULES: Final[dict[tuple[str, str], KindRules]] = {("node.k8s.io", "RuntimeClass"): RUNTIME_CLASS}
