"""The admission chain: upstream's plugin names, order and default set; the flags and the
AdmissionConfiguration file; a rejection's Status."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from svc.apiserver.admission.chain import Chain
from svc.apiserver.admission.config import read_admission_configuration
from svc.apiserver.admission.registry import DEFAULT_OFF, ORDERED_NAMES
from svc.apiserver.options import parse_options
from svc.registry.admission import Attributes
from svc.testing.harness import RunningServer

CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}


def _parse_error(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    with pytest.raises(SystemExit) as exit_info:
        parse_options(list(args))
    assert exit_info.value.code == 2
    return capsys.readouterr().err.strip()


def test_default_plugins_run_in_upstreams_order_whatever_the_flag_order() -> None:
    options = parse_options(["--enable-admission-plugins=AlwaysPullImages,PodNodeSelector"])
    enabled = options.admission.enabled_plugins()
    assert enabled == sorted(enabled, key=ORDERED_NAMES.index)
    assert enabled[:3] == ["NamespaceLifecycle", "LimitRanger", "ServiceAccount"]
    assert enabled[-1] == "ResourceQuota"
    assert {"AlwaysPullImages", "PodNodeSelector"} <= set(enabled)


def test_default_off_plugins_are_upstreams() -> None:
    assert {
        "AlwaysAdmit",
        "NamespaceAutoProvision",
        "NamespaceExists",
        "LimitPodHardAntiAffinityTopology",
        "NodeRestriction",
        "AlwaysPullImages",
        "ImagePolicyWebhook",
        "PodNodeSelector",
        "PodTolerationRestriction",
        "EventRateLimit",
        "ExtendedResourceToleration",
        "OwnerReferencesPermissionEnforcement",
        "DenyServiceExternalIPs",
        "AlwaysDeny",
    } == DEFAULT_OFF


def test_disabled_plugin_leaves_the_chain() -> None:
    options = parse_options(["--disable-admission-plugins=ServiceAccount,ResourceQuota"])
    assert not {"ServiceAccount", "ResourceQuota"} & set(options.admission.enabled_plugins())


def test_unknown_plugin_stops_start_up_with_upstreams_message(capsys: pytest.CaptureFixture[str]) -> None:
    error = _parse_error(capsys, "--enable-admission-plugins=NoSuchPlugin")
    assert error == 'Error: enable-admission-plugins plugin "NoSuchPlugin" is unknown'


def test_plugin_both_enabled_and_disabled_is_rejected(capsys: pytest.CaptureFixture[str]) -> None:
    error = _parse_error(capsys, "--enable-admission-plugins=AlwaysDeny", "--disable-admission-plugins=AlwaysDeny")
    assert error == "Error: [AlwaysDeny] in enable-admission-plugins and disable-admission-plugins overlapped"


def test_admission_control_excludes_the_new_flags(capsys: pytest.CaptureFixture[str]) -> None:
    error = _parse_error(capsys, "--admission-control=AlwaysDeny", "--disable-admission-plugins=LimitRanger")
    assert error == (
        "Error: admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive"
    )


def test_config_file_gives_each_plugin_its_section(tmp_path: Path) -> None:
    (tmp_path / "limits.yaml").write_text("apiVersion: x/v1\nkind: Limits\nqps: 5\n")
    config = tmp_path / "admission.yaml"
    config.write_text(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n"
        "- name: EventRateLimit\n  path: limits.yaml\n"
        "- name: PodSecurity\n  configuration:\n    defaults: {enforce: baseline}\n"
    )
    read = read_admission_configuration(config)
    assert read.for_plugin("EventRateLimit") == {"apiVersion": "x/v1", "kind": "Limits", "qps": 5}
    assert read.for_plugin("PodSecurity") == {"defaults": {"enforce": "baseline"}}
    assert read.for_plugin("LimitRanger") is None


def test_unreadable_config_file_stops_start_up(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "missing.yaml"
    error = _parse_error(capsys, f"--admission-control-config-file={missing}")
    assert error.startswith(f'Error: unable to read admission control configuration from "{missing}"')


def test_always_deny_rejects_with_a_forbidden_status(svc_server_factory: Callable[..., RunningServer]) -> None:
    server = svc_server_factory("--enable-admission-plugins=AlwaysDeny")
    response = server.client().request("POST", "/api/v1/namespaces/default/configmaps", body=CONFIGMAP)
    assert response.status == 403
    body = response.json()
    assert body["reason"] == "Forbidden"
    assert body["message"] == 'configmaps "c" is forbidden: admission control is denying all modifications'
    assert body["details"] == {"name": "c", "kind": "configmaps"}


def test_a_binding_is_admitted_as_the_create_of_its_subresource(
    svc_server_factory: Callable[..., RunningServer],
) -> None:
    server = svc_server_factory("--disable-admission-plugins=ServiceAccount")
    client = server.client()
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "x"}]},
    }
    assert client.request("POST", "/api/v1/namespaces/default/pods", body=pod).status == 201
    seen: list[tuple[str, str, str]] = []

    class Recorder:
        async def validate(self, attributes: Attributes) -> None:
            seen.append((attributes.operation.value, attributes.subresource, (attributes.object or {}).get("kind", "")))

    assert server.server is not None
    server.server.admission = Chain([Recorder()])
    binding = {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": "p"},
        "target": {"kind": "Node", "name": "n1"},
    }
    assert client.request("POST", "/api/v1/namespaces/default/pods/p/binding", body=binding).status == 201
    assert seen == [("CREATE", "binding", "Binding")]


def test_a_bad_plugin_configuration_stops_the_process(tmp_path: Path) -> None:
    config = tmp_path / "admission.yaml"
    config.write_text(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n"
        "- name: EventRateLimit\n  configuration: {limits: []}\n"
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "svc.apiserver",
            f"--data-dir={tmp_path / 'data'}",
            "--enable-admission-plugins=EventRateLimit",
            f"--admission-control-config-file={config}",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "Error: EventRateLimit: limits: Required value: must specify at least one limit"
    )
