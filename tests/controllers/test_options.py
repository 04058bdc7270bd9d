"""Flags of svc-controller-manager: upstream's defaults, and refusals that say what is wrong."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from svc.controllers.main import content_config
from svc.controllers.options import parse_options

BUILT = [
    "serviceaccount-controller",
    "root-ca-certificate-publisher-controller",
    "garbage-collector-controller",
    "namespace-controller",
    "endpoints-controller",
    "endpointslice-controller",
    "resourcequota-controller",
    "pod-garbage-collector-controller",
    "ttl-after-finished-controller",
    "deployment-controller",
    "replicaset-controller",
    "replicationcontroller-controller",
    "job-controller",
    "horizontal-pod-autoscaler-controller",
    "cronjob-controller",
    "daemonset-controller",
    "statefulset-controller",
    "clusterrole-aggregation-controller",
    "persistentvolume-protection-controller",
    "persistentvolumeclaim-protection-controller",
    "ephemeral-volume-controller",
    "node-lifecycle-controller",
    "taint-eviction-controller",
    "disruption-controller",
    "certificatesigningrequest-signing-controller",
    "certificatesigningrequest-approving-controller",
    "certificatesigningrequest-cleaner-controller",
    "ttl-controller",
    "validatingadmissionpolicy-status-controller",
    "serviceaccount-token-controller",
    "legacy-serviceaccount-token-cleaner-controller",
    "endpointslice-mirroring-controller",
    "node-ipam-controller",
    "service-cidr-controller",
    "cloud-node-lifecycle-controller",
    "node-route-controller",
    "service-lb-controller",
    "storageversion-garbage-collector-controller",
    "persistentvolume-attach-detach-controller",
    "resourceclaim-controller",
    "persistentvolume-expander-controller",
    "persistentvolume-binder-controller",
    "volumeattributesclass-protection-controller",
    "device-taint-eviction-controller",
]
# Built, and started only when their feature gates are on (as upstream's requiredFeatureGates).
GATED = {
    "podcertificaterequest-cleaner-controller": "PodCertificateRequest",
    "resourcepoolstatusrequest-controller": "DRAResourcePoolStatus",
    "podgroup-protection-controller": "GenericWorkload",
    "storage-version-migrator-controller": "StorageVersionMigrator",
    "svc-apiserver-serving-clustertrustbundle-publisher-controller": "ClusterTrustBundle",
}


def test_defaults_are_upstreams() -> None:
    options = parse_options([])
    assert options.controllers == ["*"]
    assert options.enabled == BUILT
    assert (options.lease_duration, options.renew_deadline, options.retry_period) == (15.0, 10.0, 2.0)
    assert (options.resource_namespace, options.resource_name) == ("svc-system", "svc-controller-manager")
    assert (options.bind_address, options.secure_port) == ("0.0.0.0", 10257)
    assert (options.api_qps, options.api_burst, options.min_resync_period) == (20.0, 30, 43200.0)


def test_the_kubernetes_profile_spells_the_lease_upstreams_way() -> None:
    options = parse_options(["--brand-profile=kubernetes"])
    assert (options.resource_namespace, options.resource_name) == ("kube-system", "kube-controller-manager")


def test_the_api_content_type_defaults_to_the_brands_protobuf_and_takes_any_value_as_upstream() -> None:
    assert parse_options([]).api_content_type == "application/vnd.svc.protobuf"
    assert parse_options(["--brand-profile=kubernetes"]).api_content_type == "application/vnd.kubernetes.protobuf"
    assert parse_options(["--kube-api-content-type=application/json"]).api_content_type == "application/json"
    assert parse_options(["--svc-api-content-type=text/plain"]).api_content_type == "text/plain"


def test_controllers_by_name_alias_and_exclusion() -> None:
    assert parse_options(["--controllers=serviceaccount"]).enabled == ["serviceaccount-controller"]
    assert parse_options(["--controllers=*,-root-ca-cert-publisher"]).enabled == [BUILT[0], *BUILT[2:]]
    assert parse_options(["--controllers=-serviceaccount-controller,*"]).enabled == BUILT[1:]
    assert parse_options(["--controllers=namespace,garbagecollector"]).enabled == BUILT[2:4]
    assert parse_options(["--controllers=*,-selinux-warning-controller"]).enabled == BUILT


def test_an_unknown_controller_is_refused_with_upstreams_message(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_options(["--controllers=*,frobnicator"])
    assert exit_info.value.code == 1
    assert '"frobnicator" is not in the list of known controllers' in capsys.readouterr().err


def test_every_controller_of_upstreams_list_is_built() -> None:
    from svc.controllers import catalog

    names = catalog.upstream_controllers("svc-apiserver")
    assert len(names) == 52
    assert all(catalog.key(name, "svc-apiserver") in catalog.BUILT for name in names)


def test_leader_election_timing_is_checked(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_options(["--leader-elect-lease-duration=5s", "--leader-elect-renew-deadline=10s"])
    assert "LeaseDuration must be greater than RenewDeadline" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse_options(["--leader-elect-resource-lock=endpoints"])
    assert 'resourceLock value must be "leases"' in capsys.readouterr().err
    assert parse_options(["--leader-elect=false", "--leader-elect-lease-duration=1s"]).leader_elect is False


def test_controllers_off_by_default_are_enabled_only_by_name() -> None:
    off = {"token-cleaner-controller", "bootstrap-signer-controller", "selinux-warning-controller"}
    assert off.isdisjoint(parse_options([]).enabled)
    assert parse_options(["--controllers=*,tokencleaner"]).enabled == [*BUILT, "token-cleaner-controller"]


def test_the_garbage_collector_follows_enable_garbage_collector() -> None:
    assert "garbage-collector-controller" not in parse_options(["--enable-garbage-collector=false"]).enabled


def test_an_unknown_flag_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_options(["--concurrent-foo-syncs=5"])
    assert exit_info.value.code == 2
    assert "unrecognized arguments: --concurrent-foo-syncs=5" in capsys.readouterr().err


def test_concurrent_service_syncs_is_accepted_with_upstreams_default() -> None:
    assert parse_options([]).concurrent_service_syncs == 1
    assert parse_options(["--concurrent-service-syncs=3"]).concurrent_service_syncs == 3


def test_the_volume_and_profiling_flags_have_upstreams_defaults() -> None:
    options = parse_options([])
    assert (options.enable_hostpath_provisioner, options.contention_profiling) == (False, False)
    assert options.flex_volume_plugin_dir == "/usr/libexec/svc/svclet-plugins/volume/exec/"
    upstream = parse_options(["--brand-profile=kubernetes"]).flex_volume_plugin_dir
    assert upstream == "/usr/libexec/kubernetes/kubelet-plugins/volume/exec/"
    given = parse_options(
        ["--enable-hostpath-provisioner", "--flex-volume-plugin-dir=/opt/flex", "--contention-profiling"]
    )
    assert (given.enable_hostpath_provisioner, given.flex_volume_plugin_dir, given.contention_profiling) == (
        True,
        "/opt/flex",
        True,
    )


def test_the_emulated_version_sets_the_feature_gates_release() -> None:
    options = parse_options(["--emulated-version=1.34"])
    assert (options.versioning.emulated, options.versioning.min_compatibility) == ((1, 34), (1, 33))
    assert parse_options([]).versioning.emulated == (1, 36)


def test_an_emulated_version_out_of_range_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_options(["--emulated-version=1.20"])
    assert exit_info.value.code == 1
    assert "emulation version 1.20 is not between [1.33, 1.36]" in capsys.readouterr().err


def test_a_min_compatibility_version_above_the_emulated_one_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_options(["--emulated-version=1.34", "--min-compatibility-version=1.35"])
    assert "minCompatibilityVersion version 1.35 is not between [1.33, 1.34]" in capsys.readouterr().err


def test_vmodule_is_parsed_with_klogs_syntax(capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_options(["--vmodule=garbage*=4,main=2"]).text_output.vmodule == (("garbage*", 4), ("main", 2))
    with pytest.raises(SystemExit):
        parse_options(["--vmodule=main"])
    assert '"main" does not have the pattern=N format' in capsys.readouterr().err


def test_the_alpha_text_log_options_need_their_gate(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_options(["--log-text-split-stream", "--log-text-info-buffer-size=1Mi"])
    error = capsys.readouterr().err
    assert "options.text.splitStream: Forbidden: Feature LoggingAlphaOptions is disabled" in error
    assert "options.text.infoBufferSize: Forbidden: Feature LoggingAlphaOptions is disabled" in error
    output = parse_options(
        ["--feature-gates=LoggingAlphaOptions=true", "--log-text-split-stream", "--log-text-info-buffer-size=1Ki"]
    ).text_output
    assert (output.split_stream, output.info_buffer_size) == (True, 1024)


def test_the_autoscaler_flags_have_upstreams_defaults() -> None:
    options = parse_options(["--horizontal-pod-autoscaler-sync-period=1s", "--horizontal-pod-autoscaler-tolerance=0.2"])
    assert (options.horizontal_pod_autoscaler_sync_period, options.horizontal_pod_autoscaler_tolerance) == (1.0, 0.2)
    defaults = parse_options([])
    assert defaults.horizontal_pod_autoscaler_downscale_stabilization == 300.0
    assert defaults.horizontal_pod_autoscaler_cpu_initialization_period == 300.0
    assert defaults.horizontal_pod_autoscaler_initial_readiness_delay == 30.0


def test_help_names_the_built_controllers(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_options(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    off = ["token-cleaner-controller", "bootstrap-signer-controller", "selinux-warning-controller"]
    built = [*BUILT, *off, *GATED]
    assert f"Controllers built in this release: {', '.join(built)}." in out


def test_the_daemon_without_a_server_to_talk_to_exits_1_saying_so() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "svc.controllers", "--secure-port=0"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr == "Error: no configuration has been provided: give --svcconfig (--kubeconfig) or --master\n"


def test_signing_pairs_must_be_whole_and_a_specific_pair_excludes_the_generic_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        parse_options(["--cluster-signing-key-file=ca.key"])
    assert "cannot specify key without cert" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse_options(
            [
                "--cluster-signing-cert-file=a",
                "--cluster-signing-key-file=b",
                "--cluster-signing-kubelet-client-cert-file=c",
            ]
        )
    error = capsys.readouterr().err
    assert "cannot specify --cluster-signing-{cert,key}-file and other --cluster-signing-*-file flags" in error
    assert "cannot specify cert without key" in error
    options = parse_options(
        ["--cluster-signing-svclet-serving-cert-file=c", "--cluster-signing-kubelet-serving-key-file=k"]
    )
    assert options.cluster_signing_pairs["kubelet-serving"] == ("c", "k")
    assert options.cluster_signing_duration == 8760 * 3600.0


@pytest.mark.parametrize(("name", "gate"), GATED.items())
def test_a_gated_controller_starts_only_with_its_gate(name: str, gate: str) -> None:
    assert name not in parse_options([f"--controllers={name}"]).enabled
    assert parse_options([f"--controllers={name}", f"--feature-gates={gate}=true"]).enabled == [name]
    assert name in parse_options([f"--feature-gates={gate}=true"]).enabled


def test_a_bad_feature_gate_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_options(["--feature-gates=Frobnicate=true"])
    assert exit_info.value.code == 1
    assert "unrecognized feature gate: Frobnicate" in capsys.readouterr().err


def test_only_no_cloud_provider_or_an_external_one_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_options(["--cloud-provider=external", "--cloud-config=/etc/cloud.conf"]).cloud_provider == "external"
    for argv in (["--cloud-provider=aws"], ["--cloud-provider=external", "--external-cloud-volume-plugin=gce"]):
        with pytest.raises(SystemExit) as exit_info:
            parse_options(argv)
        assert exit_info.value.code == 1
        wanted = argv[-1].partition("=")[2]
        expected = f'cloud provider could not be initialized: unknown cloud provider "{wanted}"'
        assert expected in capsys.readouterr().err


def test_the_cloud_controller_flags_have_upstreams_defaults() -> None:
    options = parse_options([])
    assert (options.configure_cloud_routes, options.route_reconciliation_period) == (True, 10.0)
    assert options.cluster_name == "svc"
    assert parse_options(["--brand-profile=kubernetes"]).cluster_name == "kubernetes"


def test_the_batch_periods_and_start_interval_are_durations() -> None:
    options = parse_options(
        [
            "--endpoint-updates-batch-period=1s",
            "--endpointslice-updates-batch-period=2s",
            "--mirroring-endpointslice-updates-batch-period=500ms",
            "--controller-start-interval=1m",
        ]
    )
    assert (
        options.endpoint_updates_batch_period,
        options.endpointslice_updates_batch_period,
        options.mirroring_endpointslice_updates_batch_period,
        options.controller_start_interval,
    ) == (1.0, 2.0, 0.5, 60.0)


def test_the_serving_tls_flags_are_checked_as_the_api_servers(capsys: pytest.CaptureFixture[str]) -> None:
    options = parse_options(
        ["--tls-min-version=VersionTLS13", "--tls-cipher-suites=TLS_AES_128_GCM_SHA256", "--tls-curve-preferences=23"]
    )
    assert (options.tls_min_version, options.tls_cipher_suites, options.tls_curve_preferences) == (
        "VersionTLS13",
        ["TLS_AES_128_GCM_SHA256"],
        [23],
    )
    with pytest.raises(SystemExit):
        parse_options(["--tls-min-version=VersionTLS99", "--tls-cipher-suites=NOPE"])
    error = capsys.readouterr().err
    assert 'unknown tls version "VersionTLS99"' in error
    assert "Cipher suite NOPE not supported or doesn't exist" in error


def test_a_bad_sni_pair_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_options(["--tls-sni-cert-key=only-one-file"])
    assert "expected comma separated certificate and key file paths" in capsys.readouterr().err
    pairs = parse_options(["--tls-sni-cert-key=a.crt,a.key:one.example,two.example"]).tls_sni_cert_keys
    assert [(pair.cert_file, pair.names) for pair in pairs] == [("a.crt", ("one.example", "two.example"))]


def test_only_the_text_log_format_is_offered(capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_options(["--logging-format=text", "--log-flush-frequency=1s"]).log_flush_frequency == 1.0
    with pytest.raises(SystemExit):
        parse_options(["--logging-format=json"])
    assert 'format: Invalid value: "json": Unsupported log format' in capsys.readouterr().err


def test_http2_flags_parse_and_a_negative_stream_limit_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    options = parse_options(["--disable-http2-serving", "--http2-max-streams-per-connection=7"])
    assert (options.disable_http2_serving, options.http2_max_streams_per_connection) == (True, 7)
    with pytest.raises(SystemExit):
        parse_options(["--http2-max-streams-per-connection=-1"])
    assert "--http2-max-streams-per-connection can not be negative value" in capsys.readouterr().err


def test_a_content_type_without_a_serializer_is_said_once_and_json_used(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="svc.controllers"):
        content = content_config(parse_options(["--svc-api-content-type=text/plain"]))
    assert not content.protobuf
    assert caplog.messages == [
        "no serializer for --svc-api-content-type=text/plain: requests are sent as application/json"
    ]
    assert content_config(parse_options([])).protobuf == "application/vnd.svc.protobuf"
