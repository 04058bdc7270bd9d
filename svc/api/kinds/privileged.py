"""Privileged containers only where the cluster allows them (`--allow-privileged`), as upstream's pod
validation refuses `securityContext.privileged: true` when its capabilities say no.

Every kind that carries a pod spec is checked, on create and update, since upstream validates the pod
spec of pods and of templates alike; the error follows the kind's own errors.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final

from svc.api.strategy import Obj, Strategy
from svc.api.validation.engine import items, lookup
from svc.machinery.field_errors import FieldError, forbidden

# Where each kind keeps its pod spec.
POD_SPEC_PATHS: Final[dict[tuple[str, str], str]] = {
    ("", "Pod"): "spec",
    ("", "PodTemplate"): "template.spec",
    ("", "ReplicationController"): "spec.template.spec",
    ("apps", "Deployment"): "spec.template.spec",
    ("apps", "ReplicaSet"): "spec.template.spec",
    ("apps", "StatefulSet"): "spec.template.spec",
    ("apps", "DaemonSet"): "spec.template.spec",
    ("batch", "Job"): "spec.template.spec",
    ("batch", "CronJob"): "spec.jobTemplate.spec.template.spec",
}
_CONTAINER_LISTS: Final = ("initContainers", "containers", "ephemeralContainers")
DISALLOWED: Final = "disallowed by cluster policy"


def privileged_errors(obj: Any, spec_path: str) -> list[FieldError]:
    """A Forbidden error for every container asking to run privileged."""
    spec = lookup(obj, spec_path)
    errors = []
    for kind in _CONTAINER_LISTS:
        for index, container in enumerate(items(lookup(spec, kind))):
            if lookup(container, "securityContext.privileged") is True:
                errors.append(forbidden(f"{spec_path}.{kind}[{index}].securityContext.privileged", DISALLOWED))
    return errors


def refuse_privileged(base: Strategy, spec_path: str) -> Strategy:
    """`base` with privileged containers refused on create and update."""
    validate, validate_update = base.validate, base.validate_update

    def checked(obj: Obj) -> list[FieldError]:
        return validate(obj) + privileged_errors(obj, spec_path)

    def checked_update(new: Obj, old: Obj) -> list[FieldError]:
        return validate_update(new, old) + privileged_errors(new, spec_path)

    return dataclasses.replace(base, validate=checked, validate_update=checked_update)
