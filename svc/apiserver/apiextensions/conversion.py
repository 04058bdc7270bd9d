"""Converting custom resources between the versions their CRD lists.

One `Converter` per CRD, built from its `spec.conversion`, does what upstream's delegating converter
does around the strategy:
- the target and every object must be a version of the CRD;
- objects already at the target are not converted (nor sent to a webhook);
- the strategy converts the rest: `None` changes only `apiVersion`; `Webhook` asks the webhook, with
  one ConversionReview for the whole batch (upstream decodes list items one at a time and so calls the
  webhook once per item; the review format carries many objects, and webhooks must accept that);
- each converted object must have the target version, the same kind, name, namespace and uid; of its
  metadata only labels and annotations are taken (validated when they changed), the rest is the
  original's (upstream's `restoreObjectMeta`).

A failure is a 500 `Status` without a reason, carrying upstream's text (`conversion for <gvk> failed:
...`): upstream returns a plain error there, which its handlers answer with reason Unknown. Results are
new dicts; they share nested metadata values (managedFields, ownerReferences) with the inputs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from svc.api.brand import Profile
from svc.api.conversion import Conversion
from svc.apiserver.apiextensions.conversion_webhook import (
    TIMEOUT_SECONDS,
    ConversionFailed,
    WebhookConverter,
    gvk_text,
)
from svc.apiserver.webhook_client import ClientConfig, WebhookClient
from svc.machinery.field_errors import aggregate_message
from svc.machinery.status import StatusError
from svc.machinery.validation import validate_annotations, validate_labels
from svc.registry.store import GenericStore

Obj = dict[str, Any]
Strategy = Callable[[list[Obj], str], Awaitable[list[Obj]]]
"""(objects not at the target yet, target apiVersion) -> the converted objects, in order."""


async def _none_strategy(objects: list[Obj], desired_api_version: str) -> list[Obj]:
    return [{**obj, "apiVersion": desired_api_version} for obj in objects]


def conversion_error(message: str) -> StatusError:
    return StatusError(500, "", message)


class Converter:
    def __init__(self, group: str, versions: list[str], strategy: Strategy, *, calls_out: bool = True) -> None:
        """`calls_out=False` for a strategy of our own making, whose output needs no checking."""
        self.valid = frozenset(f"{group}/{version}" for version in versions)
        self.strategy = strategy
        self.calls_out = calls_out

    async def convert(self, objects: list[Obj], to_api_version: str) -> list[Obj]:
        """`objects` at `to_api_version`, in the same order; raises a 500 `StatusError` on failure."""
        if to_api_version not in self.valid:
            raise conversion_error(f"request to convert CR to an invalid group/version: {to_api_version}")
        pending: list[int] = []
        for index, obj in enumerate(objects):
            api_version = obj.get("apiVersion")
            if api_version not in self.valid:
                if len(objects) == 1:
                    raise conversion_error(f"request to convert CR from an invalid group/version: {_gv(obj)}")
                raise conversion_error(
                    f"request to convert CR list failed, list index {index} has invalid group/version: {_gv(obj)}"
                )
            if api_version != to_api_version:
                pending.append(index)
        if not pending:
            return list(objects)
        originals = [objects[index] for index in pending]
        what = gvk_text(originals[0].get("apiVersion") or "", originals[0].get("kind") or "")
        try:
            converted = await self.strategy(originals, to_api_version)
        except ConversionFailed as error:
            raise conversion_error(f"conversion for {what} failed: {error}") from None
        if len(converted) != len(originals):
            raise conversion_error(
                f"conversion for {what} returned {len(converted)} objects, expected {len(originals)}"
            )
        result = list(objects)
        if not self.calls_out:
            for index, new in zip(pending, converted, strict=True):
                result[index] = new
            return result
        for number, (index, original, new) in enumerate(zip(pending, originals, converted, strict=True), start=1):
            problem = _mismatch(original, new, to_api_version)
            if problem:
                raise conversion_error(
                    f"conversion for {what} returned invalid converted object at index {number}: {problem}"
                )
            try:
                result[index] = _restore_object_meta(original, new)
            except ValueError as error:
                raise conversion_error(
                    f"conversion for {what} returned invalid metadata in object at index {number}: {error}"
                ) from None
        return result


def build_converter(
    crd: Mapping[str, Any], *, webhooks: WebhookClient, profile: Profile, timeout_seconds: float = TIMEOUT_SECONDS
) -> Converter:
    """The converter of a CRD (apiextensions/v1 shape), by its `spec.conversion.strategy`."""
    spec = crd.get("spec") or {}
    versions = [version["name"] for version in spec.get("versions") or ()]
    conversion = spec.get("conversion") or {}
    group = spec.get("group") or ""
    if conversion.get("strategy") != "Webhook":
        return Converter(group, versions, _none_strategy, calls_out=False)
    webhook = conversion.get("webhook") or {}
    strategy = WebhookConverter(
        client=webhooks,
        client_config=ClientConfig.from_api(webhook.get("clientConfig") or {}),
        review_versions=webhook.get("conversionReviewVersions") or (),
        review_group=profile.group("apiextensions.k8s.io"),
        timeout_seconds=timeout_seconds,
    ).convert
    return Converter(group, versions, strategy)


def write_storage_version(store: GenericStore, storage_api_version: str) -> None:
    """Make the store of one served version of a `None`-strategy CRD write objects in the storage
    version, as upstream does, and stamp the served one on reads (the versions differ in nothing else).
    Webhook-converted CRDs get a `ConvertingStore` instead (converting.py)."""
    store.conversion = Conversion(storage_api_version=storage_api_version, to_storage=None, from_stored={})


def _gv(obj: Mapping[str, Any]) -> str:
    """Go's `GroupVersion.String()` of an object's apiVersion (empty when it does not parse)."""
    api_version = obj.get("apiVersion")
    if not isinstance(api_version, str) or api_version.count("/") > 1:
        return ""
    return api_version


def _mismatch(original: Obj, converted: Obj, to_api_version: str) -> str:
    received = _gv(converted)
    if received != to_api_version:
        return f"invalid groupVersion (expected {to_api_version}, received {received})"
    if original.get("kind") != converted.get("kind"):
        return f"invalid kind (expected {original.get('kind') or ''}, received {converted.get('kind') or ''})"
    before, after = _meta(original), _meta(converted)
    for field, label in (("name", "name"), ("namespace", "namespace"), ("uid", "UID")):
        if (before.get(field) or "") != (after.get(field) or ""):
            return f"must have the same {label}: {before.get(field) or ''} != {after.get(field) or ''}"
    return ""


def _meta(obj: Obj) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _restore_object_meta(original: Obj, converted: Obj) -> Obj:
    """`converted` with the original's metadata, except labels and annotations as converted."""
    if "metadata" not in converted:
        if "metadata" in original:
            raise ValueError("missing metadata in converted object")
        return converted
    converted_meta = converted["metadata"]
    if not isinstance(converted_meta, dict):
        raise ValueError(f"invalid metadata of type {_go_type(converted_meta)} in converted object")
    original_meta = original.get("metadata") or {}
    result_meta = dict(original_meta)
    for field, validate, path in (
        ("labels", validate_labels, "metadata.labels"),
        ("annotations", validate_annotations, "metadata.annotation"),
    ):
        value = converted_meta.get(field)
        if value is None:
            result_meta.pop(field, None)
            continue
        if not isinstance(value, dict):
            raise ValueError(f"invalid metadata.{field} of type {_go_type(value)} in converted object")
        for key, item in value.items():
            if not isinstance(item, str):
                raise ValueError(
                    f"metadata.{field}[{key}] must be a string, but is {_go_type(item)} in converted object"
                )
        if value != (original_meta.get(field) or {}):
            errors = validate(value, path)
            if errors:
                raise ValueError(aggregate_message(errors))
        result_meta[field] = value
    return {**converted, "metadata": result_meta}


def _go_type(value: Any) -> str:
    """Go's `%T` of a decoded JSON value, as upstream's messages print it."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "[]interface {}"
    return "map[string]interface {}"
