"""CertificateSigningRequests: what `/approval` and `/status` may change, as upstream's strategies split it.

`/approval` changes only `status.conditions` (that is where Approved and Denied go); `/status` changes the
status but keeps the Approved and Denied conditions as they were (so the signer cannot approve) and may
set the certificate once. Approved, Denied and Failed conditions cannot be removed; Approved and Denied
exclude each other. Timestamps left empty are filled as upstream's `populateConditionTimestamps` does.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from svc.api.status_metadata import kept_for, status_metadata
from svc.api.strategy import Strategy
from svc.machinery.field_errors import FieldError, duplicate, forbidden, invalid, not_supported
from svc.machinery.field_errors import required as required_error
from svc.registry.admission import requesting_user
from svc.registry.create import now_rfc3339

Obj = dict[str, Any]
_APPROVAL = ("Approved", "Denied")
_PERMANENT = ("Approved", "Denied", "Failed")
_STATUS_VALUES = ("False", "True", "Unknown")


def _conditions(obj: Obj) -> list[Obj]:
    return list((obj.get("status") or {}).get("conditions") or [])


def _of_type(conditions: list[Obj], kind: str) -> list[Obj]:
    return [condition for condition in conditions if condition.get("type") == kind]


def _validate_conditions(conditions: list[Obj]) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    approved = denied = False
    for index, condition in enumerate(conditions):
        path = f"status.conditions[{index}]"
        kind, state = condition.get("type") or "", condition.get("status") or ""
        if not kind:
            errors.append(required_error(f"{path}.type"))
        allowed = ("True",) if kind in _PERMANENT else _STATUS_VALUES
        if not state:
            errors.append(required_error(f"{path}.status"))
        elif state not in allowed:
            errors.append(not_supported(f"{path}.status", state, allowed))
        if kind == "Approved":
            approved = True
            if denied:
                errors.append(invalid(f"{path}.type", kind, "Approved and Denied conditions are mutually exclusive"))
        elif kind == "Denied":
            denied = True
            if approved:
                errors.append(invalid(f"{path}.type", kind, "Approved and Denied conditions are mutually exclusive"))
        if kind in seen:
            errors.append(duplicate(f"{path}.type", kind))
        seen.add(kind)
    return errors


def _validate_update(new: Obj, old: Obj, *, approval: bool, certificate: bool) -> list[FieldError]:
    new_conditions, old_conditions = _conditions(new), _conditions(old)
    errors = _validate_conditions(new_conditions)
    for kind in _PERMANENT:
        if len(_of_type(new_conditions, kind)) < len(_of_type(old_conditions, kind)):
            errors.append(forbidden("status.conditions", f'updates may not remove a condition of type "{kind}"'))
    if not approval:
        for kind in _APPROVAL:
            added, before = _of_type(new_conditions, kind), _of_type(old_conditions, kind)
            if len(added) > len(before):
                errors.append(forbidden("status.conditions", f'updates may not add a condition of type "{kind}"'))
            elif len(added) == len(before) and added != before:
                errors.append(forbidden("status.conditions", f'updates may not modify a condition of type "{kind}"'))
    new_certificate = (new.get("status") or {}).get("certificate") or ""
    old_certificate = (old.get("status") or {}).get("certificate") or ""
    if new_certificate != old_certificate:
        if not certificate:
            errors.append(forbidden("status.certificate", "updates may not set certificate content"))
        elif old_certificate:
            errors.append(forbidden("status.certificate", "updates may not modify existing certificate content"))
    return errors


def _with_timestamps(conditions: list[Obj], old_conditions: list[Obj], now: str) -> list[Obj]:
    stamped = []
    for condition in conditions:
        condition = dict(condition)
        if not condition.get("lastUpdateTime"):
            condition["lastUpdateTime"] = now
        if not condition.get("lastTransitionTime"):
            same = [
                previous
                for previous in old_conditions
                if previous.get("type") == condition.get("type") and previous.get("status") == condition.get("status")
            ]
            condition["lastTransitionTime"] = (same[0].get("lastTransitionTime") if same else None) or now
        stamped.append(condition)
    return stamped


def _record_requester(obj: Obj) -> None:
    """The requester fields come from the authenticated user, never from the client (as upstream's strategy)."""
    spec = obj.setdefault("spec", {})
    for key in ("username", "uid", "groups", "extra"):
        spec.pop(key, None)
    user = requesting_user.get()
    if user is None:
        return
    if user.name:
        spec["username"] = user.name
    if user.uid:
        spec["uid"] = user.uid
    if user.groups:
        spec["groups"] = list(user.groups)
    if user.extra:
        spec["extra"] = {key: list(values) for key, values in user.extra.items()}


def _keep_spec_and_status(new: Obj, old: Obj) -> None:
    """An update of the main resource changes neither the request nor its status (upstream's strategy)."""
    new["spec"] = old.get("spec", {})
    if "status" in old:
        new["status"] = old["status"]
    else:
        new.pop("status", None)


_KEPT = kept_for("certificates.k8s.io", "CertificateSigningRequest")


def _base(new: Obj, old: Obj) -> Obj:
    """The stored object with the request's metadata (upstream's approval and status strategies copy back
    only the spec), ready to take a status part."""
    result = dict(old)
    result["metadata"] = status_metadata(new["metadata"], old["metadata"], _KEPT)
    result["status"] = dict(old.get("status") or {})
    return result


def _approval(new: Obj, old: Obj) -> Obj:
    result = _base(new, old)
    result["status"]["conditions"] = _with_timestamps(_conditions(new), _conditions(old), now_rfc3339())
    return result


def _status(new: Obj, old: Obj) -> Obj:
    result = _base(new, old)
    result["status"] = dict(new.get("status") or {})
    kept = {kind: _of_type(_conditions(old), kind) for kind in _APPROVAL}
    conditions = [c for c in _conditions(new) if c.get("type") not in _APPROVAL or not kept[c.get("type")]]
    conditions = [*kept["Approved"], *kept["Denied"], *conditions]
    result["status"]["conditions"] = _with_timestamps(conditions, _conditions(old), now_rfc3339())
    if not result["status"]["conditions"]:
        del result["status"]["conditions"]
    return result


def strategy(base: Strategy) -> Strategy:
    return dataclasses.replace(
        base,
        prepare_for_create=_record_requester,
        prepare_for_update=_keep_spec_and_status,
        extra_subresource_updates={"approval": _approval, "status": _status},
        subresource_validators={
            "approval": lambda new, old: _validate_update(new, old, approval=True, certificate=False),
            "status": lambda new, old: _validate_update(new, old, approval=False, certificate=True),
        },
    )
