"""/metrics: upstream's request, object and process metrics in Prometheus text format (issue 20 part 2)."""

from __future__ import annotations

import time

from prometheus_client.parser import text_string_to_metric_families

PATH = "/api/v1/namespaces/default/configmaps"


def _samples(api) -> list:
    response = api.request("GET", "/metrics")
    assert response.status == 200
    assert response.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    return [sample for family in text_string_to_metric_families(response.body.decode()) for sample in family.samples]


def _value(samples, name: str, **labels) -> float:
    found = [s.value for s in samples if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())]
    return sum(found)


def test_the_request_counter_moves_with_upstream_labels(svc_server) -> None:
    api = svc_server.client()
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "one"}}
    api.request("POST", PATH, body=body)
    api.request("POST", PATH, body=body)
    api.request("GET", PATH)
    samples = _samples(api)
    created = {"verb": "POST", "resource": "configmaps", "scope": "namespace", "component": "apiserver"}
    assert _value(samples, "apiserver_request_total", code="201", **created) == 1
    assert _value(samples, "apiserver_request_total", code="409", **created) == 1
    assert _value(samples, "apiserver_request_total", verb="LIST", resource="configmaps", code="200") == 1
    assert _value(samples, "apiserver_request_duration_seconds_count", verb="POST", resource="configmaps") == 2


def test_object_counts_and_process_metrics(svc_server) -> None:
    api = svc_server.client()
    for name in ("a", "b", "c"):
        api.request("POST", PATH, body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}})
    samples = _samples(api)
    # The three, plus the extension-apiserver-authentication and legacy token tracking ConfigMaps the
    # server publishes.
    assert _value(samples, "apiserver_resource_objects", group="", resource="configmaps") == 5
    assert _value(samples, "apiserver_resource_objects", group="", resource="namespaces") == 4
    assert _value(samples, "process_resident_memory_bytes") > 0


def test_a_watch_is_a_long_running_request_while_it_runs(svc_server) -> None:
    watcher = svc_server.client(timeout=30.0)
    stream = watcher.stream(PATH, params={"watch": "true", "timeoutSeconds": "5"})
    api = svc_server.client()
    deadline = time.monotonic() + 5
    running = 0.0
    while time.monotonic() < deadline and not running:
        running = _value(_samples(api), "apiserver_longrunning_requests", verb="WATCH", resource="configmaps")
    assert running == 1
    stream.close()


def test_the_deprecated_object_count_shows_only_with_the_hidden_metrics_of_the_previous_version(
    svc_server, svc_server_factory
) -> None:
    assert _value(_samples(svc_server.client()), "apiserver_storage_objects", resource="namespaces") == 0
    shown = svc_server_factory("--show-hidden-metrics-for-version=1.35")
    samples = _samples(shown.client())
    assert _value(samples, "apiserver_storage_objects", resource="namespaces") == 4
    assert _value(samples, "hidden_metrics_total") == 0


def test_watch_events_are_counted_with_their_sizes(svc_server) -> None:
    api = svc_server.client()
    watcher = svc_server.client(timeout=30.0)
    stream = watcher.stream(PATH, params={"watch": "true", "timeoutSeconds": "5"})
    for name in ("w1", "w2"):
        api.request("POST", PATH, body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}})
    deadline = time.monotonic() + 5
    sent = 0.0
    labels = {"group": "", "version": "v1", "resource": "configmaps"}
    while time.monotonic() < deadline and sent < 2:
        sent = _value(_samples(api), "apiserver_watch_events_total", **labels)
    stream.close()
    samples = _samples(api)
    assert sent >= 2
    assert _value(samples, "apiserver_watch_events_sizes_count", **labels) == sent
    assert _value(samples, "apiserver_watch_events_sizes_sum", **labels) > 100 * sent


def test_response_sizes_of_reads(svc_server) -> None:
    api = svc_server.client()
    api.request("GET", PATH)
    api.request("POST", PATH, body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "sized"}})
    samples = _samples(api)
    assert _value(samples, "apiserver_response_sizes_count", verb="LIST", resource="configmaps") == 1
    assert _value(samples, "apiserver_response_sizes_sum", verb="LIST", resource="configmaps") > 50
    assert _value(samples, "apiserver_response_sizes_count", verb="POST", resource="configmaps") == 0


def test_store_requests_are_timed_and_counted_per_operation_and_resource(svc_server) -> None:
    api = svc_server.client()
    configmaps = {"group": "", "resource": "configmaps"}
    before = _value(_samples(api), "etcd_requests_total", operation="create", **configmaps)
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "stored"}}
    api.request("POST", PATH, body=body)
    api.request("POST", PATH, body=body)  # exists: an answer of the store, not an error
    api.request("DELETE", PATH + "/stored")
    samples = _samples(api)
    assert _value(samples, "etcd_requests_total", operation="create", **configmaps) == before + 2
    assert _value(samples, "etcd_request_duration_seconds_count", operation="create", **configmaps) == before + 2
    assert _value(samples, "etcd_requests_total", operation="delete", **configmaps) == 1
    assert _value(samples, "etcd_request_errors_total", **configmaps) == 0
    assert _value(samples, "etcd_requests_total", operation="list", group="", resource="namespaces") >= 1


def test_lists_served_from_storage_count_the_objects_read_and_returned(svc_server) -> None:
    api = svc_server.client()
    for name, tier in (("l1", "web"), ("l2", "web"), ("l3", "db")):
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {"tier": tier}}}
        api.request("POST", PATH, body=body)
    version = api.request("GET", PATH).json()["metadata"]["resourceVersion"]
    params = {"labelSelector": "tier=web", "resourceVersion": version, "resourceVersionMatch": "Exact"}
    assert len(api.request("GET", PATH, params=params).json()["items"]) == 2
    samples = _samples(api)
    configmaps = {"group": "", "resource": "configmaps"}
    assert _value(samples, "apiserver_storage_list_total", **configmaps) == 1
    assert _value(samples, "apiserver_storage_list_fetched_objects_total", **configmaps) == 3
    assert _value(samples, "apiserver_storage_list_evaluated_objects_total", **configmaps) == 3
    assert _value(samples, "apiserver_storage_list_returned_objects_total", **configmaps) == 2


def test_a_watch_the_client_ends_counts_the_status_it_sent(svc_server) -> None:
    watcher = svc_server.client(timeout=30.0)
    stream = watcher.stream(PATH, params={"watch": "true"})
    api = svc_server.client()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not _value(_samples(api), "apiserver_longrunning_requests", verb="WATCH"):
        time.sleep(0.02)
    stream.close()
    watched = {"verb": "WATCH", "resource": "configmaps"}
    counted = 0.0
    while time.monotonic() < deadline and not counted:
        counted = sum(_value(_samples(api), "apiserver_request_total", code=code, **watched) for code in ("200", "500"))
    assert _value(_samples(api), "apiserver_request_total", code="200", **watched) == 1
    assert _value(_samples(api), "apiserver_request_total", code="500", **watched) == 0
