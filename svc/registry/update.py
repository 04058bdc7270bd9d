"""The fixed order of work before an object is updated (upstream `rest.BeforeUpdate`), for the main
resource and for writes through a subresource (whose strategy validates its own part)."""

from __future__ import annotations

from typing import Any

from svc.api.strategy import Strategy
from svc.machinery.validation import validate_object_meta, validate_object_meta_update
from svc.registry.create import check_namespace, invalid, standard_finalizers


def before_update(strategy: Strategy, new: dict[str, Any], old: dict[str, Any], namespace: str) -> None:
    metadata = new.setdefault("metadata", {})
    old_metadata = old["metadata"]
    check_namespace(strategy, new, namespace)
    strategy.update(new, old)
    if not metadata.get("uid"):
        metadata["uid"] = old_metadata.get("uid")
    if "creationTimestamp" in old_metadata:
        metadata["creationTimestamp"] = old_metadata["creationTimestamp"]
    if "deletionTimestamp" in old_metadata:
        metadata["deletionTimestamp"] = old_metadata["deletionTimestamp"]
    else:
        metadata.pop("deletionTimestamp", None)
    if "deletionGracePeriodSeconds" in old_metadata and "deletionGracePeriodSeconds" not in metadata:
        metadata["deletionGracePeriodSeconds"] = old_metadata["deletionGracePeriodSeconds"]
    errors = _metadata_errors(strategy, metadata, old_metadata)
    errors += strategy.validate_update(new, old)
    if errors:
        raise invalid(strategy, metadata.get("name", ""), errors)
    strategy.canonicalize(new)


def _metadata_errors(strategy: Strategy, metadata: dict[str, Any], old_metadata: dict[str, Any]) -> list:
    finalizers = standard_finalizers(strategy)
    errors = validate_object_meta_update(metadata, old_metadata, standard_finalizers=finalizers)
    return errors + validate_object_meta(
        metadata,
        namespaced=strategy.resource.namespaced,
        name_validator=strategy.name_validator,
        standard_finalizers=finalizers,
    )


# What a subresource write carries in its metadata whatever the subresource (see `status_metadata`).
_CARRIED = frozenset({"resourceVersion", "managedFields"})


def _metadata_changed(metadata: dict[str, Any], old: dict[str, Any]) -> bool:
    """Whether the write changes the stored metadata beyond what every subresource write carries: the
    stored metadata passed these rules when written (or predates a rule), so it is not judged again."""
    old_metadata = old["metadata"]
    return any(metadata.get(key) != old_metadata.get(key) for key in (metadata.keys() | old_metadata.keys()) - _CARRIED)


def before_subresource_update(strategy: Strategy, subresource: str, new: dict[str, Any], old: dict[str, Any]) -> None:
    """A write through a subresource (upstream runs `BeforeUpdate` with the subresource's strategy): the
    generic metadata rules, then the subresource's own validation if it has one; nothing is stored on errors."""
    metadata = new.setdefault("metadata", {})
    check_namespace(strategy, new, old["metadata"].get("namespace", ""))
    errors = _metadata_errors(strategy, metadata, old["metadata"]) if _metadata_changed(metadata, old) else []
    validator = strategy.subresource_validators.get(subresource)
    if validator is not None:
        errors += validator(new, old)
    if errors:
        raise invalid(strategy, metadata.get("name", ""), errors)
