"""Which PersistentVolume fits a claim: upstream's `FindMatchingVolume` and its helpers, without I/O.

A volume pre-bound to the claim (its `claimRef` names the claim, with the claim's uid or none) wins
whenever it is large enough and of the same volume mode. Otherwise the smallest Available volume
that is large enough, of the claim's class and mode, offers every access mode the claim asks for
and matches the claim's selector is chosen. Under `WaitForFirstConsumer` only pre-bound volumes are
taken: the scheduler picks the others once a pod is placed. Volumes offering fewer access modes are
tried first (upstream's index walks access-mode sets from the smallest), so a claim for RWO does
not take a volume that could also serve RWX claims while a plain RWO one fits.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from svc.api.brand import Profile
from svc.machinery.labels import SelectorError, label_selector_from_dict
from svc.machinery.quantity import QuantityError, parse_quantity

Obj = dict[str, Any]


def storage_of(resources: Obj | None) -> Decimal:
    """A `storage` quantity's value; absent or unparsable counts as zero, as Go's zero Quantity."""
    text = (resources or {}).get("storage")
    if text is None:
        return Decimal(0)
    try:
        return parse_quantity(str(text)).value
    except QuantityError:
        return Decimal(0)


def claim_class(claim: Obj, profile: Profile) -> str:
    """Upstream's `GetPersistentVolumeClaimClass`: the beta annotation wins over the field."""
    annotations = claim["metadata"].get("annotations") or {}
    beta = profile.label("volume.beta.kubernetes.io/storage-class")
    if beta in annotations:
        return annotations[beta]
    return (claim.get("spec") or {}).get("storageClassName") or ""


def volume_class(volume: Obj, profile: Profile) -> str:
    return claim_class(volume, profile)


def volume_mode(spec: Obj | None) -> str:
    return (spec or {}).get("volumeMode") or "Filesystem"


def bound_to_claim(volume: Obj, claim: Obj) -> bool:
    """Upstream's `IsVolumeBoundToClaim`: name and namespace match, and the uid when one is set."""
    ref = (volume.get("spec") or {}).get("claimRef")
    if not ref:
        return False
    metadata = claim["metadata"]
    if ref.get("name") != metadata.get("name") or ref.get("namespace") != metadata.get("namespace"):
        return False
    return not ref.get("uid") or ref.get("uid") == metadata.get("uid")


def has_access_modes(claim: Obj, volume: Obj) -> bool:
    offered = set((volume.get("spec") or {}).get("accessModes") or ())
    return set((claim.get("spec") or {}).get("accessModes") or ()) <= offered


def unsatisfied(volume: Obj, claim: Obj, profile: Profile) -> str:
    """Why a volume the claim names cannot serve it (upstream's `checkVolumeSatisfyClaim`), or ""."""
    spec = volume.get("spec") or {}
    if volume["metadata"].get("deletionTimestamp"):
        return f'the volume is marked for deletion "{volume["metadata"]["name"]}"'
    requested = storage_of(((claim.get("spec") or {}).get("resources") or {}).get("requests"))
    if storage_of(spec.get("capacity")) < requested:
        return "requested PV is too small"
    if volume_class(volume, profile) != claim_class(claim, profile):
        return "storageClassName does not match"
    if volume_mode(claim.get("spec")) != volume_mode(spec):
        return "incompatible volumeMode"
    if not has_access_modes(claim, volume):
        return "incompatible accessMode"
    return ""


def best_match(claim: Obj, volumes: list[Obj], profile: Profile, *, delay_binding: bool) -> Obj | None:
    """The volume to bind the claim to, or None; raises ValueError for a selector that does not parse.
    Volumes are looked at one access-mode set at a time, smallest set first, as upstream's index."""
    spec = claim.get("spec") or {}
    try:
        selector = label_selector_from_dict(spec["selector"]) if spec.get("selector") else None
    except SelectorError as error:
        key = f"{claim['metadata'].get('namespace')}/{claim['metadata'].get('name')}"
        raise ValueError(f"error creating internal label selector for claim: {key}: {error}") from None
    groups: dict[frozenset[str], list[Obj]] = {}
    for volume in volumes:
        if has_access_modes(claim, volume):
            groups.setdefault(frozenset((volume.get("spec") or {}).get("accessModes") or ()), []).append(volume)
    for modes in sorted(groups, key=lambda modes: (len(modes), sorted(modes))):
        found = _match_in(claim, groups[modes], profile, selector, delay_binding=delay_binding)
        if found is not None:
            return found
    return None


def _match_in(claim: Obj, volumes: list[Obj], profile: Profile, selector: Any, *, delay_binding: bool) -> Obj | None:
    spec = claim.get("spec") or {}
    requested = storage_of((spec.get("resources") or {}).get("requests"))
    wanted_class = claim_class(claim, profile)
    smallest: tuple[Decimal, Obj] | None = None
    for volume in volumes:
        volume_spec = volume.get("spec") or {}
        if volume_spec.get("claimRef") and not bound_to_claim(volume, claim):
            continue
        size = storage_of(volume_spec.get("capacity"))
        if size < requested or volume_mode(volume_spec) != volume_mode(spec):
            continue
        if volume["metadata"].get("deletionTimestamp"):
            continue
        if bound_to_claim(volume, claim):
            return volume
        if delay_binding:
            continue
        if (volume.get("status") or {}).get("phase") != "Available":
            continue
        if selector is not None and not selector.matches(volume["metadata"].get("labels") or {}):
            continue
        if volume_class(volume, profile) != wanted_class:
            continue
        if smallest is None or size < smallest[0]:
            smallest = (size, volume)
    return smallest[1] if smallest else None
