"""The metrics flags (--disabled-metrics, --allow-metric-labels(-manifest), --show-hidden-metrics-for-version),
/metrics behind authorization, and /metrics/slis."""

from __future__ import annotations

import dataclasses

import pytest
from prometheus_client import CollectorRegistry, Gauge
from prometheus_client.parser import text_string_to_metric_families

from svc.apiserver.metrics_exposition import Exposition
from svc.apiserver.metrics_options import MetricsOptions
from svc.apiserver.options import parse_options
from svc.client.rest import RestClient

PATH = "/api/v1/namespaces/default/configmaps"


def _families(api, path: str = "/metrics") -> dict:
    response = api.request("GET", path)
    assert response.status == 200
    return {family.name: family for family in text_string_to_metric_families(response.body.decode())}


def test_a_disabled_metric_is_left_out_and_counted(svc_server_factory) -> None:
    server = svc_server_factory("--disabled-metrics=apiserver_request_total,apiserver_longrunning_requests")
    families = _families(server.client())
    assert "apiserver_request" not in families
    assert "apiserver_longrunning_requests" not in families
    assert "apiserver_request_duration_seconds" in families
    assert families["disabled_metrics"].samples[0].value == 2


def test_label_values_outside_the_allow_list_are_unexpected(svc_server_factory) -> None:
    server = svc_server_factory("--allow-metric-labels=apiserver_request_total,verb=POST,GET")
    api = server.client()
    api.request("GET", PATH)
    api.request("GET", PATH + "/missing")
    samples = _families(api)["apiserver_request"].samples
    verbs = {sample.labels["verb"] for sample in samples}
    assert "LIST" not in verbs
    assert "unexpected" in verbs
    assert "GET" in verbs


def test_the_manifest_gives_the_allow_list_and_the_flag_overrides_it(svc_server_factory, tmp_path) -> None:
    manifest = tmp_path / "allow.yaml"
    manifest.write_text("apiserver_request_total,verb: POST\n")
    server = svc_server_factory(f"--allow-metric-labels-manifest={manifest}")
    api = server.client()
    api.request("GET", PATH)
    verbs = {sample.labels["verb"] for sample in _families(api)["apiserver_request"].samples}
    assert verbs == {"unexpected"}
    options = parse_options([f"--allow-metric-labels-manifest={manifest}", "--allow-metric-labels=a,b=c"])
    assert options.metrics.allow_list == {"a": {"b": frozenset({"c"})}}


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        (
            "--show-hidden-metrics-for-version=1.34",
            "--show-hidden-metrics-for-version must be omitted or have the value '1.35'. "
            "Only the previous minor version is allowed",
        ),
        (
            "--disabled-metrics=bad-name",
            '--disabled-metrics must be fully qualified metric names matching "^[a-zA-Z_:][a-zA-Z0-9_:]*$", '
            'got "bad-name"',
        ),
        (
            "--allow-metric-labels=nolabel=a",
            "--allow-metric-labels must have a list of kv pair with format "
            "`metricName,labelName=labelValue, labelValue,...`",
        ),
    ],
)
def test_bad_metrics_flags_are_refused_with_upstreams_message(flag, message, capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        parse_options([flag])
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err


def test_hidden_metrics_show_only_for_the_previous_minor_version() -> None:
    registry = CollectorRegistry()
    Gauge("old_metric", "[ALPHA] Old.", registry=registry).set(1)
    Gauge("recent_metric", "[ALPHA] Recent.", registry=registry).set(1)
    deprecated = {"old_metric": 35, "recent_metric": 36}

    def names(options: MetricsOptions) -> dict[str, str]:
        exposition = Exposition(registry, options, current_minor=36, deprecated=deprecated)
        return {family.name: family.documentation for family in exposition.collect() if family.samples}

    shown = names(MetricsOptions())
    assert "old_metric" not in shown
    assert shown["recent_metric"] == "[ALPHA] (Deprecated since 1.36.0) Recent."
    assert "old_metric" in names(MetricsOptions(show_hidden=True))
    assert "old_metric" not in names(MetricsOptions(show_hidden=True, disabled=frozenset({"old_metric"})))


def test_metrics_need_get_on_the_non_resource_url(svc_server_factory, tmp_path) -> None:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text('plain-token,plain,u1\nmonitor-token,prom,u2,"system:monitoring"\n')
    server = svc_server_factory(f"--token-auth-file={tokens}", "--authorization-mode=RBAC")

    def status_as(token: str, path: str) -> int:
        client = RestClient(dataclasses.replace(server.anonymous_client().config, token=token))
        try:
            return client.request("GET", path).status
        finally:
            client.close()

    assert status_as("plain-token", "/metrics") == 403
    assert status_as("monitor-token", "/metrics") == 200
    assert status_as("monitor-token", "/metrics/slis") == 200


def test_slis_report_each_health_check_run(svc_server) -> None:
    api = svc_server.client()
    assert api.request("GET", "/readyz").status == 200
    families = _families(api, "/metrics/slis")
    results = families["kubernetes_healthcheck"].samples
    assert any(s.labels["type"] == "readyz" and s.labels["name"] == "ping" and s.value == 1 for s in results)
    totals = families["kubernetes_healthchecks"].samples
    assert any(s.labels == {"name": "ping", "type": "readyz", "status": "success"} and s.value >= 1 for s in totals)
    assert "apiserver_request" not in families


def test_counters_named_without_total_take_flags_by_their_upstream_name(svc_server_factory) -> None:
    server = svc_server_factory(
        "--allow-metric-labels=authentication_attempts,result=failure", "--disabled-metrics=authenticated_user_requests"
    )
    api = server.client()
    api.request("GET", PATH)
    text = api.request("GET", "/metrics").body.decode()
    assert 'authentication_attempts{result="unexpected"}' in text
    assert "authenticated_user_requests" not in text
