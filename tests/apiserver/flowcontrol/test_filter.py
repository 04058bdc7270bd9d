"""The APF filter's own request path (no server): seats taken without an await are still seen taken
by requests arriving in the same turn of the event loop, and routes follow a new configuration."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from aiohttp import web
from aiohttp.test_utils import make_mocked_request
from prometheus_client import CollectorRegistry

from svc.api.brand import PROFILES
from svc.apiserver.context import RequestContext
from svc.apiserver.flowcontrol import bootstrap
from svc.apiserver.flowcontrol.build import FlowControl
from svc.apiserver.flowcontrol.filter import limit_requests
from svc.apiserver.flowcontrol.options import FlowControlOptions
from svc.apiserver.request_info import parse_request_info
from svc.registry.admission import UserInfo

PROFILE = PROFILES["svc"]
PATH = "/api/v1/namespaces/default/configmaps/one"
USER = UserInfo("solo", uid="1", groups=("system:authenticated",))


def _one_seat_level() -> dict[str, Any]:
    return {
        "metadata": {"name": "solo", "uid": "level-uid"},
        "spec": {
            "type": "Limited",
            "limited": {
                "nominalConcurrencyShares": 1,
                "lendablePercent": 0,
                "limitResponse": {"type": "Reject"},
            },
        },
    }


def _schema_for_solo() -> dict[str, Any]:
    return {
        "metadata": {"name": "solo", "uid": "schema-uid"},
        "spec": {
            "priorityLevelConfiguration": {"name": "solo"},
            "matchingPrecedence": 100,
            "rules": [
                {
                    "subjects": [{"kind": "User", "user": {"name": "solo"}}],
                    "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "namespaces": ["*"]}],
                }
            ],
        },
    }


def _control(*, solo: bool) -> FlowControl:
    # two server seats: the one-seat level gets exactly one
    options = FlowControlOptions(max_requests_inflight=1, max_mutating_requests_inflight=1)
    control = FlowControl(options, PROFILE, CollectorRegistry())
    assert control.controller is not None
    levels = bootstrap.priority_levels(PROFILE) + ([_one_seat_level()] if solo else [])
    control.controller.reset("prioritylevelconfigurations", levels)
    control.controller.reset("flowschemas", bootstrap.flow_schemas(PROFILE) + ([_schema_for_solo()] if solo else []))
    return control


async def _get(control: FlowControl) -> web.StreamResponse:
    server = SimpleNamespace(flowcontrol=control, options=SimpleNamespace(request_timeout=60.0))
    ctx = RequestContext(make_mocked_request("GET", PATH), server)  # type: ignore[arg-type]
    ctx.info = parse_request_info("GET", PATH, {})
    ctx.user = ctx.authenticated_user = USER

    async def handler(_: RequestContext) -> web.StreamResponse:
        return web.Response(text="{}")  # never awaits: done within the step that admitted it

    return await limit_requests(ctx, handler)


def test_requests_arriving_together_see_the_seats_of_one_that_never_awaited() -> None:
    async def run() -> list[int]:
        control = _control(solo=True)
        answers = await asyncio.gather(_get(control), _get(control))
        return [answer.status for answer in answers]

    assert asyncio.run(run()) == [200, 429]


def test_the_seats_come_back_for_a_later_request() -> None:
    async def run() -> list[int]:
        control = _control(solo=True)
        first = await _get(control)
        await asyncio.sleep(0)  # the turn the seats are held for
        second = await _get(control)
        return [first.status, second.status]

    assert asyncio.run(run()) == [200, 200]


def test_a_new_configuration_routes_a_request_seen_before_anew() -> None:
    async def run() -> tuple[str, str]:
        control = _control(solo=False)
        before = await _get(control)
        assert control.controller is not None
        control.controller.put("prioritylevelconfigurations", _one_seat_level())
        control.controller.put("flowschemas", _schema_for_solo())
        after = await _get(control)
        header = control.schema_header
        return before.headers[header], after.headers[header]

    before, after = asyncio.run(run())
    assert before != "schema-uid" and after == "schema-uid"
