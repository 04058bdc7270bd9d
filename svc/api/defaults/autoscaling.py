"""HorizontalPodAutoscalers, autoscaling/v1 and autoscaling/v2.

Both versions default the minimum to one replica. Version 2 also targets 80% average CPU when no
metric is given and, once a `behavior` is present, completes both scaling directions from the
controller's historic rules: up by the larger of 4 pods or 100% per 15 s without stabilization, down
by 100% per 15 s (the down stabilization window stays unset: the controller takes it from its flag).
"""

from __future__ import annotations

import copy
from typing import Any, Final

from svc.api.defaults.walk import Obj, child, fill_nil

DEFAULT_CPU_UTILIZATION: Final = 80
_SCALE_UP: Final = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ],
}
_SCALE_DOWN: Final = {
    "selectPolicy": "Max",
    "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
}


def _rules(given: Any, defaults: dict[str, Any]) -> Any:
    """The client's rules with every field it left unset taken from the defaults."""
    if given is None:
        return copy.deepcopy(defaults)
    if isinstance(given, dict):
        for key, value in defaults.items():
            fill_nil(given, key, value)
    return given


def horizontal_pod_autoscaler(obj: Obj) -> None:
    """An `autoscaling/v1` object gets version 1's defaults; any other (v2 is the preferred version) 2's."""
    spec = child(obj, "spec")
    if spec is None:
        return
    fill_nil(spec, "minReplicas", 1)
    version = obj.get("apiVersion")
    if isinstance(version, str) and version.rpartition("/")[2] == "v1":
        return
    if not spec.get("metrics"):
        target = {"type": "Utilization", "averageUtilization": DEFAULT_CPU_UTILIZATION}
        spec["metrics"] = [{"type": "Resource", "resource": {"name": "cpu", "target": target}}]
    behavior = child(spec, "behavior")
    if behavior is not None:
        behavior["scaleUp"] = _rules(behavior.get("scaleUp"), _SCALE_UP)
        behavior["scaleDown"] = _rules(behavior.get("scaleDown"), _SCALE_DOWN)
