"""What an ephemeral container may not set, as upstream's `validateEphemeralContainers` checks it.

An ephemeral container runs beside the pod for debugging and must never become part of its service:
upstream allows only a list of container fields (`allowedEphemeralContainerFields`), so ports, probes,
lifecycle hooks, resources, resize and restart policies are refused, and so are volume subpaths (bind
mounts that would outlive the container until the pod exits).
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.engine import items, text
from svc.machinery.field_errors import FieldError, forbidden

NOT_ALLOWED: Final = (
    "ports",
    "resources",
    "resizePolicy",
    "restartPolicy",
    "restartPolicyRules",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "lifecycle",
)
"""The container fields outside upstream's allow list, in the order of the Go struct."""
_DETAIL: Final = "cannot be set for an Ephemeral Container"


def ephemeral_only_errors(container: Any, path: str) -> list[FieldError]:
    """The fields an ephemeral container sets though upstream does not allow them, then its subpaths."""
    errors = [forbidden(f"{path}.{field}", _DETAIL) for field in NOT_ALLOWED if container.get(field)]
    for index, mount in enumerate(items(container.get("volumeMounts"))):
        for field in ("subPath", "subPathExpr"):
            if text(mount, field):
                errors.append(forbidden(f"{path}.volumeMounts[{index}].{field}", _DETAIL))
    return errors
