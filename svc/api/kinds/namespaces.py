"""Namespaces: DNS-label names, the brand's finalizer, phase, and the name label upstream adds."""

from __future__ import annotations

import dataclasses
from typing import Any

from svc.api.strategy import Strategy
from svc.machinery.validation import name_is_dns_label


def strategy(base: Strategy) -> Strategy:
    finalizer = base.profile.namespace_finalizer
    name_label = base.profile.namespace_name_label

    def prepare_for_create(obj: dict[str, Any]) -> None:
        spec = obj.setdefault("spec", {})
        finalizers = spec.get("finalizers") or []
        if finalizer not in finalizers:
            finalizers = [*finalizers, finalizer]
        spec["finalizers"] = finalizers
        obj["status"] = {"phase": "Active"}

    def prepare_for_update(new: dict[str, Any], old: dict[str, Any]) -> None:
        new["spec"] = old.get("spec", {})

    def canonicalize(obj: dict[str, Any]) -> None:
        obj["metadata"].setdefault("labels", {})[name_label] = obj["metadata"]["name"]

    def keeps_terminating(obj: dict[str, Any]) -> bool:
        """A namespace with spec finalizers waits, Terminating, until its content is gone."""
        if not (obj.get("spec") or {}).get("finalizers"):
            return False
        obj["status"] = {**(obj.get("status") or {}), "phase": "Terminating"}
        return True

    def finalize(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
        """The `finalize` subresource changes spec.finalizers only."""
        result = dict(old)
        result["metadata"] = {
            **old["metadata"],
            "resourceVersion": new["metadata"].get("resourceVersion", ""),
        }
        result["spec"] = {
            **(old.get("spec") or {}),
            "finalizers": (new.get("spec") or {}).get("finalizers") or [],
        }
        return result

    return dataclasses.replace(
        base,
        name_validator=name_is_dns_label,
        prepare_for_create=prepare_for_create,
        prepare_for_update=prepare_for_update,
        canonicalize=canonicalize,
        keeps_terminating=keeps_terminating,
        extra_subresource_updates={"finalize": finalize},
    )
