"""An API server on a real etcd: the slice of behaviour that depends on the store (CRUD, paging,
resourceVersions, watch), upstream's key layout, etcd going away and coming back, and two API servers
sharing one etcd. `SVC_TEST_STORE=etcd` runs the rest of the suite on etcd as well."""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.request
from collections.abc import Callable

import pytest

from svc.storage.errors import StorageError
from svc.storage.etcd.backend import EtcdBackend, answers_progress_in_order
from svc.testing.etcd import EtcdProcess, wait_status
from svc.testing.harness import RunningServer
from tests.e2e.kubectl_runner import Kubectl

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
Factory = Callable[..., RunningServer]


def _configmap(name: str, **data: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def _keys(etcd: EtcdProcess, start: str, end: str) -> list[str]:
    async def read() -> list[str]:
        backend = EtcdBackend([etcd.url])
        await backend.start()
        try:
            return [kv.key for kv in (await backend.range(start, end)).kvs]
        finally:
            await backend.close()

    return asyncio.run(read())


def test_crud_with_resource_versions_that_are_etcd_revisions(
    svc_server_factory: Factory, etcd_process: EtcdProcess
) -> None:
    client = svc_server_factory(*etcd_process.server_flags()).client()
    created = client.request("POST", CONFIGMAPS, body=_configmap("a", x="1"))
    assert created.status == 201
    version = created.json()["metadata"]["resourceVersion"]
    updated = client.request("PUT", f"{CONFIGMAPS}/a", body={**created.json(), "data": {"x": "2"}})
    assert updated.status == 200
    assert int(updated.json()["metadata"]["resourceVersion"]) > int(version)
    stale = client.request("PUT", f"{CONFIGMAPS}/a", body={**created.json(), "data": {"x": "3"}})
    assert stale.status == 409
    assert stale.json()["reason"] == "Conflict"
    assert client.request("GET", f"{CONFIGMAPS}/a").json()["data"] == {"x": "2"}
    assert client.request("DELETE", f"{CONFIGMAPS}/a").status == 200
    assert client.request("GET", f"{CONFIGMAPS}/a").status == 404
    assert client.request("POST", CONFIGMAPS, body=_configmap("a")).status == 201
    assert client.request("POST", CONFIGMAPS, body=_configmap("a")).json()["reason"] == "AlreadyExists"


def test_objects_are_stored_under_the_prefix_one_key_each(
    svc_server_factory: Factory, etcd_process: EtcdProcess
) -> None:
    client = svc_server_factory(*etcd_process.server_flags("/mine")).client()
    assert client.request("POST", CONFIGMAPS, body=_configmap("stored")).status == 201
    keys = _keys(etcd_process, "/mine/", "/mine0")
    assert [key for key in keys if key.endswith("/default/stored")] == ["/mine/configmaps/default/stored"]


def test_paging_reads_one_revision_and_an_exact_old_revision(
    svc_server_factory: Factory, etcd_process: EtcdProcess
) -> None:
    client = svc_server_factory(*etcd_process.server_flags()).client()
    for index in range(5):
        assert client.request("POST", CONFIGMAPS, body=_configmap(f"p{index}")).status == 201
    first = client.request("GET", CONFIGMAPS, params={"limit": 2}).json()
    listed_at = first["metadata"]["resourceVersion"]
    assert client.request("POST", CONFIGMAPS, body=_configmap("p9")).status == 201
    names = [item["metadata"]["name"] for item in first["items"]]
    page = first
    for _ in range(5):
        token = page["metadata"].get("continue")
        if not token:
            break
        page = client.request("GET", CONFIGMAPS, params={"limit": 2, "continue": token}).json()
        assert page["metadata"]["resourceVersion"] == listed_at
        names += [item["metadata"]["name"] for item in page["items"]]
    assert names == [f"p{index}" for index in range(5)]
    exact = client.request("GET", CONFIGMAPS, params={"resourceVersion": listed_at, "resourceVersionMatch": "Exact"})
    assert [item["metadata"]["name"] for item in exact.json()["items"]] == names


def test_watch_from_a_resource_version_sees_later_changes(
    svc_server_factory: Factory, etcd_process: EtcdProcess
) -> None:
    client = svc_server_factory(*etcd_process.server_flags()).client()
    version = client.request("GET", CONFIGMAPS).json()["metadata"]["resourceVersion"]
    assert client.request("POST", CONFIGMAPS, body=_configmap("w")).status == 201
    stream = client.stream(CONFIGMAPS, params={"watch": "1", "resourceVersion": version, "timeoutSeconds": 10})
    assert client.request("DELETE", f"{CONFIGMAPS}/w").status == 200
    seen = []
    for line in stream:
        seen.append(json.loads(line)["type"])
        if len(seen) == 2:
            break
    stream.close()
    assert seen == ["ADDED", "DELETED"]


def test_get_reads_etcd_without_a_resource_version_and_the_cache_with_zero(
    svc_server_factory: Factory, etcd_process: EtcdProcess
) -> None:
    """Upstream serves a GET without resourceVersion from etcd, not the watch cache: a value written
    behind a halted cache's back is what it returns, while `resourceVersion=0` still shows the cache's."""
    running = svc_server_factory(*etcd_process.server_flags())
    client = running.client()
    created = client.request("POST", CONFIGMAPS, body=_configmap("behind", x="1"))
    assert created.status == 201
    assert running.server is not None and running.loop is not None
    store = running.server.store_for("", "configmaps")
    assert store.cache is not None
    revision = int(created.json()["metadata"]["resourceVersion"])
    assert asyncio.run_coroutine_threadsafe(store.cache.wait_for(revision, 10), running.loop).result(15)
    running.loop.call_soon_threadsafe(store.cache.halt)
    key = store.key("default", "behind")
    value = store.objects.encode({**created.json(), "data": {"x": "2"}})

    async def write_behind() -> None:
        backend = EtcdBackend([etcd_process.url])
        await backend.start()
        try:
            await backend.update(key, value, expected_revision=revision)
        finally:
            await backend.close()

    asyncio.run(write_behind())
    assert client.request("GET", f"{CONFIGMAPS}/behind").json()["data"] == {"x": "2"}
    cached = client.request("GET", f"{CONFIGMAPS}/behind", params={"resourceVersion": "0"})
    assert cached.json()["data"] == {"x": "1"}


def _lists_from_storage(client) -> float:
    text = client.request("GET", "/metrics").body.decode()
    for line in text.splitlines():
        if line.startswith("apiserver_storage_list_total{") and 'resource="configmaps"' in line:
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_consistent_lists_come_from_the_cache_only_with_an_etcd_that_answers_progress_in_order(
    svc_server_factory: Factory, etcd_process: EtcdProcess
) -> None:
    running = svc_server_factory(*etcd_process.server_flags())
    assert running.server is not None and running.server.backend is not None
    backend = running.server.backend
    with urllib.request.urlopen(f"{etcd_process.url}/version", timeout=10) as answer:
        version = json.load(answer)["etcdserver"]
    assert backend.progress_on_demand is answers_progress_in_order(version)
    client = running.client()

    def listed_names() -> set[str]:
        return {item["metadata"]["name"] for item in client.request("GET", CONFIGMAPS).json()["items"]}

    backend.progress_on_demand = False  # an etcd before 3.4.31/3.5.13: consistent lists read etcd
    assert client.request("POST", CONFIGMAPS, body=_configmap("first")).status == 201
    before = _lists_from_storage(client)
    assert "first" in listed_names()
    assert _lists_from_storage(client) == before + 1
    backend.progress_on_demand = True  # a newer etcd: from the watch cache, once it has caught up
    assert client.request("POST", CONFIGMAPS, body=_configmap("second")).status == 201
    assert {"first", "second"} <= listed_names()
    assert _lists_from_storage(client) == before + 1


def test_kubectl_apply_and_get_on_etcd(svc_server_factory: Factory, etcd_process: EtcdProcess) -> None:
    from tests.conftest import TOOLS

    server = svc_server_factory("--brand-profile=kubernetes", *etcd_process.server_flags())
    kubectl = Kubectl(str(TOOLS / "kubectl"), server.kubeconfig)
    manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  k: v\n"
    assert kubectl.run("apply", "-f", "-", stdin=manifest).stdout.strip() == "configmap/applied created"
    assert kubectl.run("get", "configmap", "applied", "-o", "jsonpath={.data.k}").stdout == "v"
    keys = _keys(etcd_process, "/registry/", "/registry0")
    assert "/registry/configmaps/default/applied" in keys


def test_etcd_down_gives_503_and_readyz_fails_then_recovers_with_every_write(
    svc_server_factory: Factory, etcd_process: EtcdProcess
) -> None:
    client = svc_server_factory(*etcd_process.server_flags(), "--request-timeout=3s").client()
    acknowledged = []
    for index in range(20):
        if client.request("POST", CONFIGMAPS, body=_configmap(f"before-{index}")).status == 201:
            acknowledged.append(f"before-{index}")
    etcd_process.kill()
    down = client.request("POST", CONFIGMAPS, body=_configmap("while-down"))
    assert down.status == 503
    assert down.json()["reason"] == "ServiceUnavailable"
    assert wait_status(client, "/readyz", 500) == 500
    etcd_process.start()
    assert wait_status(client, "/readyz", 200) == 200
    after = client.request("POST", CONFIGMAPS, body=_configmap("after"))
    assert after.status == 201
    acknowledged.append("after")
    names = {item["metadata"]["name"] for item in client.request("GET", CONFIGMAPS).json()["items"]}
    assert set(acknowledged) <= names
    assert "while-down" not in names


def test_a_watch_on_one_api_server_sees_a_write_through_another(
    svc_server_factory: Factory, etcd_process: EtcdProcess
) -> None:
    first = svc_server_factory(*etcd_process.server_flags()).client()
    second = svc_server_factory(*etcd_process.server_flags()).client()
    version = second.request("GET", CONFIGMAPS).json()["metadata"]["resourceVersion"]
    stream = second.stream(CONFIGMAPS, params={"watch": "1", "resourceVersion": version, "timeoutSeconds": 10})
    seen: list[dict] = []

    def read() -> None:
        for line in stream:
            event = json.loads(line)
            if event["object"]["metadata"]["name"] == "shared":
                seen.append(event)
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    created = first.request("POST", CONFIGMAPS, body=_configmap("shared"))
    assert created.status == 201
    reader.join(timeout=15)
    stream.close()
    assert [event["type"] for event in seen] == ["ADDED"]
    assert seen[0]["object"]["metadata"]["resourceVersion"] == created.json()["metadata"]["resourceVersion"]
    assert second.request("GET", f"{CONFIGMAPS}/shared").status == 200


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--storage-backend=store3"], "--store-servers must be specified"),
        (["--store-servers=http://127.0.0.1:1", "--store-servers-overrides=events#x"], "group/resource#servers"),
    ],
)
def test_bad_store_flags_are_refused(flags: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    from svc.apiserver.options import parse_options

    with pytest.raises(SystemExit):
        parse_options(flags)
    assert message in capsys.readouterr().err


def test_metrics_report_the_etcd_database_size_and_object_counts(
    svc_server_factory: Factory, etcd_process: EtcdProcess
) -> None:
    client = svc_server_factory(*etcd_process.server_flags()).client()
    assert client.request("POST", CONFIGMAPS, body=_configmap("counted")).status == 201
    lines = client.request("GET", "/metrics").body.decode().splitlines()
    sizes = [line for line in lines if line.startswith("apiserver_storage_size_bytes{storage_cluster_id=")]
    assert len(sizes) == 1
    assert float(sizes[0].split()[-1]) > 0
    assert any(line.startswith('apiserver_resource_objects{group="",resource="configmaps"}') for line in lines)


def test_an_unreachable_etcd_at_start_is_a_clear_error(svc_server_factory: Factory) -> None:
    from svc.testing.harness import free_port

    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(StorageError, match=f"cannot reach etcd at {url} within 1s"):
        svc_server_factory("--storage-backend=store3", f"--store-servers={url}", "--storage-initialization-timeout=1s")


def test_an_overridden_resource_is_stored_on_its_own_etcd(
    svc_server_factory: Factory, etcd_process: EtcdProcess, etcd_session: EtcdProcess
) -> None:
    override = f"--store-servers-overrides=/configmaps#{etcd_session.url}"
    client = svc_server_factory(*etcd_process.server_flags("/split"), override).client()
    assert client.request("POST", CONFIGMAPS, body=_configmap("elsewhere")).status == 201
    assert (
        client.request("POST", "/api/v1/namespaces/default/secrets", body={"metadata": {"name": "here"}}).status == 201
    )
    assert "/split/configmaps/default/elsewhere" in _keys(etcd_session, "/split/", "/split0")
    assert "/split/configmaps/default/elsewhere" not in _keys(etcd_process, "/split/", "/split0")
    assert "/split/secrets/default/here" in _keys(etcd_process, "/split/", "/split0")
    assert client.request("GET", f"{CONFIGMAPS}/elsewhere").status == 200


def test_a_watch_list_on_one_server_starts_with_a_write_just_made_through_another(
    svc_server_factory: Factory, etcd_process: EtcdProcess
) -> None:
    first = svc_server_factory(*etcd_process.server_flags()).client()
    second = svc_server_factory(*etcd_process.server_flags()).client()
    names = {f"listed-{index}" for index in range(5)}
    for name in sorted(names):
        assert first.request("POST", CONFIGMAPS, body=_configmap(name)).status == 201
    params = {"watch": "1", "sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan"}
    stream = second.stream(CONFIGMAPS, params={**params, "allowWatchBookmarks": "true", "timeoutSeconds": 10})
    added: set[str] = set()
    bookmark: dict = {}
    for line in stream:
        event = json.loads(line)
        if event["type"] == "BOOKMARK":
            bookmark = event["object"]
            break
        added.add(event["object"]["metadata"]["name"])
    stream.close()
    assert names <= added
    assert bookmark["metadata"]["annotations"] == {"svc.io/initial-events-end": "true"}
