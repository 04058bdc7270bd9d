"""Which names a CRD may serve under, as upstream's naming controller decides.

Within one API group, a plural, singular or short name may be claimed by one CRD only, and a kind or
list kind likewise; a CRD keeps the names it was accepted with, and a requested name another CRD
already holds leaves `NamesAccepted` False with the reason naming what conflicts. `Established` starts
False (`Installing`) once the names are accepted; the CRD is served once it is set True.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

Obj = dict[str, Any]

NAMES_ACCEPTED = "NamesAccepted"
ESTABLISHED = "Established"
ESTABLISHED_TRUE = {
    "type": ESTABLISHED,
    "status": "True",
    "reason": "InitialNamesAccepted",
    "message": "the initial names have been accepted",
}


def condition(crd: Obj, kind: str) -> Obj | None:
    for found in (crd.get("status") or {}).get("conditions") or []:
        if found.get("type") == kind:
            return found
    return None


def is_true(crd: Obj, kind: str) -> bool:
    found = condition(crd, kind)
    return found is not None and found.get("status") == "True"


def _claimed(crd: Obj, others: Iterable[Obj]) -> tuple[set[str], set[str]]:
    group = (crd.get("spec") or {}).get("group")
    resources: set[str] = set()
    kinds: set[str] = set()
    for other in others:
        if other is crd or (other.get("spec") or {}).get("group") != group:
            continue
        if other["metadata"]["name"] == crd["metadata"]["name"]:
            continue
        names = (other.get("status") or {}).get("acceptedNames") or {}
        resources.update(filter(None, (names.get("plural"), names.get("singular"), *(names.get("shortNames") or ()))))
        kinds.update(filter(None, (names.get("kind"), names.get("listKind"))))
    return resources, kinds


def _in_use(requested: str, accepted: str, used: set[str]) -> str | None:
    if requested == accepted or requested not in used:
        return None
    return f'"{requested}" is already in use'


def names_and_conditions(crd: Obj, others: Iterable[Obj]) -> tuple[Obj, Obj, Obj]:
    """The accepted names, the `NamesAccepted` condition and the `Established` condition."""
    resources, kinds = _claimed(crd, others)
    requested = (crd.get("spec") or {}).get("names") or {}
    accepted = (crd.get("status") or {}).get("acceptedNames") or {}
    names = dict(accepted)
    problem: tuple[str, str] | None = None
    for key, reason, used in (
        ("plural", "PluralConflict", resources),
        ("singular", "SingularConflict", resources),
    ):
        why = _in_use(requested.get(key, ""), accepted.get(key, ""), used)
        if why:
            problem = (reason, why)
        elif key in requested:
            names[key] = requested[key]
    wanted_short = list(requested.get("shortNames") or [])
    if wanted_short != list(accepted.get("shortNames") or []):
        held = set(accepted.get("shortNames") or [])
        errors = [why for short in wanted_short if short not in held and (why := _in_use(short, "", resources))]
        if errors:
            problem = ("ShortNamesConflict", errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
        elif wanted_short:
            names["shortNames"] = wanted_short
        else:
            names.pop("shortNames", None)
    for key, reason in (("kind", "KindConflict"), ("listKind", "ListKindConflict")):
        why = _in_use(requested.get(key, ""), accepted.get(key, ""), kinds)
        if why:
            problem = (reason, why)
        elif key in requested:
            names[key] = requested[key]
    if requested.get("categories"):
        names["categories"] = requested["categories"]
    else:
        names.pop("categories", None)
    if problem is None:
        accepted_condition = {
            "type": NAMES_ACCEPTED,
            "status": "True",
            "reason": "NoConflicts",
            "message": "no conflicts found",
        }
    else:
        accepted_condition = {"type": NAMES_ACCEPTED, "status": "False", "reason": problem[0], "message": problem[1]}
    established = condition(crd, ESTABLISHED) or {
        "type": ESTABLISHED,
        "status": "False",
        "reason": "NotAccepted",
        "message": "not all names are accepted",
    }
    established = {key: established[key] for key in ("type", "status", "reason", "message") if key in established}
    if established.get("status") != "True" and accepted_condition["status"] == "True":
        established = {
            "type": ESTABLISHED,
            "status": "False",
            "reason": "Installing",
            "message": "the initial names have been accepted",
        }
    return names, accepted_condition, established
