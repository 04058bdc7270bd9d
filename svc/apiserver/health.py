"""`/healthz`, `/livez`, `/readyz` and their individual checks (spec 1 §3.2 and §4.10).

Output follows upstream byte for byte: `ok` when healthy, `?verbose` lists `[+]name ok` lines ending
with `<endpoint> check passed`, a failure is a 500 listing `[-]name failed: reason withheld`, and
`?exclude=name` (repeatable) skips a check. Machines should read the status code only.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

Check = Callable[[], Awaitable[None]]
"""A check raises (any exception) when unhealthy."""

Observer = Callable[[str, str, bool], None]
"""Told the check name, the endpoint and whether it passed, for each check an endpoint runs."""

_PLAIN = {"Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff"}


@dataclass(frozen=True)
class HealthCheck:
    name: str
    check: Check


def after_grace(check: HealthCheck, until: float, clock: Callable[[], float] = time.monotonic) -> HealthCheck:
    """`check` passing unchecked until `clock()` reaches `until` (`--livez-grace-period`: a server still
    starting is live, its post-start hooks assumed to finish)."""

    async def delayed() -> None:
        if clock() >= until:
            await check.check()

    return HealthCheck(check.name, delayed)


async def failure(check: HealthCheck) -> str:
    """Why `check` fails, or "" when it passes."""
    try:
        await check.check()
    except Exception as error:
        return str(error) or type(error).__name__
    return ""


def _error(body: str) -> web.Response:
    return web.Response(status=500, text=body + "\n", headers=_PLAIN)


async def serve_root(
    endpoint: str, checks: list[HealthCheck], request: web.BaseRequest, observe: Observer | None = None
) -> web.Response:
    excluded = set(request.query.getall("exclude", []))
    unknown = set(excluded)
    lines: list[str] = []
    failed = False
    for check in checks:
        if check.name in excluded:
            unknown.discard(check.name)
            lines.append(f"[+]{check.name} excluded: ok\n")
            continue
        why = await failure(check)
        if observe is not None:
            observe(check.name, endpoint, not why)
        if why:
            failed = True
            lines.append(f"[-]{check.name} failed: reason withheld\n")
        else:
            lines.append(f"[+]{check.name} ok\n")
    if unknown:
        names = ",".join(f'"{name}"' for name in sorted(unknown))
        lines.append(f"warn: some health checks cannot be excluded: no matches for {names}\n")
    if failed:
        return _error("".join(lines) + f"{endpoint} check failed")
    if "verbose" not in request.query:
        return web.Response(text="ok", headers=_PLAIN)
    return web.Response(text="".join(lines) + f"{endpoint} check passed\n", headers=_PLAIN)


async def serve_one(check: HealthCheck) -> web.Response:
    why = await failure(check)
    if why:
        return _error(f"internal server error: {why}")
    return web.Response(text="ok", headers=_PLAIN)


async def serve(
    path: str, registries: dict[str, list[HealthCheck]], request: web.BaseRequest, observe: Observer | None = None
) -> web.Response | None:
    """Answer a health path, or None when the path is not a health endpoint."""
    endpoint, _, name = path.strip("/").partition("/")
    checks = registries.get(endpoint)
    if checks is None:
        return None
    if not name:
        return await serve_root(endpoint, checks, request, observe)
    for check in checks:
        if check.name == name:
            return await serve_one(check)
    return None
