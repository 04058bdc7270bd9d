"""The fixed order of work before an object is created (upstream `rest.BeforeCreate`)."""

from __future__ import annotations

import functools
import secrets
from datetime import UTC, datetime
from typing import Any

from svc.api.strategy import Strategy
from svc.machinery import status, wallclock
from svc.machinery.field_errors import aggregate_message
from svc.machinery.validation import GENERIC_FINALIZERS, validate_object_meta
from svc.registry.admission import UserInfo, requesting_user
from svc.registry.uid import new_uid

_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_NAME_SUFFIX = 5
_MAX_NAME = 63


def now_rfc3339() -> str:
    """The current time at upstream's one-second precision."""
    return _rfc3339(int(wallclock.now()))


@functools.lru_cache(maxsize=2)
def _rfc3339(second: int) -> str:
    """Formatted once a second: every write stamps the time, and strftime was a visible share of a create."""
    return datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def generate_name(base: str) -> str:
    """Upstream's SimpleNameGenerator: the base, cut so the result fits, plus five random characters."""
    if len(base) > _MAX_NAME - _NAME_SUFFIX:
        base = base[: _MAX_NAME - _NAME_SUFFIX]
    return base + "".join(secrets.choice(_NAME_ALPHABET) for _ in range(_NAME_SUFFIX))


def check_namespace(strategy: Strategy, obj: dict[str, Any], namespace: str) -> None:
    """The object's namespace must agree with the request's (set it when absent)."""
    match_namespace(obj["metadata"], strategy.resource.namespaced, namespace)


def match_namespace(metadata: dict[str, Any], namespaced: bool, namespace: str) -> None:
    """Upstream's `EnsureObjectNamespaceMatchesRequestNamespace`, which its create handler runs on every
    created object (stored or not): set when absent, cleared for a cluster-scoped kind, else it must agree."""
    if namespaced:
        given = metadata.get("namespace") or ""
        if given and given != namespace:
            raise status.bad_request(
                "the namespace of the provided object does not match the namespace sent on the request"
            )
        metadata["namespace"] = namespace
    else:
        metadata.pop("namespace", None)


def standard_finalizers(strategy: Strategy) -> frozenset[str]:
    """Finalizer names that need no domain: upstream's generic ones and the brand's namespace finalizer."""
    return _with_namespace_finalizer(strategy.profile.namespace_finalizer)


@functools.lru_cache(maxsize=4)
def _with_namespace_finalizer(name: str) -> frozenset[str]:
    """One set per brand, not one per write."""
    return GENERIC_FINALIZERS | {name}


def invalid(strategy: Strategy, name: str, errors: list) -> status.StatusError:
    return status.invalid(strategy.resource.group_kind, name, errors, aggregate_message(errors))


def before_create(strategy: Strategy, obj: dict[str, Any], namespace: str, user: UserInfo | None = None) -> None:
    metadata = obj.setdefault("metadata", {})
    if not isinstance(metadata, dict):
        raise status.bad_request("metadata must be an object")
    check_namespace(strategy, obj, namespace)
    # System fields first, as upstream's store does ("init metadata as early as possible"): a kind's
    # preparation may use them (a Job's generated selector holds its uid).
    metadata["creationTimestamp"] = now_rfc3339()
    metadata["uid"] = new_uid()
    if metadata.get("generateName") and not metadata.get("name"):
        metadata["name"] = generate_name(metadata["generateName"])
    metadata.pop("deletionTimestamp", None)
    metadata.pop("deletionGracePeriodSeconds", None)
    token = requesting_user.set(user)
    try:
        strategy.create(obj)
    finally:
        requesting_user.reset(token)
    errors = validate_object_meta(
        metadata,
        namespaced=strategy.resource.namespaced,
        name_validator=strategy.name_validator,
        standard_finalizers=standard_finalizers(strategy),
    )
    errors += strategy.validate(obj)
    if errors:
        raise invalid(strategy, metadata.get("name", ""), errors)
    strategy.canonicalize(obj)
