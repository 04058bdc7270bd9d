"""ResourceClaim: a write through `/status` is checked as upstream's `ValidateResourceClaimStatusUpdate`
(consumers, reported devices, an allocation set once); the main resource's rules only compare specs.

A status write also forgets what drivers reported about devices the write deallocates (upstream's
`dropDeallocatedStatusDevices`), so clients unaware of `status.devices` need not clean it up. Upstream does
that after dropping disabled fields, so it wraps the strategy once those are in place.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from svc.api.strategy import Obj, Strategy
from svc.api.validation.dra_claims import claim_status_errors
from svc.api.validation.engine import items, lookup
from svc.api.validation.gates import Gates

_DEVICE_STATUS = "DRAResourceClaimDeviceStatus"


def strategy(base: Strategy) -> Strategy:
    return dataclasses.replace(base, subresource_validators={"status": claim_status_errors})


def _device_id(entry: Any) -> tuple[Any, ...]:
    """A device with its share (upstream's `SharedDeviceID`)."""
    return tuple(entry.get(key) for key in ("driver", "pool", "device", "shareID"))


def _allocated(claim: Any) -> set[tuple[Any, ...]]:
    results = items(lookup(claim, "status.allocation.devices.results"))
    return {_device_id(result) for result in results if isinstance(result, dict)}


def drop_deallocated_devices(new: Obj, old: Obj) -> None:
    """Remove `status.devices` entries of devices the stored allocation had and `new`'s no longer has."""
    status = new.get("status")
    reported = items(lookup(status, "devices"))
    gone = _allocated(old) - _allocated(new)
    if not reported or not gone:
        return
    kept = [entry for entry in reported if not isinstance(entry, dict) or _device_id(entry) not in gone]
    if kept:
        status["devices"] = kept
    else:
        del status["devices"]


def with_deallocated_devices_dropped(base: Strategy, gates: Gates) -> Strategy:
    """`base` whose status writes drop stale device statuses, while DRAResourceClaimDeviceStatus is on or the
    stored claim already reports devices."""
    write: Callable[[Obj, Obj], Obj] = base.subresource_updates["status"]

    def written(new: Obj, old: Obj) -> Obj:
        result = write(new, old)
        if gates.enabled(_DEVICE_STATUS) or items(lookup(old, "status.devices")):
            drop_deallocated_devices(result, old)
        return result

    return dataclasses.replace(base, extra_subresource_updates={**base.extra_subresource_updates, "status": written})
