"""HorizontalPodAutoscaler columns, for autoscaling/v2 and autoscaling/v1 objects alike.

Upstream prints from its internal (v2-shaped) object, so a v1 autoscaler's CPU target and current CPU
utilization print as the one `cpu` resource metric a v2 object would carry. Each metric spec is paired
with the current metric at the same position, as upstream's printer does.
"""

from __future__ import annotations

from typing import Any

from svc.api.columns import descriptions
from svc.api.columns.common import NONE, UNSET, age_column, field, items, name_column, number, quantity, text
from svc.wire.views import Column, Obj

_UNKNOWN = "<unknown>"
_MAX_METRICS = 2


def _v1_as_metrics(hpa: Obj) -> tuple[list[Any], list[Any]]:
    """The v2 `metrics` and `currentMetrics` equivalent to a v1 object's CPU utilization fields."""
    target = field(hpa, "spec", "targetCPUUtilizationPercentage")
    spec = {"type": "Resource", "resource": {"name": "cpu", "target": {"averageUtilization": target}}}
    current = field(hpa, "status", "currentCPUUtilizationPercentage")
    if current is None:
        return [spec], []
    return [spec], [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": current}}}]


def _percent(value: Any) -> str | None:
    return f"{value}%" if isinstance(value, int) and not isinstance(value, bool) else None


def _target_text(spec: Obj, current: Any, source: str, *, named: bool) -> str:
    """`current/target` of one metric: `(avg)` after average-value targets of external and object
    metrics, `name: ` before resource metrics, `<unknown>` while no current reading is reported."""
    target = field(spec, source, "target")
    reported = isinstance(field(current, source), dict)
    reading = field(current, source, "current")
    prefix = f"{text(spec, source, 'name')}: " if named else ""
    if field(target, "averageValue") is not None:
        average = quantity(field(target, "averageValue"))
        if named:
            return f"{prefix}{quantity(field(reading, 'averageValue')) if reported else _UNKNOWN}/{average}"
        now = field(reading, "averageValue")
        return f"{quantity(now) if reported and now is not None else _UNKNOWN}/{average} (avg)"
    if named:
        now = (_percent(field(reading, "averageUtilization")) if reported else None) or _UNKNOWN
        return f"{prefix}{now}/{_percent(field(target, 'averageUtilization')) or '<auto>'}"
    return f"{quantity(field(reading, 'value')) if reported else _UNKNOWN}/{quantity(field(target, 'value'))}"


def _metric_text(spec: Obj, current: Any) -> str:
    kind = text(spec, "type")
    if kind == "Pods":
        reported = isinstance(field(current, "pods"), dict)
        now = quantity(field(current, "pods", "current", "averageValue")) if reported else _UNKNOWN
        return f"{now}/{quantity(field(spec, 'pods', 'target', 'averageValue'))}"
    if kind in ("External", "Object"):
        return _target_text(spec, current, kind.lower(), named=False)
    if kind == "Resource":
        return _target_text(spec, current, "resource", named=True)
    if kind == "ContainerResource":
        return _target_text(spec, current, "containerResource", named=True)
    return "<unknown type>"


def _targets(hpa: Obj) -> str:
    """Up to two metrics as `current/target`, then "+ N more..."; `<none>` without metrics."""
    if field(hpa, "spec", "targetCPUUtilizationPercentage") is not None:
        specs, statuses = _v1_as_metrics(hpa)
    else:
        specs, statuses = items(hpa, "spec", "metrics"), items(hpa, "status", "currentMetrics")
    if not specs:
        return NONE
    written = [
        _metric_text(spec if isinstance(spec, dict) else {}, statuses[i] if i < len(statuses) else None)
        for i, spec in enumerate(specs)
    ]
    if len(written) > _MAX_METRICS:
        return f"{', '.join(written[:_MAX_METRICS])} + {len(written) - _MAX_METRICS} more..."
    return ", ".join(written)


def _min_pods(hpa: Obj) -> str:
    value = field(hpa, "spec", "minReplicas")
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else UNSET


HORIZONTAL_POD_AUTOSCALER = (
    name_column(),
    Column(
        "Reference",
        "string",
        lambda obj: f"{text(obj, 'spec', 'scaleTargetRef', 'kind')}/{text(obj, 'spec', 'scaleTargetRef', 'name')}",
        description=descriptions.HPA_SCALE_TARGET_REF,
    ),
    Column("Targets", "string", _targets, description=descriptions.HPA_METRICS),
    Column("MinPods", "string", _min_pods, description=descriptions.HPA_MIN_REPLICAS),
    Column(
        "MaxPods",
        "string",
        lambda obj: number(obj, "spec", "maxReplicas"),
        description=descriptions.HPA_MAX_REPLICAS,
    ),
    Column(
        "Replicas",
        "string",
        lambda obj: number(obj, "status", "currentReplicas"),
        description=descriptions.HPA_CURRENT_REPLICAS,
    ),
    age_column(),
)
