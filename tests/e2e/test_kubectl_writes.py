"""kubectl's write flows (issue: write semantics): apply, server-side apply, patch types, dry-run,
replace, cascading delete and field validation, with kubectl 1.32 and 1.35."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator

import pytest

from svc.testing.harness import RunningServer, in_process_server, start_controller_manager, stop_controller_manager
from tests.e2e.kubectl_runner import Kubectl

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web, tier: front}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        env:
        - {name: A, value: "1"}
        - {name: B, value: "2"}
"""


@pytest.fixture
def kubectl(svc_server_factory, kubectl_binary) -> Kubectl:
    server = svc_server_factory("--brand-profile=kubernetes")
    return Kubectl(kubectl_binary, server.kubeconfig)


def _get(kubectl: Kubectl, *args: str) -> dict:
    return json.loads(kubectl.run("get", *args, "-o", "json").stdout)


def test_client_side_apply_twice_then_field_removed(kubectl: Kubectl) -> None:
    assert kubectl.run("apply", "-f", "-", stdin=DEPLOYMENT).stdout.strip() == "deployment.apps/web created"
    assert kubectl.run("apply", "-f", "-", stdin=DEPLOYMENT).stdout.strip() == "deployment.apps/web unchanged"
    trimmed = DEPLOYMENT.replace('        - {name: B, value: "2"}\n', "").replace(", tier: front", "")
    assert kubectl.run("apply", "-f", "-", stdin=trimmed).stdout.strip() == "deployment.apps/web configured"
    live = _get(kubectl, "deployment", "web")
    assert live["metadata"]["labels"] == {"app": "web"}
    assert live["spec"]["template"]["spec"]["containers"][0]["env"] == [{"name": "A", "value": "1"}]


def test_server_side_apply_conflict_then_force(kubectl: Kubectl) -> None:
    manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared}\ndata: {key: first}\n"
    kubectl.run("apply", "--server-side", "--field-manager=alice", "-f", "-", stdin=manifest)
    conflicting = manifest.replace("first", "second")
    refused = kubectl.run("apply", "--server-side", "--field-manager=bob", "-f", "-", stdin=conflicting, check=False)
    assert refused.returncode == 1
    assert 'Apply failed with 1 conflict: conflict with "alice": .data.key' in refused.stderr
    kubectl.run("apply", "--server-side", "--field-manager=bob", "--force-conflicts", "-f", "-", stdin=conflicting)
    live = _get(kubectl, "configmap", "shared", "--show-managed-fields")
    assert live["data"] == {"key": "second"}
    owners = {entry["manager"]: entry["fieldsV1"] for entry in live["metadata"]["managedFields"]}
    assert owners["bob"] == {"f:data": {"f:key": {}}}


@pytest.mark.parametrize(
    ("patch_type", "patch"),
    [
        ("json", '[{"op": "replace", "path": "/spec/replicas", "value": 5}]'),
        ("merge", '{"spec": {"replicas": 5}}'),
        ("strategic", '{"spec": {"replicas": 5}}'),
    ],
)
def test_patch_types(kubectl: Kubectl, patch_type: str, patch: str) -> None:
    kubectl.run("apply", "-f", "-", stdin=DEPLOYMENT)
    kubectl.run("patch", "deployment", "web", f"--type={patch_type}", "-p", patch)
    assert _get(kubectl, "deployment", "web")["spec"]["replicas"] == 5


def test_strategic_patch_merges_containers_by_name(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=DEPLOYMENT)
    patch = '{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox"}]}}}}'
    kubectl.run("patch", "deployment", "web", "--type=strategic", "-p", patch)
    containers = _get(kubectl, "deployment", "web")["spec"]["template"]["spec"]["containers"]
    assert [container["name"] for container in containers] == ["sidecar", "nginx"]


def test_create_dry_run_server_stores_nothing(kubectl: Kubectl) -> None:
    result = kubectl.run("create", "configmap", "dry", "--from-literal=a=b", "--dry-run=server")
    assert result.stdout.strip() == "configmap/dry created (server dry run)"
    assert kubectl.run("get", "configmap", "dry", check=False).returncode == 1


def test_replace(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=DEPLOYMENT)
    live = _get(kubectl, "deployment", "web")
    live["spec"]["replicas"] = 7
    kubectl.run("replace", "-f", "-", stdin=json.dumps(live))
    assert _get(kubectl, "deployment", "web")["spec"]["replicas"] == 7


def _owner_with_dependent(kubectl: Kubectl, owner: str, dependent: str) -> None:
    kubectl.run("create", "configmap", owner)
    uid = _get(kubectl, "configmap", owner)["metadata"]["uid"]
    body = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": dependent,
            "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": owner, "uid": uid}],
        },
    }
    kubectl.run("create", "-f", "-", stdin=json.dumps(body))


def _gone(kubectl: Kubectl, name: str, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if kubectl.run("get", "configmap", name, check=False).returncode == 1:
            return True
        time.sleep(0.1)
    return False


@pytest.fixture(scope="module")
def collected_server(tmp_path_factory) -> Iterator[RunningServer]:
    """One server with the garbage collector beside it, for every cascade case of this module."""
    directory = tmp_path_factory.mktemp("collected")
    with in_process_server(directory / "data", "--brand-profile=kubernetes") as server:
        daemon = start_controller_manager(
            server,
            "--brand-profile=kubernetes",
            "--controllers=garbage-collector-controller",
            log=directory / "controller-manager.log",
        )
        try:
            yield server
        finally:
            stop_controller_manager(daemon)


_CASES = itertools.count()


@pytest.mark.parametrize(
    ("cascade", "dependent_kept"), [("orphan", True), ("foreground", False), ("background", False)]
)
def test_delete_cascade(kubectl_binary, collected_server, cascade: str, dependent_kept: bool) -> None:
    """Cascading is the garbage collector's work, which runs in the controller daemon."""
    kubectl = Kubectl(kubectl_binary, collected_server.kubeconfig)
    case = next(_CASES)  # one server serves every case: each has its own objects
    owner, dependent = f"owner-{case}", f"dependent-{case}"
    _owner_with_dependent(kubectl, owner, dependent)
    kubectl.run("delete", "configmap", owner, f"--cascade={cascade}", "--timeout=30s")
    assert _gone(kubectl, owner)
    if dependent_kept:
        assert "ownerReferences" not in _get(kubectl, "configmap", dependent)["metadata"]
    else:
        assert _gone(kubectl, dependent)


UNKNOWN_FIELD = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: odd}\ndata: {a: b}\nsurprise: true\n"


def test_validate_strict_rejects_unknown_field(kubectl: Kubectl) -> None:
    result = kubectl.run("create", "--validate=strict", "-f", "-", stdin=UNKNOWN_FIELD, check=False)
    assert result.returncode == 1
    assert 'unknown field "surprise"' in result.stderr
    assert kubectl.run("get", "configmap", "odd", check=False).returncode == 1


def test_validate_warn_prints_the_warning(kubectl: Kubectl) -> None:
    result = kubectl.run("create", "--validate=warn", "-f", "-", stdin=UNKNOWN_FIELD)
    assert 'Warning: unknown field "surprise"' in result.stderr
    assert _get(kubectl, "configmap", "odd")["data"] == {"a": "b"}
