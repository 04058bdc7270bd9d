"""Controllers whose flags (or setting) leave them off are accepted and not started, as upstream."""

from __future__ import annotations

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
