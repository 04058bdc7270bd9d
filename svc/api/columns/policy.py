"""PodDisruptionBudget columns: the budget as written (an integer or a percentage) and what it allows now."""

from __future__ import annotations

from svc.api.columns.common import age_column, field, int_or_string, name_column, number
from svc.wire.views import Column

_NOT_SET = "N/A"

POD_DISRUPTION_BUDGET = (
    name_column(),
    Column(
        "Min Available",
        "string",
        lambda obj: int_or_string(field(obj, "spec", "minAvailable"), _NOT_SET),
        description="The minimum number of pods that must be available.",
    ),
    Column(
        "Max Unavailable",
        "string",
        lambda obj: int_or_string(field(obj, "spec", "maxUnavailable"), _NOT_SET),
        description="The maximum number of pods that may be unavailable.",
    ),
    Column(
        "Allowed Disruptions",
        "integer",
        lambda obj: number(obj, "status", "disruptionsAllowed"),
        description="Calculated number of pods that may be disrupted at this time.",
    ),
    age_column(),
)
