"""autoscaling/v1 and autoscaling/v2 HorizontalPodAutoscalers: stored as v2, served as either.

Version 1 knows one metric, a CPU utilization target (`targetCPUUtilizationPercentage`, and
`currentCPUUtilizationPercentage` in the status). Upstream keeps what version 1 cannot say in
annotations of the v1 object, so a v1 client that reads an object and writes it back loses nothing:
the other metrics (`autoscaling.alpha.kubernetes.io/metrics`), the current metrics
(`.../current-metrics`), the conditions (`.../conditions`), in version 1's own metric shapes, and the
behavior (`.../behavior`, Go's internal type, so its keys are Go field names). Writing a v1 object
lifts them back out; a v1 object with no metric at all gets the 80% CPU target version 1 always
implied. Annotation values are written as Go writes them (struct order, see `gojson`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from svc.api.conversion.gojson import go_json

Obj = dict[str, Any]
DEFAULT_CPU_UTILIZATION = 80
METRICS = "autoscaling.alpha.kubernetes.io/metrics"
CURRENT_METRICS = "autoscaling.alpha.kubernetes.io/current-metrics"
CONDITIONS = "autoscaling.alpha.kubernetes.io/conditions"
BEHAVIOR = "autoscaling.alpha.kubernetes.io/behavior"
SCALE_DOWN_TOLERANCE = "autoscaling.alpha.kubernetes.io/scale-down-tolerance"
SCALE_UP_TOLERANCE = "autoscaling.alpha.kubernetes.io/scale-up-tolerance"
ROUND_TRIP = (METRICS, CURRENT_METRICS, CONDITIONS, BEHAVIOR, SCALE_DOWN_TOLERANCE, SCALE_UP_TOLERANCE)
Label = Callable[[str], str]


def _d(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _l(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _put(out: Obj, key: str, value: Any) -> None:
    if value is not None:
        out[key] = value


def _reference(ref: Obj) -> Obj:
    out = {"kind": ref.get("kind", ""), "name": ref.get("name", "")}
    if ref.get("apiVersion"):
        out["apiVersion"] = ref["apiVersion"]
    return out


def _is_cpu(metric: Obj) -> bool:
    return metric.get("type") == "Resource" and _d(metric.get("resource")).get("name") == "cpu"


def _is_cpu_utilization(metric: Obj) -> bool:
    return _is_cpu(metric) and _d(_d(metric.get("resource")).get("target")).get("averageUtilization") is not None


# -- version 2 metric shapes to version 1's, for the annotations ----------------------------------


def _identifier(source: Obj) -> tuple[str, Any]:
    metric = _d(source.get("metric"))
    return metric.get("name", ""), metric.get("selector")


def _spec_v1(metric: Obj) -> Obj:
    out: Obj = {"type": metric.get("type", "")}
    if isinstance(metric.get("object"), dict):
        source = metric["object"]
        target, (name, selector) = _d(source.get("target")), _identifier(source)
        item = {"target": _reference(_d(source.get("describedObject"))), "metricName": name}
        item["targetValue"] = target.get("value") or "0"
        _put(item, "selector", selector)
        _put(item, "averageValue", target.get("averageValue"))
        out["object"] = item
    if isinstance(metric.get("pods"), dict):
        source = metric["pods"]
        target, (name, selector) = _d(source.get("target")), _identifier(source)
        item = {"metricName": name, "targetAverageValue": target.get("averageValue") or "0"}
        _put(item, "selector", selector)
        out["pods"] = item
    for key in ("resource", "containerResource"):
        if isinstance(metric.get(key), dict):
            source = metric[key]
            target = _d(source.get("target"))
            item = {"name": source.get("name", "")}
            _put(item, "targetAverageUtilization", target.get("averageUtilization"))
            _put(item, "targetAverageValue", target.get("averageValue"))
            if key == "containerResource":
                item["container"] = source.get("container", "")
            out[key] = item
    if isinstance(metric.get("external"), dict):
        source = metric["external"]
        target, (name, selector) = _d(source.get("target")), _identifier(source)
        item = {"metricName": name}
        _put(item, "metricSelector", selector)
        _put(item, "targetValue", target.get("value"))
        _put(item, "targetAverageValue", target.get("averageValue"))
        out["external"] = item
    return out


def _status_v1(metric: Obj) -> Obj:
    out: Obj = {"type": metric.get("type", "")}
    if isinstance(metric.get("object"), dict):
        source = metric["object"]
        current, (name, selector) = _d(source.get("current")), _identifier(source)
        item = {"target": _reference(_d(source.get("describedObject"))), "metricName": name}
        item["currentValue"] = current.get("value") or "0"
        _put(item, "selector", selector)
        _put(item, "averageValue", current.get("averageValue"))
        out["object"] = item
    if isinstance(metric.get("pods"), dict):
        source = metric["pods"]
        current, (name, selector) = _d(source.get("current")), _identifier(source)
        item = {"metricName": name, "currentAverageValue": current.get("averageValue") or "0"}
        _put(item, "selector", selector)
        out["pods"] = item
    for key in ("resource", "containerResource"):
        if isinstance(metric.get(key), dict):
            source = metric[key]
            current = _d(source.get("current"))
            item = {"name": source.get("name", "")}
            _put(item, "currentAverageUtilization", current.get("averageUtilization"))
            item["currentAverageValue"] = current.get("averageValue") or "0"
            if key == "containerResource":
                item["container"] = source.get("container", "")
            out[key] = item
    if isinstance(metric.get("external"), dict):
        source = metric["external"]
        current, (name, selector) = _d(source.get("current")), _identifier(source)
        item = {"metricName": name}
        _put(item, "metricSelector", selector)
        item["currentValue"] = current.get("value") or "0"
        _put(item, "currentAverageValue", current.get("averageValue"))
        out["external"] = item
    return out


def _condition_v1(condition: Obj) -> Obj:
    out = {
        "type": condition.get("type", ""),
        "status": condition.get("status", ""),
        "lastTransitionTime": condition.get("lastTransitionTime"),
    }
    for key in ("reason", "message"):
        if condition.get(key):
            out[key] = condition[key]
    _put(out, "observedGeneration", condition.get("observedGeneration"))
    return out


def _behavior_go(behavior: Obj) -> Obj:
    """The internal behavior type as Go marshals it: no json tags, so Go's field names, nil as null."""

    def rules(given: Any) -> Any:
        if not isinstance(given, dict):
            return None
        policies = given.get("policies")
        return {
            "StabilizationWindowSeconds": given.get("stabilizationWindowSeconds"),
            "SelectPolicy": given.get("selectPolicy"),
            "Policies": None
            if not isinstance(policies, list)
            else [
                {"Type": p.get("type", ""), "Value": p.get("value", 0), "PeriodSeconds": p.get("periodSeconds", 0)}
                for p in map(_d, policies)
            ],
            "Tolerance": given.get("tolerance"),
        }

    return {"ScaleUp": rules(behavior.get("scaleUp")), "ScaleDown": rules(behavior.get("scaleDown"))}


# -- version 1 metric shapes back to version 2's ------------------------------------------------


def _named(name: Any, selector: Any) -> Obj:
    out = {"name": name or ""}
    _put(out, "selector", selector)
    return out


def _spec_v2(metric: Obj) -> Obj:
    out: Obj = {"type": metric.get("type", "")}
    if isinstance(metric.get("object"), dict):
        source = metric["object"]
        average = source.get("averageValue")
        target = {"type": "Value" if average is None else "AverageValue", "value": source.get("targetValue") or "0"}
        _put(target, "averageValue", average)
        out["object"] = {
            "metric": _named(source.get("metricName"), source.get("selector")),
            "target": target,
            "describedObject": _reference(_d(source.get("target"))),
        }
    if isinstance(metric.get("pods"), dict):
        source = metric["pods"]
        out["pods"] = {
            "metric": _named(source.get("metricName"), source.get("selector")),
            "target": {"type": "AverageValue", "averageValue": source.get("targetAverageValue") or "0"},
        }
    for key in ("resource", "containerResource"):
        if isinstance(metric.get(key), dict):
            source = metric[key]
            utilization = source.get("targetAverageUtilization")
            target = {"type": "AverageValue" if utilization is None else "Utilization"}
            _put(target, "averageValue", source.get("targetAverageValue"))
            _put(target, "averageUtilization", utilization)
            item = {"name": source.get("name", ""), "target": target}
            if key == "containerResource":
                item["container"] = source.get("container", "")
            out[key] = item
    if isinstance(metric.get("external"), dict):
        source = metric["external"]
        value = source.get("targetValue")
        target = {"type": "AverageValue" if value is None else "Value"}
        _put(target, "value", value)
        _put(target, "averageValue", source.get("targetAverageValue"))
        out["external"] = {"metric": _named(source.get("metricName"), source.get("metricSelector")), "target": target}
    return out


def _status_v2(metric: Obj) -> Obj:
    out: Obj = {"type": metric.get("type", "")}
    if isinstance(metric.get("object"), dict):
        source = metric["object"]
        current = {"value": source.get("currentValue") or "0"}
        _put(current, "averageValue", source.get("averageValue"))
        out["object"] = {
            "metric": _named(source.get("metricName"), source.get("selector")),
            "current": current,
            "describedObject": _reference(_d(source.get("target"))),
        }
    if isinstance(metric.get("pods"), dict):
        source = metric["pods"]
        out["pods"] = {
            "metric": _named(source.get("metricName"), source.get("selector")),
            "current": {"averageValue": source.get("currentAverageValue") or "0"},
        }
    for key in ("resource", "containerResource"):
        if isinstance(metric.get(key), dict):
            source = metric[key]
            current = {"averageValue": source.get("currentAverageValue") or "0"}
            _put(current, "averageUtilization", source.get("currentAverageUtilization"))
            item = {"name": source.get("name", ""), "current": current}
            if key == "containerResource":
                item["container"] = source.get("container", "")
            out[key] = item
    if isinstance(metric.get("external"), dict):
        source = metric["external"]
        current = {"value": source.get("currentValue") or "0"}
        _put(current, "averageValue", source.get("currentAverageValue"))
        out["external"] = {"metric": _named(source.get("metricName"), source.get("metricSelector")), "current": current}
    return out


def _behavior_v2(go: Any) -> Obj | None:
    """The behavior annotation read back; Go's decoder matches field names case-insensitively."""
    if not isinstance(go, dict):
        return None

    def field(source: Obj, name: str) -> Any:
        lowered = name.lower()
        return next((value for key, value in source.items() if key.lower() == lowered), None)

    def rules(given: Any) -> Obj | None:
        if not isinstance(given, dict):
            return None
        out: Obj = {}
        _put(out, "stabilizationWindowSeconds", field(given, "StabilizationWindowSeconds"))
        _put(out, "selectPolicy", field(given, "SelectPolicy"))
        policies = field(given, "Policies")
        if isinstance(policies, list):
            out["policies"] = [
                {
                    "type": field(_d(p), "Type") or "",
                    "value": field(_d(p), "Value") or 0,
                    "periodSeconds": field(_d(p), "PeriodSeconds") or 0,
                }
                for p in policies
            ]
        _put(out, "tolerance", field(given, "Tolerance"))
        return out

    behavior: Obj = {}
    _put(behavior, "scaleUp", rules(field(go, "ScaleUp")))
    _put(behavior, "scaleDown", rules(field(go, "ScaleDown")))
    return behavior


def _decoded(text: Any) -> Any:
    if not isinstance(text, str):
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return None


class HorizontalPodAutoscalers:
    """The two directions, with the annotation keys spelled by the server's brand (`label`)."""

    def __init__(self, label: Label) -> None:
        self.metrics, self.current_metrics, self.conditions, self.behavior = (
            label(METRICS),
            label(CURRENT_METRICS),
            label(CONDITIONS),
            label(BEHAVIOR),
        )
        self.round_trip = frozenset(label(key) for key in ROUND_TRIP)

    def _metadata(self, obj: Obj) -> tuple[Obj, Obj]:
        """A copy of the metadata and of its annotations without any round-trip annotation."""
        metadata = dict(_d(obj.get("metadata")))
        annotations = {k: v for k, v in _d(metadata.get("annotations")).items() if k not in self.round_trip}
        return metadata, annotations

    @staticmethod
    def _finish(metadata: Obj, annotations: Obj) -> Obj:
        if annotations:
            metadata["annotations"] = annotations
        else:
            metadata.pop("annotations", None)
        return metadata

    def to_v1(self, obj: Obj) -> Obj:
        """A stored v2 object as autoscaling/v1 serves it."""
        spec, state = _d(obj.get("spec")), _d(obj.get("status"))
        metadata, annotations = self._metadata(obj)
        metrics = [_d(m) for m in _l(spec.get("metrics"))]
        v1_spec: Obj = {"scaleTargetRef": _reference(_d(spec.get("scaleTargetRef")))}
        _put(v1_spec, "minReplicas", spec.get("minReplicas"))
        v1_spec["maxReplicas"] = spec.get("maxReplicas", 0)
        cpu = next((m for m in metrics if _is_cpu(m)), None)
        if cpu is not None:
            target = _d(_d(cpu["resource"]).get("target"))
            _put(v1_spec, "targetCPUUtilizationPercentage", target.get("averageUtilization"))
        v1_status: Obj = {}
        for key in ("observedGeneration", "lastScaleTime"):
            _put(v1_status, key, state.get(key))
        v1_status["currentReplicas"] = state.get("currentReplicas", 0)
        v1_status["desiredReplicas"] = state.get("desiredReplicas", 0)
        current = [_d(m) for m in _l(state.get("currentMetrics"))]
        for metric in current:
            if _is_cpu(metric):
                _put(
                    v1_status,
                    "currentCPUUtilizationPercentage",
                    _d(_d(metric["resource"]).get("current")).get("averageUtilization"),
                )
        others = [_spec_v1(m) for m in metrics if not _is_cpu_utilization(m)]
        if others:
            annotations[self.metrics] = go_json(others)
        if current:
            annotations[self.current_metrics] = go_json([_status_v1(m) for m in current])
        if isinstance(spec.get("behavior"), dict):
            annotations[self.behavior] = go_json(_behavior_go(spec["behavior"]))
        conditions = _l(state.get("conditions"))
        if conditions:
            annotations[self.conditions] = go_json([_condition_v1(_d(c)) for c in conditions])
        out = {key: value for key, value in obj.items() if key not in ("spec", "status")}
        out["metadata"] = self._finish(metadata, annotations)
        out["spec"], out["status"] = v1_spec, v1_status
        return out

    def to_v2(self, obj: Obj) -> Obj:
        """An autoscaling/v1 object as the v2 object upstream stores."""
        spec, state = _d(obj.get("spec")), _d(obj.get("status"))
        given = _d(_d(obj.get("metadata")).get("annotations"))
        metadata, annotations = self._metadata(obj)
        v2_spec: Obj = {"scaleTargetRef": _reference(_d(spec.get("scaleTargetRef")))}
        _put(v2_spec, "minReplicas", spec.get("minReplicas"))
        v2_spec["maxReplicas"] = spec.get("maxReplicas", 0)
        metrics: list[Obj] = []
        if spec.get("targetCPUUtilizationPercentage") is not None:
            target = {"type": "Utilization", "averageUtilization": spec["targetCPUUtilizationPercentage"]}
            metrics.append({"type": "Resource", "resource": {"name": "cpu", "target": target}})
        others = _decoded(given.get(self.metrics))
        if isinstance(others, list):
            metrics = [_spec_v2(_d(m)) for m in others] + metrics
        if not metrics:
            target = {"type": "Utilization", "averageUtilization": DEFAULT_CPU_UTILIZATION}
            metrics.append({"type": "Resource", "resource": {"name": "cpu", "target": target}})
        v2_spec["metrics"] = metrics
        behavior = _behavior_v2(_decoded(given.get(self.behavior)))
        if behavior:
            v2_spec["behavior"] = behavior
        v2_status: Obj = {}
        for key in ("observedGeneration", "lastScaleTime"):
            _put(v2_status, key, state.get(key))
        v2_status["currentReplicas"] = state.get("currentReplicas", 0)
        v2_status["desiredReplicas"] = state.get("desiredReplicas", 0)
        if state.get("currentCPUUtilizationPercentage") is not None:
            current = {"averageUtilization": state["currentCPUUtilizationPercentage"]}
            v2_status["currentMetrics"] = [{"type": "Resource", "resource": {"name": "cpu", "current": current}}]
        statuses = _decoded(given.get(self.current_metrics))
        if isinstance(statuses, list):
            v2_status["currentMetrics"] = [_status_v2(_d(m)) for m in statuses]
        conditions = _decoded(given.get(self.conditions))
        if isinstance(conditions, list):
            v2_status["conditions"] = conditions
        out = {key: value for key, value in obj.items() if key not in ("spec", "status")}
        out["metadata"] = self._finish(metadata, annotations)
        out["spec"], out["status"] = v2_spec, v2_status
        return out
