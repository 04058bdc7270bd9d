"""The inline audit path (a read at Metadata level, the log its only backend) writes byte for byte
what the general path writes for the same request, whatever the request's ending: the one join
and one write are an optimization, not a second format."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from aiohttp import web
from aiohttp.test_utils import make_mocked_request
from multidict import CIMultiDict, CIMultiDictProxy

from svc.apiserver.audit.auditor import Auditor
from svc.apiserver.audit.log_backend import LogBackend, _RotatingFile
from svc.apiserver.audit.policy import parse_policy
from svc.apiserver.context import RequestContext
from svc.apiserver.filters.audit import audit
from svc.apiserver.request_info import RequestInfo
from svc.machinery import status, wallclock
from svc.registry.admission import UserInfo

_POLICY = "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"
_GET = RequestInfo("/api/v1/namespaces/ns/configmaps/a", "get", True, "api", "", "v1", "ns", "configmaps", "", "a")
_ALICE = UserInfo("alice", uid="u-1", groups=("devs", "system:authenticated"))
_REASON = 'RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to User "alice"'

Handler = Callable[[RequestContext], Awaitable[web.StreamResponse]]


async def _allowed(ctx: RequestContext) -> web.StreamResponse:
    annotations = ctx.audit_annotations
    assert annotations is not None
    annotations["authorization.k8s.io/decision"] = "allow"
    annotations["authorization.k8s.io/reason"] = _REASON
    return web.Response(body=b'{"kind":"ConfigMap"}', content_type="application/json")


async def _not_found(ctx: RequestContext) -> web.StreamResponse:
    raise status.not_found(status.GroupResource("", "configmaps"), "a")


async def _not_found_answered(ctx: RequestContext) -> web.StreamResponse:
    body = b'{"kind":"Status","status":"Failure","reason":"NotFound","code":404}'
    return web.Response(status=404, body=body, content_type="application/json")


async def _panics(ctx: RequestContext) -> web.StreamResponse:
    raise RuntimeError("boom")


async def _cancelled(ctx: RequestContext) -> web.StreamResponse:
    raise asyncio.CancelledError


async def _impersonates(ctx: RequestContext) -> web.StreamResponse:
    ctx.user = UserInfo("bob", groups=("system:authenticated",))
    return await _allowed(ctx)


async def _odd_reason(ctx: RequestContext) -> web.StreamResponse:
    response = await _allowed(ctx)
    assert ctx.audit_annotations is not None
    ctx.audit_annotations["authorization.k8s.io/reason"] = "lone \udcff surrogate"
    return response


def _run(tmp_path: Path, name: str, handler: Handler, *, inline: bool, headers: dict[str, str]) -> bytes:
    """The log one request writes, through the inline path or (`inline` False) the general one."""
    log = LogBackend(str(tmp_path / f"{name}.log"))
    auditor = Auditor(parse_policy(yaml.safe_load(_POLICY)), log)
    assert auditor.inline is log
    if not inline:
        auditor.inline = None
    clock = wallclock.FakeWallClock(1764097000.25)
    server = SimpleNamespace(audit=auditor, clock=clock)

    async def serve() -> None:
        wallclock.bind(clock)  # the general path reads the bound clock, the inline one the server's
        request = make_mocked_request("GET", _GET.path)
        # As the HTTP parser hands them over: undecodable bytes kept as lone surrogates, which the
        # mocked request's own encoding would refuse.
        request._headers = CIMultiDictProxy(CIMultiDict({"Audit-ID": "id-1", **headers}))  # type: ignore[attr-defined]
        ctx = RequestContext(request, server, info=_GET, user=_ALICE, authenticated_user=_ALICE)  # type: ignore[arg-type]
        try:
            await audit(ctx, handler)
        except (status.StatusError, RuntimeError, asyncio.CancelledError):
            pass
        log.flush()

    asyncio.run(serve())
    log.shutdown()
    return (tmp_path / f"{name}.log").read_bytes()


_HANDLERS = {
    "allowed": _allowed,
    "not-found": _not_found,
    "not-found-answered": _not_found_answered,
    "panic": _panics,
    "cancelled": _cancelled,
    "impersonated": _impersonates,
    "annotation-orjson-refuses": _odd_reason,
}
_HEADERS = {
    "plain": {"User-Agent": "kubectl/v1.35"},
    "forwarded": {"X-Forwarded-For": "10.0.0.1, 10.0.0.2", "X-Real-Ip": "10.0.0.3"},
    "non-ascii": {"User-Agent": 'quote " and \\ and \u00e9 and \x01'},
    "undecodable": {"User-Agent": b"agent-\xff".decode("utf-8", "surrogateescape")},
}


@pytest.mark.parametrize("headers", _HEADERS.values(), ids=_HEADERS.keys())
@pytest.mark.parametrize("handler", _HANDLERS.values(), ids=_HANDLERS.keys())
def test_the_inline_path_writes_what_the_general_path_writes(
    tmp_path: Path, handler: Handler, headers: dict[str, str]
) -> None:
    inline = _run(tmp_path, "inline", handler, inline=True, headers=headers)
    general = _run(tmp_path, "general", handler, inline=False, headers=headers)
    assert inline == general
    assert inline.count(b'"stage":"RequestReceived"') == 1


def test_a_read_that_succeeds_takes_the_inline_path_and_one_write(tmp_path: Path, monkeypatch: Any) -> None:
    completed: list[bool] = []
    complete = LogBackend.complete

    def spied(backend: LogBackend, *args: Any, **options: Any) -> bool:
        completed.append(complete(backend, *args, **options))
        return completed[-1]

    writes: list[bytes] = []
    write = _RotatingFile.write
    monkeypatch.setattr(LogBackend, "complete", spied)
    monkeypatch.setattr(_RotatingFile, "write", lambda file, data: writes.append(data) or write(file, data))
    written = _run(tmp_path, "inline", _allowed, inline=True, headers={})
    assert completed == [True]
    assert writes == [written]
    stages = [line.split(b'"stage":"')[1].split(b'"')[0] for line in written.splitlines()]
    assert stages == [b"RequestReceived", b"ResponseComplete"]
