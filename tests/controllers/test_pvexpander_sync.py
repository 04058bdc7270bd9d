"""The persistentvolume-expander controller over seeded caches."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.controllers.pvexpander import MESSAGE, PersistentVolumeExpander
from tests.controllers.fakes import make_context

Obj = dict[str, Any]


def claim(requested: str, capacity: str, phase: str = "Bound") -> Obj:
    return {
        "metadata": {"name": "data", "namespace": "ns"},
        "spec": {"volumeName": "pv-1", "resources": {"requests": {"storage": requested}}},
        "status": {"phase": phase, "capacity": {"storage": capacity}},
    }


def test_a_bound_claim_asking_for_more_gets_the_external_expanding_event() -> None:
    async def scenario() -> None:
        context, client = make_context()
        expander = PersistentVolumeExpander(context)
        client.objects["/api/v1/persistentvolumes/pv-1"] = {"spec": {"claimRef": {"namespace": "ns", "name": "data"}}}
        expander.claims.replace([claim("2Gi", "1Gi")])
        await expander.sync("ns/data")
        ((_, _, event),) = client.events
        assert (event["type"], event["reason"], event["message"]) == ("Warning", "ExternalExpanding", MESSAGE)
        assert event["source"] == {"component": "volume_expand"}

    asyncio.run(scenario())


def test_same_size_unbound_or_misbound_claims_are_left_alone() -> None:
    async def scenario() -> None:
        for seeded, volume in (
            (claim("1Gi", "1Gi"), {}),
            (claim("2Gi", "1Gi", phase="Pending"), {}),
            (claim("2Gi", "1Gi"), {"spec": {"claimRef": {"namespace": "ns", "name": "other"}}}),
        ):
            context, client = make_context()
            expander = PersistentVolumeExpander(context)
            client.objects["/api/v1/persistentvolumes/pv-1"] = volume
            expander.claims.replace([seeded])
            await expander.sync("ns/data")
            assert client.events == []

    asyncio.run(scenario())
