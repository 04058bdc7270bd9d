"""Work a resource does around its writes besides storing them: upstream's `BeginCreate`,
`BeginUpdate` and `AfterDelete` of the generic store.

A Service allocates cluster IPs and node ports before it is stored and gives them back when it is
deleted. `begin_*` runs once the object is defaulted and admitted, before validation, so validation sees
what was allocated; it returns a `Finish` that the store calls with whether the write was stored, so
allocations of a refused write are given back. A dry run allocates nothing lasting.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

Obj = dict[str, Any]
Finish = Callable[[bool], Awaitable[None]]


class WriteHooks(Protocol):
    async def begin_create(self, namespace: str, obj: Obj, *, dry_run: bool) -> Finish: ...

    async def begin_update(self, new: Obj, old: Obj, *, dry_run: bool) -> Finish: ...

    async def begin_subresource_update(self, subresource: str, new: Obj, old: Obj) -> None:
        """Checks needing I/O for a write through a subresource (its merged object), before admission
        validation; nothing is held, so there is nothing to finish."""

    async def after_delete(self, obj: Obj) -> None: ...
