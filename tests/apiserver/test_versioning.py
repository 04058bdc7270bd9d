"""Versioning flags (spec 2 part 9): `--emulated-version` and its companions are checked with upstream's
texts; an emulated version shows in `/version` and withholds the APIs introduced after it."""

from __future__ import annotations

import re

import pytest

from svc.apiserver.options import parse_options


def _error(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    with pytest.raises(SystemExit) as caught:
        parse_options(list(args))
    assert caught.value.code == 2
    return capsys.readouterr().err.strip()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--emulated-version=1.32"], "emulation version 1.32 is not between [1.33, 1.36]"),
        (["--emulated-version=1.37"], "emulation version 1.37 is not between [1.33, 1.36]"),
        (
            ["--emulated-version=1.34", "--min-compatibility-version=1.35"],
            "minCompatibilityVersion version 1.35 is not between [1.33, 1.34]",
        ),
        (["--emulated-version=1.35.1"], "patch version not allowed, got: svc=1.35.1"),
        (["--emulated-version=wardle=1.2"], "component not registered: wardle"),
        (["--emulated-version=1.34,svc=1.35"], "duplicate version flag, svc=1.34 and svc=1.35"),
        (["--emulated-version=next"], 'could not parse "next" as version'),
        (
            ["--emulation-forward-compatible"],
            "ServerRunOptions.EmulationForwardCompatible cannot be set to true if the emulation version is the "
            "same as the binary version",
        ),
        (
            ["--runtime-config-emulation-forward-compatible=true"],
            "ServerRunOptions.RuntimeConfigEmulationForwardCompatible cannot be set to true if the emulation "
            "version is the same as the binary version",
        ),
    ],
)
def test_bad_versions_are_refused_with_upstream_texts(capsys, args: list[str], message: str) -> None:
    assert message in _error(capsys, *args)


def test_the_minimum_compatibility_version_follows_the_emulated_version() -> None:
    options = parse_options(["--emulated-version=svc=1.34"]).versioning
    assert (options.emulated, options.min_compatibility) == ((1, 34), (1, 33))
    assert parse_options(["--emulated-version=1.33"]).versioning.min_compatibility == (1, 33)  # not below the floor
    assert parse_options([]).versioning.min_compatibility == (1, 35)


def test_version_reports_the_emulated_and_min_compatibility_versions(svc_server_factory) -> None:
    running = svc_server_factory("--emulated-version=1.34")
    info = running.client().request("GET", "/version").json()
    assert (info["major"], info["minor"]) == ("1", "36")
    assert (info["emulationMajor"], info["emulationMinor"]) == ("1", "34")
    assert (info["minCompatibilityMajor"], info["minCompatibilityMinor"]) == ("1", "33")


def _resources(client, group_version: str) -> set[str] | None:
    response = client.request("GET", f"/apis/{group_version}")
    return {entry["name"] for entry in response.json()["resources"]} if response.status == 200 else None


def test_apis_introduced_after_the_emulated_version_are_not_served(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes", "--emulated-version=1.33").client()
    assert _resources(client, "resource.k8s.io/v1") is None
    storage = _resources(client, "storage.k8s.io/v1")
    assert "storageclasses" in storage
    assert "volumeattributesclasses" not in storage
    assert client.request("GET", "/apis/storage.k8s.io/v1/volumeattributesclasses").status == 404


def test_mutating_admission_policies_are_ga_only_from_1_36(svc_server_factory) -> None:
    older = svc_server_factory("--brand-profile=kubernetes", "--emulated-version=1.35").client()
    assert "mutatingadmissionpolicies" not in _resources(older, "admissionregistration.k8s.io/v1")
    assert "validatingadmissionpolicies" in _resources(older, "admissionregistration.k8s.io/v1")
    current = svc_server_factory("--brand-profile=kubernetes").client()
    assert "mutatingadmissionpolicies" in _resources(current, "admissionregistration.k8s.io/v1")


def test_forward_compatibility_serves_newer_versions_of_an_enabled_beta(svc_server_factory) -> None:
    beta = "--runtime-config=resource.k8s.io/v1beta2=true"
    plain = svc_server_factory("--brand-profile=kubernetes", "--emulated-version=1.33", beta).client()
    assert "resourceclaims" in _resources(plain, "resource.k8s.io/v1beta2")
    assert _resources(plain, "resource.k8s.io/v1") is None
    forward = svc_server_factory(
        "--brand-profile=kubernetes", "--emulated-version=1.33", beta, "--emulation-forward-compatible"
    ).client()
    assert "resourceclaims" in _resources(forward, "resource.k8s.io/v1")


def test_runtime_config_naming_a_later_version_needs_runtime_config_forward_compatibility(svc_server_factory) -> None:
    args = ("--brand-profile=kubernetes", "--emulated-version=1.33", "--runtime-config=resource.k8s.io/v1=true")
    with pytest.raises(ValueError, match=re.escape("cannot enable version resource.k8s.io/v1 in runtime-config")):
        svc_server_factory(*args)
    client = svc_server_factory(*args, "--runtime-config-emulation-forward-compatible").client()
    assert "resourceclaims" in _resources(client, "resource.k8s.io/v1")


def test_feature_gate_defaults_follow_the_emulated_version() -> None:
    current = parse_options([]).feature_gates
    assert current.enabled("PodTopologyLabelsAdmission")  # beta, on since 1.35
    assert current.enabled("NodeDeclaredFeatures")  # beta, on in 1.36
    older = parse_options(["--emulated-version=1.34"]).feature_gates
    assert not older.enabled("PodTopologyLabelsAdmission")  # alpha in 1.34
    assert not older.enabled("NodeDeclaredFeatures")  # introduced in 1.35
    assert older.enabled("TokenRequestServiceAccountUIDValidation")  # beta since 1.34
    assert not parse_options(["--emulated-version=1.33"]).feature_gates.enabled(
        "TokenRequestServiceAccountUIDValidation"
    )


def test_all_alpha_switches_the_gates_alpha_at_the_emulated_version() -> None:
    gates = parse_options(["--emulated-version=1.34", "--feature-gates=AllAlpha=true"]).feature_gates
    assert gates.enabled("PodTopologyLabelsAdmission")  # alpha in 1.34
    assert not gates.enabled("NodeDeclaredFeatures")  # did not exist in 1.34


def test_a_gate_from_after_the_emulated_version_cannot_be_set(capsys) -> None:
    message = _error(capsys, "--emulated-version=1.34", "--feature-gates=NodeDeclaredFeatures=true")
    assert (
        "cannot set feature gate NodeDeclaredFeatures to true, feature is PreAlpha at emulated version 1.34, "
        "min compatibility version 1.33" in message
    )


def test_gates_introduced_as_beta_in_1_36_are_off_when_emulating_1_35() -> None:
    assert parse_options([]).feature_gates.enabled("StaleControllerConsistencyJob")
    older = parse_options(["--emulated-version=1.35"]).feature_gates
    assert not older.enabled("StaleControllerConsistencyJob")  # beta, on, from 1.36
    assert not older.enabled("DeclarativeValidationBeta")  # beta, on, from 1.36
    assert not parse_options(["--emulated-version=1.34"]).feature_gates.enabled(
        "WatchListClient"
    )  # beta, off until 1.35
