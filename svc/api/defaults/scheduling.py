"""PriorityClasses (scheduling.k8s.io/v1): pods of the class may preempt lower-priority pods unless it
says `Never`."""

from __future__ import annotations

from svc.api.defaults.walk import Obj, fill_nil


def priority_class(obj: Obj) -> None:
    fill_nil(obj, "preemptionPolicy", "PreemptLowerPriority")
