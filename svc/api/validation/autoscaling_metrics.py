"""A HorizontalPodAutoscaler's `metrics` and `behavior`, as upstream's `pkg/apis/autoscaling/validation`.

Each metric names one source type and fills exactly that source; targets are positive; scaling rules
have at least one policy with a positive value over a period of at most 30 minutes.
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.engine import items, lookup, text
from svc.api.validation.resources import container_resource_name_errors, quantity
from svc.machinery.field_errors import FieldError, forbidden, invalid, not_supported, required
from svc.machinery.labels import validate_label_selector
from svc.machinery.validation import is_dns1123_label, is_valid_path_segment_name

# Source type → the member holding it, in the order upstream looks at them.
SOURCES: Final = {
    "Object": "object",
    "External": "external",
    "Pods": "pods",
    "Resource": "resource",
    "ContainerResource": "containerResource",
}
SOURCE_TYPES: Final = tuple(sorted(SOURCES))
TARGET_TYPES: Final = ("Utilization", "Value", "AverageValue")
SELECT_POLICIES: Final = ("Disabled", "Max", "Min")
POLICY_TYPES: Final = ("Percent", "Pods")
MAX_STABILIZATION_WINDOW_SECONDS: Final = 3600
MAX_PERIOD_SECONDS: Final = 1800


def _positive(target: Any, key: str, path: str) -> list[FieldError]:
    value = lookup(target, key)
    parsed = quantity(value) if value is not None else None
    if parsed is not None and parsed.value <= 0:
        return [invalid(f"{path}.{key}", str(parsed), "must be positive")]
    return []


def _target(target: Any, path: str) -> list[FieldError]:
    kind = text(target, "type")
    errors = [required(f"{path}.type", "must specify a metric target type")] if not kind else []
    if kind not in TARGET_TYPES:
        errors.append(invalid(f"{path}.type", kind, "must be either Utilization, Value, or AverageValue"))
    errors += _positive(target, "value", path) + _positive(target, "averageValue", path)
    utilization = lookup(target, "averageUtilization")
    if isinstance(utilization, int) and utilization < 1:
        errors.append(invalid(f"{path}.averageUtilization", utilization, "must be greater than 0"))
    return errors


def _metric(identifier: Any, path: str) -> list[FieldError]:
    name = text(identifier, "name")
    if not name:
        errors = [required(f"{path}.name", "must specify a metric name")]
    else:
        errors = [invalid(f"{path}.name", name, message) for message in is_valid_path_segment_name(name)]
    selector = lookup(identifier, "selector")
    return errors + (validate_label_selector(selector, f"{path}.selector") if selector is not None else [])


def _has(target: Any, key: str) -> bool:
    return lookup(target, key) is not None


def _object(source: Any, path: str) -> list[FieldError]:
    errors = _reference(lookup(source, "describedObject"), f"{path}.describedObject")
    target = lookup(source, "target")
    errors += _metric(lookup(source, "metric"), f"{path}.metric") + _target(target, f"{path}.target")
    if not _has(target, "value") and not _has(target, "averageValue"):
        errors.append(required(f"{path}.target.averageValue", "must set either a target value or averageValue"))
    return errors


def _external(source: Any, path: str) -> list[FieldError]:
    target = lookup(source, "target")
    errors = _metric(lookup(source, "metric"), f"{path}.metric") + _target(target, f"{path}.target")
    value, average = _has(target, "value"), _has(target, "averageValue")
    if not value and not average:
        detail = "must set either a target value for metric or a per-pod target"
        errors.append(required(f"{path}.target.averageValue", detail))
    if value and average:
        detail = "may not set both a target value for metric and a per-pod target"
        errors.append(forbidden(f"{path}.target.value", detail))
    return errors


def _pods(source: Any, path: str) -> list[FieldError]:
    target = lookup(source, "target")
    errors = _metric(lookup(source, "metric"), f"{path}.metric") + _target(target, f"{path}.target")
    if not _has(target, "averageValue"):
        errors.append(required(f"{path}.target.averageValue", "must specify a positive target averageValue"))
    return errors


def _utilization_or_value(target: Any, path: str) -> list[FieldError]:
    utilization, average = _has(target, "averageUtilization"), _has(target, "averageValue")
    errors: list[FieldError] = []
    if not utilization and not average:
        detail = "must set either a target raw value or a target utilization"
        errors.append(required(f"{path}.target.averageUtilization", detail))
    if utilization and average:
        detail = "may not set both a target raw value and a target utilization"
        errors.append(forbidden(f"{path}.target.averageValue", detail))
    return errors


def _resource(source: Any, path: str) -> list[FieldError]:
    name = text(source, "name")
    if not name:
        errors = [required(f"{path}.name", "must specify a resource name")]
    else:
        errors = container_resource_name_errors(name, f"{path}.name")
    target = lookup(source, "target")
    return errors + _target(target, f"{path}.target") + _utilization_or_value(target, path)


def _container_resource(source: Any, path: str) -> list[FieldError]:
    name, container = text(source, "name"), text(source, "container")
    if not name:
        errors = [required(f"{path}.name", "must specify a resource name")]
    else:
        errors = container_resource_name_errors(name, f"{path}.name")
    if not container:
        errors.append(required(f"{path}.container", "must specify a container"))
    else:
        errors += [invalid(f"{path}.container", container, message) for message in is_dns1123_label(container)]
    target = lookup(source, "target")
    return errors + _target(target, f"{path}.target") + _utilization_or_value(target, path)


_CHECKS: Final = {
    "object": _object,
    "external": _external,
    "pods": _pods,
    "resource": _resource,
    "containerResource": _container_resource,
}


def _reference(reference: Any, path: str) -> list[FieldError]:
    """Upstream's `ValidateCrossVersionObjectReference` (kind and name)."""
    errors: list[FieldError] = []
    for key in ("kind", "name"):
        value = text(reference, key)
        if not value:
            errors.append(required(f"{path}.{key}"))
        else:
            errors += [invalid(f"{path}.{key}", value, message) for message in is_valid_path_segment_name(value)]
    return errors


def _metric_spec(spec: Any, path: str) -> list[FieldError]:
    kind = text(spec, "type")
    errors = [required(f"{path}.type", "must specify a metric source type")] if not kind else []
    if kind not in SOURCES:
        errors.append(not_supported(f"{path}.type", kind, SOURCE_TYPES))
    present: list[str] = []
    for member, check in _CHECKS.items():
        if _has(spec, member):
            present.append(member)
            if len(present) == 1:
                errors += check(lookup(spec, member), f"{path}.{member}")
    expected = SOURCES.get(kind, "")
    if expected and not _has(spec, expected):
        errors.append(required(f"{path}.{expected}", "must populate information for the given metric source"))
    if not expected:
        errors.append(not_supported(f"{path}.type", kind, SOURCE_TYPES))
    if len(present) != 1:
        for member in sorted(set(present) - {expected}):
            errors.append(forbidden(f"{path}.{member}", "must populate the given metric source only"))
    return errors


def metrics_errors(obj: Any, _: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for index, spec in enumerate(items(lookup(obj, "spec.metrics"))):
        errors += _metric_spec(spec, f"spec.metrics[{index}]")
    return errors


def _policy(policy: Any, path: str) -> list[FieldError]:
    kind, value, period = text(policy, "type"), lookup(policy, "value"), lookup(policy, "periodSeconds")
    value, period = value if isinstance(value, int) else 0, period if isinstance(period, int) else 0
    errors = [not_supported(f"{path}.type", kind, POLICY_TYPES)] if kind not in POLICY_TYPES else []
    if value <= 0:
        errors.append(invalid(f"{path}.value", value, "must be greater than zero"))
    if period <= 0:
        errors.append(invalid(f"{path}.periodSeconds", period, "must be greater than zero"))
    if period > MAX_PERIOD_SECONDS:
        errors.append(invalid(f"{path}.periodSeconds", period, f"must be less than or equal to {MAX_PERIOD_SECONDS}"))
    return errors


def _scaling_rules(rules: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    window = lookup(rules, "stabilizationWindowSeconds")
    if isinstance(window, int) and window < 0:
        errors.append(invalid(f"{path}.stabilizationWindowSeconds", window, "must be greater than or equal to zero"))
    if isinstance(window, int) and window > MAX_STABILIZATION_WINDOW_SECONDS:
        detail = f"must be less than or equal to {MAX_STABILIZATION_WINDOW_SECONDS}"
        errors.append(invalid(f"{path}.stabilizationWindowSeconds", window, detail))
    select = lookup(rules, "selectPolicy")
    if select is not None and select not in SELECT_POLICIES:
        errors.append(not_supported(f"{path}.selectPolicy", select, SELECT_POLICIES))
    policies = items(lookup(rules, "policies"))
    if not policies:
        errors.append(required(f"{path}.policies", "must specify at least one Policy"))
    for index, policy in enumerate(policies):
        errors += _policy(policy, f"{path}.policies[{index}]")
    return errors


def behavior_errors(obj: Any, _: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for direction in ("scaleUp", "scaleDown"):
        rules = lookup(obj, f"spec.behavior.{direction}")
        if type(rules) is dict:
            errors += _scaling_rules(rules, f"spec.behavior.{direction}")
    return errors
