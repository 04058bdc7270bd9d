"""The error an apply gets when it would change fields another manager owns.

Clients read these texts (kubectl prints the message and suggests `--force-conflicts`; controllers parse
the causes), so message and causes follow upstream's wording exactly.
"""

from __future__ import annotations

from typing import NamedTuple

from svc.machinery.apply.entries import ManagerKey
from svc.machinery.status import StatusError

CAUSE_REASON = "FieldManagerConflict"


class Conflict(NamedTuple):
    manager: str  # the owner's name
    owner: ManagerKey  # the owner's operation, API version and subresource
    path: str  # the field, e.g. `.spec.replicas`


class ApplyConflict(Exception):
    """Raised instead of applying; `conflicts` are ordered by owner, then by field as upstream lists them."""

    def __init__(self, conflicts: list[Conflict]) -> None:
        self.conflicts = conflicts
        super().__init__(self.message())

    def message(self) -> str:
        if len(self.conflicts) == 1:
            (only,) = self.conflicts
            return f"Apply failed with 1 conflict: conflict with {only.owner.describe()}: {only.path}"
        by_owner: dict[str, list[Conflict]] = {}
        for conflict in self.conflicts:
            by_owner.setdefault(conflict.owner.identifier(), []).append(conflict)
        lines = []
        for identifier in sorted(by_owner):
            group = by_owner[identifier]
            lines.append(f"conflicts with {group[0].owner.describe()}:")
            lines.extend(f"- {conflict.path}" for conflict in group)
        return f"Apply failed with {len(self.conflicts)} conflicts: " + "\n".join(lines)

    def causes(self) -> list[dict[str, str]]:
        return [
            {"reason": CAUSE_REASON, "message": f"conflict with {conflict.owner.describe()}", "field": conflict.path}
            for conflict in self.conflicts
        ]

    def status_error(self) -> StatusError:
        """The 409 Conflict answer upstream gives."""
        return StatusError(409, "Conflict", self.message(), {"causes": self.causes()})
