"""Controllers whose flags (or setting) leave them off are accepted and not started, as upstream."""

from __future__ import annotations

import logging

import pytest

from svc.controllers import catalog
from svc.controllers.manager import ControllerManager
from svc.controllers.options import parse_options
from tests.controllers.fakes import make_context


def test_cloud_controllers_storage_version_gc_and_keyless_token_controller_are_not_started() -> None:
    names = [
        "cloud-node-lifecycle-controller",
        "node-route-controller",
        "service-lb-controller",
        "storageversion-garbage-collector-controller",
        "serviceaccount-token-controller",
        "node-ipam-controller",
        "ttl-controller",
    ]
    options = parse_options([f"--controllers={','.join(names)}"])
    context, _ = make_context()
    manager = ControllerManager(context, options.enabled, options, checks=[])
    assert list(manager.controllers) == ["ttl-controller"]


def test_skipped_controllers_are_logged_with_upstreams_lines(caplog: pytest.LogCaptureFixture) -> None:
    chosen = "*,-ttl-controller,cloud-node-lifecycle-controller,podgroup-protection-controller"
    options = parse_options([f"--controllers={chosen}"])
    context, _ = make_context()
    with caplog.at_level(logging.INFO, logger="svc.controllers.manager"):
        ControllerManager(context, catalog.names("svc-apiserver"), options, checks=[])
    lines = caplog.messages
    assert '"Warning: controller is disabled" controller="ttl-controller"' in lines
    assert '"Warning: controller is disabled" controller="token-cleaner-controller"' in lines  # off by default
    podgroup = '"Controller is disabled by a feature gate" controller="podgroup-protection-controller" '
    assert any(line.startswith(podgroup) for line in lines)
    assert '"Warning: skipping controller" controller="podgroup-protection-controller"' in lines
    gated = (
        '"Controller is disabled by a feature gate" controller="storageversion-garbage-collector-controller" '
        'requiredFeatureGates=["APIServerIdentity","StorageVersionAPI"]'
    )
    assert gated in lines
    assert '"Warning: skipping controller" controller="storageversion-garbage-collector-controller"' in lines
    assert '"Skipping a cloud provider controller" controller="cloud-node-lifecycle-controller"' in lines
    assert '"Warning: skipping controller" controller="cloud-node-lifecycle-controller"' in lines
    assert not any('controller="deployment-controller"' in line for line in lines)


def test_a_garbage_collector_turned_off_by_its_flag_is_logged_as_skipped(caplog: pytest.LogCaptureFixture) -> None:
    options = parse_options(["--controllers=garbage-collector-controller", "--enable-garbage-collector=false"])
    context, _ = make_context()
    with caplog.at_level(logging.INFO, logger="svc.controllers.manager"):
        manager = ControllerManager(context, catalog.names("svc-apiserver"), options, checks=[])
    assert not manager.controllers
    assert '"Warning: skipping controller" controller="garbage-collector-controller"' in caplog.messages
