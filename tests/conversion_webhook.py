"""A conversion webhook for tests: v1alpha1 `spec.size` is v1 `spec.replicas` of stable.example.com."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

GROUP = "stable.example.com"
ALPHA, V1 = f"{GROUP}/v1alpha1", f"{GROUP}/v1"
Review = dict[str, Any]


def convert_object(obj: dict[str, Any], desired: str) -> dict[str, Any]:
    """The test webhook's conversion: v1alpha1 `spec.size` is v1 `spec.replicas`."""
    spec = dict(obj.get("spec") or {})
    if obj["apiVersion"] == ALPHA and desired == V1 and "size" in spec:
        spec["replicas"] = spec.pop("size")
    elif obj["apiVersion"] == V1 and desired == ALPHA and "replicas" in spec:
        spec["size"] = spec.pop("replicas")
    return {**obj, "apiVersion": desired, "spec": spec}


def conversion_handler(
    seen: list[Review], tamper: Callable[[Review], None] | None = None, delay: float = 0.0
) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def handle(request: web.Request) -> web.Response:
        review = await request.json()
        seen.append(review)
        if delay:
            await asyncio.sleep(delay)
        wanted = review["request"]["desiredAPIVersion"]
        answer = {
            "apiVersion": review["apiVersion"],
            "kind": "ConversionReview",
            "response": {
                "uid": review["request"]["uid"],
                "convertedObjects": [convert_object(obj, wanted) for obj in review["request"]["objects"]],
                "result": {"status": "Success"},
            },
        }
        if tamper:
            tamper(answer)
        return web.json_response(answer)

    return handle
