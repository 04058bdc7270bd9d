"""What the feature gates change about pods: pod specs validated with the options upstream derives from
the gates and the stored object (`svc.api.validation.gates`), for every kind that carries a pod spec, on
create and update; and the pod status fields of a disabled feature dropped from a status write unless the
stored status already has them (upstream's `dropDisabledPodStatusFields`)."""

from __future__ import annotations

import dataclasses

from svc.api.strategy import Obj, Strategy
from svc.api.validation.engine import lookup
from svc.api.validation.gates import Gates, pod_options_for, using
from svc.machinery.field_errors import FieldError


def with_pod_options(base: Strategy, spec_path: str, gates: Gates) -> Strategy:
    """`base` whose validation runs with the write's pod validation options."""
    validate, validate_update = base.validate, base.validate_update

    def checked(obj: Obj) -> list[FieldError]:
        with using(pod_options_for(gates, None)):
            return validate(obj)

    def checked_update(new: Obj, old: Obj) -> list[FieldError]:
        with using(pod_options_for(gates, lookup(old, spec_path))):
            return validate_update(new, old)

    return dataclasses.replace(base, validate=checked, validate_update=checked_update)


def drop_disabled_status_fields(base: Strategy, gates: Gates) -> Strategy:
    """`base` (a pod's strategy) whose status writes lose `extendedResourceClaimStatus` while
    `DRAExtendedResource` is off, unless the stored status already carries it."""
    if gates.enabled("DRAExtendedResource"):
        return base
    write_status = base.extra_subresource_updates["status"]

    def status(new: Obj, old: Obj) -> Obj:
        result = write_status(new, old)
        stored = (old.get("status") or {}).get("extendedResourceClaimStatus")
        written = result.get("status")
        if stored is None and isinstance(written, dict) and "extendedResourceClaimStatus" in written:
            result["status"] = {key: value for key, value in written.items() if key != "extendedResourceClaimStatus"}
        return result

    updates = {**base.extra_subresource_updates, "status": status}
    return dataclasses.replace(base, extra_subresource_updates=updates)
