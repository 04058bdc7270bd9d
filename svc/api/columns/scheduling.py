"""Columns of the classes that say how pods run: priority classes (scheduling.k8s.io) and runtime classes
(node.k8s.io)."""

from __future__ import annotations

from svc.api.columns import descriptions
from svc.api.columns.common import age_column, flag, name_column, number, text
from svc.wire.views import Column

PRIORITY_CLASS = (
    name_column(),
    Column("Value", "integer", lambda obj: number(obj, "value"), description=descriptions.PRIORITY_CLASS_VALUE),
    Column(
        "Global-Default",
        "boolean",
        lambda obj: flag(obj, "globalDefault", default=False),
        description=descriptions.PRIORITY_CLASS_GLOBAL_DEFAULT,
    ),
    age_column(),
    Column(
        "PreemptionPolicy",
        "string",
        lambda obj: text(obj, "preemptionPolicy"),
        description=descriptions.PRIORITY_CLASS_PREEMPTION_POLICY,
    ),
)
"""Upstream fills `PreemptionPolicy` only for wide output, and the server always prints wide."""

RUNTIME_CLASS = (
    name_column(),
    Column("Handler", "string", lambda obj: text(obj, "handler"), description=descriptions.UPSTREAM_EMPTY),
    age_column(),
)
