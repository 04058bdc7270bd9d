"""Sharded list and watch (spec 1 §4.9) behind the ShardedListAndWatch gate."""

from __future__ import annotations

import pytest

from svc.machinery.shards import shard_hash
from tests.apiserver.watch_client import WatchReader

PATH = "/api/v1/namespaces/default/configmaps"
LOW = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
HIGH = "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')"


def _fill(client, count: int = 12) -> set[str]:
    for index in range(count):
        client.request("POST", PATH, body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"s{index}"}})
    return {item["metadata"]["name"] for item in client.request("GET", PATH).json()["items"]}


@pytest.fixture
def sharded(svc_server_factory):
    return svc_server_factory("--feature-gates=ShardedListAndWatch=true").client()


def test_disjoint_ranges_union_to_the_full_list(sharded) -> None:
    everything = _fill(sharded)
    low = sharded.request("GET", PATH, params={"shardSelector": LOW}).json()
    high = sharded.request("GET", PATH, params={"shardSelector": HIGH}).json()
    low_names = {item["metadata"]["name"] for item in low["items"]}
    high_names = {item["metadata"]["name"] for item in high["items"]}
    assert low_names.isdisjoint(high_names)
    assert low_names | high_names == everything
    for item in low["items"]:
        assert shard_hash(item, "object.metadata.uid") < 2**63
    assert low["metadata"]["shardInfo"] == {"selector": LOW}


def test_ranges_joined_by_or(sharded) -> None:
    everything = _fill(sharded)
    both = sharded.request("GET", PATH, params={"shardSelector": f"{LOW} || {HIGH}"}).json()
    assert {item["metadata"]["name"] for item in both["items"]} == everything


def test_malformed_selector_is_400(sharded) -> None:
    response = sharded.request("GET", PATH, params={"shardSelector": "shardRange(object.metadata.name, '0x0', '0x1')"})
    assert response.status == 400
    assert response.json()["message"].startswith("invalid shard selector: ")


def test_gate_off_ignores_the_selector(svc_server) -> None:
    client = svc_server.client()
    everything = _fill(client, 4)
    response = client.request("GET", PATH, params={"shardSelector": "not even parsed"}).json()
    assert {item["metadata"]["name"] for item in response["items"]} == everything
    assert "shardInfo" not in response["metadata"]


def test_watch_is_filtered(svc_server_factory) -> None:
    server = svc_server_factory("--feature-gates=ShardedListAndWatch=true")
    client = server.client()
    version = client.request("GET", PATH).json()["metadata"]["resourceVersion"]
    watch = WatchReader(server.client(), PATH, {"resourceVersion": version, "shardSelector": LOW})
    created = [
        client.request(
            "POST", PATH, body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"w{i}"}}
        ).json()
        for i in range(10)
    ]
    expected = [c["metadata"]["name"] for c in created if shard_hash(c, "object.metadata.uid") < 2**63]
    seen = [event["object"]["metadata"]["name"] for event in watch.take(len(expected))]
    assert seen == expected
