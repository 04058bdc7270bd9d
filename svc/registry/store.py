"""The generic store: every verb of every stored type, configured by the type's `Strategy`.

This is upstream's `registry.Store` in one class: it turns a verb into storage operations in the
fixed order (prepare, generic metadata, validate, admission, write) and translates storage errors
into API errors. Per-type behaviour comes only from the strategy, so adding a type is adding a row
to the resource table (and a strategy module when it has rules of its own).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from svc.api.conversion import Conversion, conversion_for, storage_version
from svc.api.omit_empty import Prune, decoded_pruner, pruner
from svc.api.resources import Resource
from svc.api.sent_empty import Emptied, finder
from svc.api.strategy import Strategy
from svc.machinery import status
from svc.machinery.field_errors import aggregate_message, invalid
from svc.registry import delete as deletion
from svc.registry.admission import Admission, Attributes, Operation, UserInfo
from svc.registry.create import before_create
from svc.registry.hooks import Finish, WriteHooks
from svc.registry.initial_events import InitialEvents
from svc.registry.list_items import DecodedOnePass, ItemForm, list_items
from svc.registry.options import DeleteOptions, ListOptions, WriteOptions
from svc.registry.selection import Selection
from svc.registry.update import before_subresource_update, before_update
from svc.registry.watch import BackendEvents, EventSource, WatchEvent, WatchStream, convert
from svc.storage import errors
from svc.storage.backend import prefix_end
from svc.storage.cached_object import CachedObject
from svc.storage.objects import ObjectStore
from svc.storage.watch_cache import CacheEvent, WatchCache

Obj = dict[str, Any]
UpdatedObject = Callable[[Obj | None], Awaitable[Obj]]
"""Produces the new object from the current one (None when it does not exist): PUT returns its
body, PATCH applies its patch. Re-run after every lost compare-and-swap."""

_CONTINUE_VERSION = "meta.k8s.io/v1"
_RETRY_SECONDS = 1
_WAIT_FOR_VERSION = 3.0
_EXPIRED_CONTINUE = (
    "The provided continue parameter is too old to display a consistent list result. You can start a new "
    "list without the continue parameter, or use the continue token in this response to retrieve the "
    "remainder of the results. Continuing with the provided token results in an inconsistent list - "
    "objects that were created, modified, or deleted between the time the first chunk was returned and "
    "now may show up in the list."
)


def _too_old(error: errors.CompactedError) -> status.StatusError:
    return status.gone(f"too old resource version: {error.requested} ({error.compacted})")


def encode_continue(revision: int, start: str) -> str:
    token = orjson.dumps({"v": _CONTINUE_VERSION, "rv": revision, "start": start})
    return base64.urlsafe_b64encode(token).rstrip(b"=").decode()


def decode_continue(token: str) -> tuple[int, str]:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = orjson.loads(raw)
        revision, start = int(data["rv"]), str(data["start"])
        if data.get("v") != _CONTINUE_VERSION or revision <= 0:
            raise ValueError(token)
    except (binascii.Error, ValueError, KeyError, TypeError, orjson.JSONDecodeError):
        raise status.bad_request(f"continue key is not valid: {token}") from None
    return revision, start


async def _finished(stored: bool) -> None:
    return None


class _MarkInstead(Exception):
    """The object a delete was about to remove needs a graceful or finalizer update instead."""

    def __init__(self, obj: Obj) -> None:
        super().__init__("mark for deletion")
        self.obj = obj


class _DryRunResult(Exception):
    """Carries the object a dry-run write would have stored out of the guaranteed-update loop."""

    def __init__(self, obj: Obj) -> None:
        super().__init__("dry run")
        self.obj = obj


def _no_events(_: CacheEvent) -> None:
    return None


def _failure(error: errors.StorageError) -> Obj:
    if isinstance(error, errors.CompactedError):
        return _too_old(error).status()
    return status.internal_error(str(error)).status()


@dataclass
class GenericStore:
    strategy: Strategy
    objects: ObjectStore
    cache: WatchCache | None = None
    root: str = "/registry"
    hooks: WriteHooks | None = None
    # A watch older than the cache's window is served from the store's log rather than 410 Gone
    # (`--watch-from-history`, a test-toolkit feature).
    watch_from_history: bool = False
    conversion: Conversion | None = field(init=False)
    omit_empty: Prune | None = field(init=False)
    """Drops the empty values upstream's Go types never give back from what is written (omit_empty.py)."""
    omit_empty_served: Prune | None = field(init=False)
    """The same for the served version, so an update's checks see an empty value as absent, as upstream
    compares its Go types (`Semantic.DeepEqual`: a PUT with `volumes: []` changes no immutable field);
    see `prune_served`."""
    omit_empty_decoded: Prune | None = field(init=False)
    """The served version as decoding leaves it, which the field manager reads: a list written as null
    keeps an empty value (`rules: []` is recorded, an absent `rules` is not)."""
    find_sent_empty: Callable[[Obj], Emptied] | None = field(init=False)
    """Notes the empty lists an update sent that the served prune nulls, for validating webhooks."""
    on_storage_list: Callable[[int, int], None] | None = None
    """Told the objects read and returned by each list served from storage (metrics)."""

    def __post_init__(self) -> None:
        self.conversion = conversion_for(self.strategy.resource, self.strategy.profile)
        self.omit_empty = pruner(*storage_version(self.resource), self.resource.kind)
        served = (self.resource.upstream_group, self.resource.version, self.resource.kind)
        self.omit_empty_served = pruner(*served)
        self.omit_empty_decoded = decoded_pruner(*served)
        self.find_sent_empty = finder(*served)

    @property
    def resource(self) -> Resource:
        return self.strategy.resource

    # -- keys and presentation ---------------------------------------------------------------
    def prefix(self, namespace: str) -> str:
        if self.resource.namespaced and namespace:
            return f"{self.root}{self.resource.storage_prefix}{namespace}/"
        return self.root + self.resource.storage_prefix

    def key(self, namespace: str, name: str) -> str:
        return self.prefix(namespace) + name

    def present(self, obj: Obj) -> Obj:
        """Stored objects are shared by every version of the resource; show the served one. An
        object stored in a version of another shape is converted (in place: callers keep `obj`)."""
        if self.conversion is not None:
            convert = self.conversion.from_stored.get(obj.get("apiVersion"))  # type: ignore[arg-type]
            if convert is not None:
                converted = convert(obj)
                obj.clear()
                obj.update(converted)
        obj["apiVersion"] = self.resource.api_version
        obj["kind"] = self.resource.kind
        return obj

    def prune_served(self, obj: Obj) -> None:
        """Drops the empty values upstream never gives back from a request's object, as its checks see
        it (omit_empty.py), but for the maps the kind's checks tell from absent ones when sent empty."""
        if self.omit_empty_served is None:
            return
        kept = self.strategy.nil_distinct_maps
        sent_empty = {key: obj[key] for key in kept if obj.get(key) == {}} if kept else None
        self.omit_empty_served(obj)
        if sent_empty:
            obj.update(sent_empty)

    def _stored(self, obj: Obj) -> Obj:
        """A served object as it is written: in the storage version when that has another shape, and
        without the empty values upstream never gives back, so a write answers what GET will read."""
        if self.conversion is not None:
            obj = self.conversion.stored(obj, self.resource.kind)
        if self.omit_empty is not None:
            self.omit_empty(obj)
        return obj

    @property
    def watch_present(self) -> Callable[[Obj], Obj] | None:
        """What a watch event of a decoded cached object needs: None when stamping the served
        apiVersion and kind is enough."""
        return None if self.conversion is None else self.present

    def _unconditional(self, name: str) -> status.StatusError:
        """Upstream's 422 for an update without a resourceVersion where one is required (it names the
        resource where the kind belongs, and the missing version as the number 0)."""
        problems = [invalid("metadata.resourceVersion", 0, "must be specified for an update")]
        group = self.resource.group
        qualified = f"{self.resource.name}.{group}" if group else self.resource.name
        return status.invalid(qualified, name, problems, aggregate_message(problems))

    def _not_found(self, name: str) -> status.StatusError:
        return status.not_found(self.resource.group_resource, name)

    def _corrupt(self, error: errors.CorruptObjectError) -> status.StatusError:
        return status.internal_error(str(error))

    # -- reads -------------------------------------------------------------------------------
    async def get(self, namespace: str, name: str, resource_version: str = "") -> Obj:
        """One object, as upstream reads it. Without a resourceVersion a consistent read: from storage
        (where the watch cache holds the same version, its copy saves decoding the stored value), or
        from the cache once it has caught up with an in-process store, which returns the same for less.
        With "0" the cache's current state; with a version the cache's state once it has reached it."""
        key = self.key(namespace, name)
        cache = self.cache
        if cache is None:
            if resource_version not in ("", "0"):
                await self._wait_for_store(int(resource_version))
            return await self._from_storage(key, name)
        if resource_version == "0":
            return self._from_cache(key, name)
        if resource_version:
            if not await cache.wait_for(int(resource_version), _WAIT_FOR_VERSION):
                raise status.too_large_resource_version(int(resource_version), cache.revision, _RETRY_SECONDS)
            return self._from_cache(key, name)
        if self.objects.backend.in_process and await cache.fresh():
            return self._from_cache(key, name)
        kv = await self.objects.get_raw(key)
        if kv is None:
            raise self._not_found(name)
        cached = cache.state.get(key)
        if cached is not None and cached.revision == kv.mod_revision:
            return self.present(cached.decode())
        try:
            return self.present(self.objects.decode(kv))
        except errors.CorruptObjectError as error:
            raise self._corrupt(error) from None

    async def _from_storage(self, key: str, name: str) -> Obj:
        """Through the object store's own read, which stores that convert (custom resources) override."""
        try:
            return self.present(await self.objects.get(key))
        except errors.KeyNotFoundError:
            raise self._not_found(name) from None
        except errors.CorruptObjectError as error:
            raise self._corrupt(error) from None

    def _from_cache(self, key: str, name: str) -> Obj:
        assert self.cache is not None
        corrupt = self.cache.corrupt.get(key)
        if corrupt is not None:
            raise self._corrupt(corrupt)
        cached = self.cache.get(key)
        if cached is None:
            raise self._not_found(name)
        return self.present(cached)

    async def list(self, namespace: str, options: ListOptions, *, form: ItemForm = ItemForm.DECODED) -> Obj:
        """A list per the resourceVersion table of spec 4.6 (options are already validated). Items
        served from the cache come in `form` (list_items.py); those read from storage are decoded."""
        prefix = self.prefix(namespace)
        version, match = options.resource_version, options.resource_version_match
        try:
            if options.continue_token:
                revision, start = decode_continue(options.continue_token)
                return await self._list_store(prefix, options, revision, prefix + start.removesuffix("\x00"))
            exact = match == "Exact" or (version not in ("", "0") and not match and options.limit)
            if exact:
                return await self._list_store(prefix, options, int(version), "")
            if self.cache is None:
                if version not in ("", "0"):
                    await self._wait_for_store(int(version))
                return await self._list_store(prefix, options, 0, "")
            if version == "" and not self.cache.consistent_reads:
                return await self._list_store(prefix, options, 0, "")
            if version == "":
                if not await self.cache.fresh():
                    # as upstream: a consistent read the cache cannot catch up with in time reads storage
                    return await self._list_store(prefix, options, 0, "")
            elif version != "0" and not await self.cache.wait_for(int(version), _WAIT_FOR_VERSION):
                raise status.too_large_resource_version(int(version), self.cache.revision, _RETRY_SECONDS)
            return self._list_cache(prefix, options, form)
        except errors.CompactedError as error:
            if options.continue_token:
                raise status.gone(_EXPIRED_CONTINUE) from None
            raise _too_old(error) from None
        except errors.FutureRevisionError as error:
            raise status.too_large_resource_version(error.requested, error.current, _RETRY_SECONDS) from None
        except errors.CorruptObjectError as error:
            raise self._corrupt(error) from None

    async def _wait_for_store(self, revision: int) -> None:
        deadline = time.monotonic() + _WAIT_FOR_VERSION
        while (current := await self.objects.backend.current_revision()) < revision:
            if time.monotonic() > deadline:
                raise status.too_large_resource_version(revision, current, _RETRY_SECONDS)
            await asyncio.sleep(0.01)

    def _list_object(
        self,
        items: list[Any] | DecodedOnePass,
        revision: int,
        more: bool,
        remaining: int,
        last: str,
        prefix: str,
        options: ListOptions,
    ) -> Obj:
        metadata: dict[str, Any] = {"resourceVersion": str(revision)}
        if options.shard_selector is not None:
            metadata["shardInfo"] = {"selector": str(options.shard_selector)}
        if more:
            metadata["continue"] = encode_continue(revision, last[len(prefix) :] + "\x00")
            if not options.filtered:
                metadata["remainingItemCount"] = remaining
        return {
            "kind": self.resource.list_kind,
            "apiVersion": self.resource.api_version,
            "metadata": metadata,
            "items": items,
        }

    def _list_cache(self, prefix: str, options: ListOptions, form: ItemForm) -> Obj:
        assert self.cache is not None
        revision = self.cache.revision
        entries = self.cache.snapshot(prefix, prefix_end(prefix))
        selection = Selection(options, self.strategy.field_labels)
        chosen: list[CachedObject] = []
        last = ""
        more = False
        for index, (key, cached) in enumerate(entries):
            if not selection.matches_cached(cached):
                continue
            if options.limit and len(chosen) == options.limit:
                more = True
                remaining = len(entries) - index
                break
            chosen.append(cached)
            last = key
        else:
            remaining = 0
        items = list_items(chosen, form, self.present, self.resource.api_version, self.resource.kind)
        return self._list_object(items, revision, more, remaining, last, prefix, options)

    async def _list_store(self, prefix: str, options: ListOptions, revision: int, after_key: str) -> Obj:
        items: list[Obj] = []
        more, remaining, last = False, 0, after_key
        selection = Selection(options, self.strategy.field_labels)
        fetched = 0
        while True:
            wanted = options.limit - len(items) if options.limit else 0
            page = await self.objects.list(prefix, revision=revision, limit=wanted, after_key=last)
            revision = revision or page.revision
            fetched += len(page.items)
            items.extend(self.present(obj) for obj in page.items if selection.matches(obj))
            more, remaining, last = page.more, page.remaining, page.last_key or last
            if not more or not options.limit or len(items) >= options.limit:
                break
        if self.on_storage_list is not None:
            self.on_storage_list(fetched, len(items))
        return self._list_object(items, revision, more, remaining, last, prefix, options)

    # -- watch -------------------------------------------------------------------------------
    async def watch(self, namespace: str, options: ListOptions, *, initial: bool | None = None) -> WatchStream:
        """Watch events per the start table of spec 4.6; `initial` overrides whether the current
        state is sent first (sendInitialEvents). Ends with an `ERROR` event when the stream breaks."""
        prefix = self.prefix(namespace)
        version = options.resource_version
        send_state = (version in ("", "0")) if initial is None else initial
        selection = Selection(options, self.strategy.field_labels)
        identity = (self.resource.api_version, self.resource.kind)
        try:
            if version not in ("", "0") and self.cache is not None and not send_state:
                after = int(version)
                source: EventSource = self._cache_or_log(prefix, after)
                state: Sequence[CachedObject] | Sequence[Obj] = ()
                span = range(0)
            else:
                state, span, after, source = await self._start_watch(prefix, version, send_state, bool(initial))
        except errors.CompactedError as error:
            error_event = WatchEvent("ERROR", _too_old(error).status())
            return WatchStream(InitialEvents.of([error_event]), None, _no_events, 0, _failure)
        last: list[WatchEvent] = []
        if initial:
            annotation = self.strategy.profile.initial_events_end_annotation
            metadata = {"resourceVersion": str(after), "annotations": {annotation: "true"}}
            bookmark = {"kind": self.resource.kind, "apiVersion": self.resource.api_version, "metadata": metadata}
            last.append(WatchEvent("BOOKMARK", bookmark))
        first = InitialEvents(state, span, lambda item: self._selects(selection, item), self._added, last)
        shared_as = identity if selection.everything else None
        present = self.watch_present
        return WatchStream(
            first, source, lambda event: convert(event, selection, identity, present), after, _failure, shared_as
        )

    @staticmethod
    def _selects(selection: Selection, item: CachedObject | Obj) -> bool:
        if isinstance(item, CachedObject):
            return selection.matches_cached(item)
        return selection.matches(item)

    def _added(self, item: CachedObject | Obj) -> WatchEvent:
        if isinstance(item, CachedObject):
            identity = (self.resource.api_version, self.resource.kind)
            return WatchEvent("ADDED", cached=item, identity=identity, present=self.watch_present)
        return WatchEvent("ADDED", self.present(item))

    def _cache_or_log(self, prefix: str, after: int) -> EventSource:
        """Events after `after` from the watch cache, or from the store's log when the cache no longer
        holds that revision and `watch_from_history` is on (the log raises CompactedError in turn)."""
        assert self.cache is not None
        try:
            return self.cache.watch(prefix, prefix_end(prefix), min(after, self.cache.revision))
        except errors.CompactedError:
            if not self.watch_from_history:
                raise
            return BackendEvents(self.objects, prefix, after)

    async def _start_watch(
        self, prefix: str, version: str, send_state: bool, watch_list: bool = False
    ) -> tuple[Sequence[CachedObject] | Sequence[Obj], range, int, EventSource]:
        """The state to send first (the cache's shared snapshot and the span of it under `prefix`, or
        a list read from the backend), the revision it is at, and the events after it. The consistent
        state of a watch list (sendInitialEvents, no resourceVersion) comes from the backend when the
        cache cannot tell on demand how current it is (etcd before 3.4.31/3.5.13), as consistent
        lists do."""
        consistent_from_backend = (
            watch_list and version == "" and not (self.cache is not None and self.cache.consistent_reads)
        )
        if self.cache is not None and not consistent_from_backend:
            if version == "":
                await self.cache.fresh()
            elif version != "0":
                await self.cache.wait_for(int(version), _WAIT_FOR_VERSION)
            after = self.cache.revision
            state: Sequence[CachedObject] | Sequence[Obj] = ()
            span = range(0)
            if send_state:
                snapshot, span = self.cache.shared_snapshot(prefix, prefix_end(prefix))
                state = snapshot.objects
            return state, span, after, self.cache.watch(prefix, prefix_end(prefix), after)
        items: list[Obj] = []
        if send_state:
            page = await self.objects.list(prefix)
            items, after = page.items, page.revision
        else:
            after = int(version)
        return items, range(len(items)), after, BackendEvents(self.objects, prefix, after)

    # -- writes ------------------------------------------------------------------------------
    def _attributes(
        self, operation: Operation, namespace: str, name: str, user: UserInfo, options: WriteOptions
    ) -> Attributes:
        return Attributes(
            operation, self.resource, namespace, name, user, options.subresource, options.dry_run, options=options
        )

    async def create(
        self, namespace: str, obj: Obj, *, admission: Admission, user: UserInfo, options: WriteOptions
    ) -> Obj:
        if (obj.get("metadata") or {}).get("resourceVersion"):
            raise status.bad_request("resourceVersion should not be set on objects to be created")
        self.present(obj)
        attributes = self._attributes(
            Operation.CREATE, namespace, (obj.get("metadata") or {}).get("name", ""), user, options
        )
        attributes.object = obj
        self.strategy.default(obj)
        await admission.admit(attributes)
        finish = await self.hooks.begin_create(namespace, obj, dry_run=options.dry_run) if self.hooks else _finished
        stored = False
        try:
            before_create(self.strategy, obj, namespace, user)
            attributes.name = obj["metadata"]["name"]
            await admission.validate(attributes)
            key = self.key(namespace, obj["metadata"]["name"])
            if options.dry_run:
                if await self.objects.get_raw(key) is not None:
                    raise errors.KeyExistsError(key)
                return self.present(self._stored(obj))
            created = self.present(await self.objects.create(key, self._stored(obj)))
            stored = True
            return created
        except errors.KeyExistsError:
            raise status.already_exists(self.resource.group_resource, obj["metadata"]["name"]) from None
        except errors.RequestTooLargeError as error:
            raise status.unconverted(str(error)) from None
        finally:
            await finish(stored)

    async def update(
        self,
        namespace: str,
        name: str,
        updated_object: UpdatedObject,
        *,
        admission: Admission,
        user: UserInfo,
        options: WriteOptions,
        allow_create: bool | None = None,
    ) -> tuple[Obj, bool]:
        """Returns the stored object and whether it was created."""
        may_create = self.strategy.allow_create_on_update if allow_create is None else allow_create
        outcome: dict[str, Any] = {"created": False, "delete": False}
        subresource = options.subresource
        finishes: list[Finish] = []

        async def settle(stored: bool) -> None:
            while finishes:
                await finishes.pop()(stored)

        async def transform(current: Obj | None) -> Obj | None:
            await settle(False)  # what an attempt lost to a conflict allocated
            if current is None:
                if not may_create or subresource:
                    raise self._not_found(name)
                obj = self.present(await updated_object(None))
                if (obj.get("metadata") or {}).get("resourceVersion"):
                    raise self._not_found(name)
                attributes = self._attributes(Operation.CREATE, namespace, name, user, options)
                attributes.object = obj
                self.strategy.default(obj)
                await admission.admit(attributes)
                if self.hooks is not None:
                    finishes.append(await self.hooks.begin_create(namespace, obj, dry_run=options.dry_run))
                before_create(self.strategy, obj, namespace, user)
                await admission.validate(attributes)
                outcome["created"] = True
                written = self._stored(obj)
                if options.dry_run:
                    raise _DryRunResult(written)
                return written
            self.present(current)
            obj = self.present(await updated_object(current))
            metadata = obj.setdefault("metadata", {})
            if not isinstance(metadata, dict):
                raise status.bad_request("metadata must be an object")
            if metadata.get("name", name) != name:
                raise status.bad_request(
                    f"the name of the object ({metadata.get('name')}) does not match the name on the URL ({name})"
                )
            metadata["name"] = name
            version = metadata.get("resourceVersion") or ""
            current_version = current["metadata"]["resourceVersion"]
            if not version:
                if not self.strategy.allow_unconditional_update:
                    raise self._unconditional(name)
                metadata["resourceVersion"] = current_version
            elif version != current_version:
                raise status.stale_conflict(self.resource.group_resource, name)
            self.strategy.default(obj)
            attributes = self._attributes(Operation.UPDATE, namespace, name, user, options)
            attributes.object, attributes.old_object = obj, current
            # Mutating admission sees the request as decoded (a webhook gets `rules: []` as sent); the
            # update's checks after it see empty values as absent, as Go's Semantic.DeepEqual does, while
            # validating webhooks get the empty lists back.
            await admission.admit(attributes)
            if self.find_sent_empty is not None:
                attributes.sent_empty = self.find_sent_empty(obj)
            self.prune_served(obj)
            # As upstream, mutating admission sees the request's object; the subresource's strategy then
            # takes from the admitted object only what the subresource may change (PrepareForUpdate).
            subresource_update = self.strategy.subresource_updates.get(subresource)
            if subresource_update is not None:
                obj = attributes.object = subresource_update(obj, current)
            if subresource_update is None:
                if self.hooks is not None:
                    finishes.append(await self.hooks.begin_update(obj, current, dry_run=options.dry_run))
                before_update(self.strategy, obj, current, namespace)
            else:
                if self.hooks is not None:
                    await self.hooks.begin_subresource_update(subresource, obj, current)
                before_subresource_update(self.strategy, subresource, obj, current)
            await admission.validate(attributes)
            outcome["delete"] = deletion.finished_terminating(self.strategy, obj, current)
            written = self._stored(obj)
            if options.dry_run:
                raise _DryRunResult(written)
            return written

        key = self.key(namespace, name)
        try:
            try:
                stored = await self.objects.guaranteed_update(key, transform, create_missing=True)
            except BaseException:
                await settle(False)
                raise
            await settle(True)
        except errors.KeyNotFoundError:
            raise self._not_found(name) from None
        except errors.CorruptObjectError as error:
            raise self._corrupt(error) from None
        except errors.RequestTooLargeError as error:
            raise status.unconverted(str(error)) from None
        except _DryRunResult as result:
            return self.present(result.obj), outcome["created"]
        if outcome["delete"]:
            try:
                stored = await self.objects.delete(key, current=stored)
            except errors.KeyNotFoundError:
                pass
            else:
                await self._deleted(stored)
        return self.present(stored), outcome["created"]

    async def delete(
        self, namespace: str, name: str, options: DeleteOptions, *, admission: Admission, user: UserInfo
    ) -> tuple[Obj, bool]:
        """Returns the object (its last state) and whether it is gone (False: terminating)."""
        key = self.key(namespace, name)
        write_options = WriteOptions(dry_run=options.dry_run)
        pending: dict[str, Obj] = {}

        async def deletable(current: Obj) -> None:
            """Preconditions and admission, run on each version of the object a delete attempts."""
            self.present(current)
            deletion.check_preconditions(self.strategy, current, options)
            attributes = self._attributes(Operation.DELETE, namespace, name, user, write_options)
            attributes.old_object, attributes.options = current, options
            # as upstream's AdmissionToValidateObjectDeleteFunc: mutating admission sees a delete too
            await admission.admit(attributes)
            await admission.validate(attributes)

        async def mark(current: Obj | None) -> Obj | None:
            assert current is not None
            await deletable(current)
            marked = self.objects.codec.copy(current)
            outcome = deletion.mark_for_deletion(self.strategy, marked, options)
            if outcome is deletion.Outcome.REMOVE:
                pending["remove"] = current
                return None
            pending.pop("remove", None)
            if outcome is deletion.Outcome.PENDING:
                return current
            if outcome is deletion.Outcome.MARK_THEN_REMOVE:
                pending["then_remove"] = marked
            else:
                pending.pop("then_remove", None)
            if options.dry_run:
                pending["dry"] = marked
                return None
            return self._stored(marked)

        async def still_deletable(current: Obj) -> None:
            await deletable(self.objects.codec.copy(current))
            outcome = deletion.mark_for_deletion(self.strategy, self.objects.codec.copy(current), options)
            if outcome is not deletion.Outcome.REMOVE:
                raise _MarkInstead(current)

        suggestion = self._cached_copy(key)
        try:
            while True:
                pending.clear()
                stored = await self.objects.guaranteed_update(key, mark, suggestion=suggestion)
                if "dry" in pending:
                    return self.present(pending["dry"]), "then_remove" in pending
                if "then_remove" in pending:
                    return await self._remove_marked(key, stored, still_deletable)
                if "remove" not in pending:
                    return self.present(stored), False
                if options.dry_run:
                    return self.present(pending["remove"]), True
                try:
                    removed = await self.objects.delete(key, current=pending["remove"], check=still_deletable)
                except _MarkInstead as gained:
                    # the stored object gained finalizers (or a grace period) since the version the delete
                    # was decided on: decide again on it, as a delete that read it first would have
                    suggestion = gained.obj
                    continue
                await self._deleted(removed)
                return self.present(removed), True
        except errors.KeyNotFoundError:
            raise self._not_found(name) from None
        except errors.CorruptObjectError as error:
            raise self._corrupt(error) from None

    async def _remove_marked(self, key: str, marked: Obj, check: Callable[[Obj], Awaitable[None]]) -> tuple[Obj, bool]:
        """Remove an object just written terminating with no grace left. Another writer may have
        removed it first (a kubelet, another delete): that is no error, as upstream ignores it."""
        try:
            removed = await self.objects.delete(key, current=marked, check=check)
        except errors.KeyNotFoundError:
            return self.present(marked), True
        except _MarkInstead as gained:  # it gained finalizers meanwhile: it stays, terminating
            return self.present(gained.obj), False
        await self._deleted(removed)
        return self.present(removed), True

    async def _deleted(self, obj: Obj) -> None:
        if self.hooks is not None:
            await self.hooks.after_delete(obj)

    async def delete_corrupt(self, namespace: str, name: str, *, dry_run: bool = False) -> None:
        """Remove an object that cannot be read (spec 3.1, corrupt state); no finalizers, no preconditions."""
        try:
            await self.objects.delete_corrupt(self.key(namespace, name), dry_run=dry_run)
        except errors.KeyNotFoundError:
            raise self._not_found(name) from None
        except errors.DecodableObjectError as error:
            raise status.conflict(self.resource.group_resource, name, str(error)) from None

    def _cached_copy(self, key: str) -> Obj | None:
        """The watch cache's copy of the object, as the first guess of a delete (upstream's
        `cachedExistingObject`), so that a delete of an object the cache holds is one transaction."""
        cached = self.cache.state.get(key) if self.cache is not None else None
        return cached.decode() if cached is not None and cached.revision else None

    async def delete_collection(
        self,
        namespace: str,
        list_options: ListOptions,
        options: DeleteOptions,
        *,
        admission: Admission,
        user: UserInfo,
        workers: int = 1,
    ) -> Obj:
        listed = await self.list(namespace, list_options)
        queue: asyncio.Queue[Obj] = asyncio.Queue()
        for item in listed["items"]:
            queue.put_nowait(item)
        deleted: list[Obj] = []

        async def worker() -> None:
            while not queue.empty():
                item = queue.get_nowait()
                metadata = item["metadata"]
                try:
                    obj, _ = await self.delete(
                        metadata.get("namespace", ""),
                        metadata["name"],
                        options,
                        admission=admission,
                        user=user,
                    )
                except status.StatusError as error:
                    if error.code != 404:
                        raise
                    continue
                deleted.append(obj)

        await asyncio.gather(*(worker() for _ in range(max(1, workers))))
        listed["items"] = sorted(
            deleted, key=lambda obj: (obj["metadata"].get("namespace", ""), obj["metadata"]["name"])
        )
        return listed
