"""The few REST calls the scenarios share: namespaces, bulk creation, reading a resourceVersion."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import aiohttp

from bench.client import CpuClock, Measurement, drive, expect
from bench.objects import encode

JSON = {"Content-Type": "application/json", "Accept": "application/json"}

_RESOURCE_VERSION = re.compile(rb'"resourceVersion":"(\d+)"')


def resource_version(body: bytes) -> str:
    """The first resourceVersion in a JSON body (an object's own comes first in `metadata`), no parse."""
    found = _RESOURCE_VERSION.search(body)
    if found is None:
        raise RuntimeError(f"no resourceVersion in {body[:200]!r}")
    return found.group(1).decode()


async def ensure_namespace(session: aiohttp.ClientSession, url: str, name: str) -> None:
    body = encode({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    async with session.post(f"{url}/api/v1/namespaces", data=body, headers=JSON) as response:
        await expect(response, 201, 409)


async def ensure_default_account(session: aiohttp.ClientSession, url: str, namespace: str) -> None:
    """The namespace's `default` ServiceAccount, which pods are admitted with: no controller manager
    runs beside a bench server to make it."""
    body = encode({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}})
    async with session.post(
        f"{url}/api/v1/namespaces/{namespace}/serviceaccounts", data=body, headers=JSON
    ) as response:
        await expect(response, 201, 409)


async def create_many(
    session: aiohttp.ClientSession,
    collection: str,
    make: Callable[[int], dict[str, Any]],
    *,
    count: int,
    concurrency: int,
    clock: CpuClock,
) -> Measurement:
    """POSTs `make(i)` for i in range(count) to the collection URL, `concurrency` at a time."""

    async def create(index: int) -> None:
        async with session.post(collection, data=encode(make(index)), headers=JSON) as response:
            await expect(response, 201)

    return await drive(create, count=count, concurrency=concurrency, clock=clock)
