"""ABAC policies: both file formats, upstream's matching rules, and bad files stop start-up."""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
import sys

import orjson
import pytest

from svc.apiserver.authz.abac import AbacAuthorizer, PolicyFileError, load_policy_file
from svc.apiserver.authz.authorizer import Attributes, Decision
from svc.client.rest import RestClient
from svc.registry.admission import UserInfo

ALICE = UserInfo("alice", groups=("devs", "system:authenticated"))
BOB = UserInfo("bob", groups=("system:authenticated",))


def v1beta1(**spec: object) -> str:
    policy = {"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": spec}
    return orjson.dumps(policy).decode()


def authorizer(tmp_path, *lines: str) -> AbacAuthorizer:
    path = tmp_path / "policy.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return AbacAuthorizer(load_policy_file(str(path)))


def decide(abac: AbacAuthorizer, user: UserInfo, verb: str, resource: str = "", namespace: str = "", path: str = ""):
    attributes = Attributes(
        user=user, verb=verb, is_resource_request=bool(resource), namespace=namespace, resource=resource, path=path
    )
    return asyncio.run(abac.authorize(attributes))[0]


def test_a_user_policy_allows_that_user_only(tmp_path):
    abac = authorizer(tmp_path, v1beta1(user="alice", namespace="*", resource="*", apiGroup="*"))
    assert decide(abac, ALICE, "create", "pods", "ns") is Decision.ALLOW
    assert decide(abac, BOB, "create", "pods", "ns") is Decision.NO_OPINION


def test_a_read_only_policy_allows_get_list_and_watch_only(tmp_path):
    abac = authorizer(tmp_path, v1beta1(group="devs", readonly=True, namespace="ns", resource="pods", apiGroup=""))
    assert decide(abac, ALICE, "list", "pods", "ns") is Decision.ALLOW
    assert decide(abac, ALICE, "delete", "pods", "ns") is Decision.NO_OPINION
    assert decide(abac, ALICE, "list", "pods", "other") is Decision.NO_OPINION


def test_a_star_user_in_v1beta1_means_every_authenticated_user(tmp_path):
    abac = authorizer(tmp_path, v1beta1(user="*", nonResourcePath="/healthz"))
    assert decide(abac, BOB, "get", path="/healthz") is Decision.ALLOW
    anonymous = UserInfo("system:anonymous", groups=("system:unauthenticated",))
    assert decide(abac, anonymous, "get", path="/healthz") is Decision.NO_OPINION


def test_a_non_resource_path_with_a_trailing_star_matches_by_prefix(tmp_path):
    abac = authorizer(tmp_path, v1beta1(user="bob", nonResourcePath="/apis/*"))
    assert decide(abac, BOB, "get", path="/apis/apps") is Decision.ALLOW
    assert decide(abac, BOB, "get", path="/api") is Decision.NO_OPINION


def test_an_unversioned_line_without_subject_or_resource_allows_everything_to_authenticated_users(tmp_path):
    abac = authorizer(tmp_path, "# comment", "", '{"readonly": true}')
    assert decide(abac, BOB, "get", "secrets", "ns") is Decision.ALLOW
    assert decide(abac, BOB, "get", path="/version") is Decision.ALLOW
    assert decide(abac, BOB, "create", "secrets", "ns") is Decision.NO_OPINION


def test_a_bad_line_is_reported_with_its_number(tmp_path):
    path = tmp_path / "policy.jsonl"
    path.write_text(v1beta1(user="alice") + "\n" + '{"user": 3}\n')
    with pytest.raises(PolicyFileError, match=rf"^error reading policy file {path}, line 2: \{{\"user\": 3\}}: "):
        load_policy_file(str(path))


def _start(*flags: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from svc.apiserver.options import parse_options; parse_options(sys.argv[1:])"
    return subprocess.run([sys.executable, "-c", code, *flags], capture_output=True, text=True, timeout=60)


def test_abac_without_a_policy_file_stops_start_up():
    result = _start("--authorization-mode=ABAC")
    assert result.returncode == 2
    assert result.stderr == "Error: authorization-mode ABAC's authorization policy file not passed\n"


def test_a_policy_file_without_abac_stops_start_up(tmp_path):
    path = tmp_path / "policy.jsonl"
    path.write_text(v1beta1(user="alice") + "\n")
    result = _start(f"--authorization-policy-file={path}")
    assert result.returncode == 2
    assert result.stderr == "Error: cannot specify --authorization-policy-file without mode ABAC\n"


def test_the_server_authorizes_by_the_policy_file(svc_server_factory, tmp_path):
    tokens = tmp_path / "tokens.csv"
    tokens.write_text("alice-token,alice,u1\nbob-token,bob,u2\n")
    policy = tmp_path / "policy.jsonl"
    policy.write_text(v1beta1(user="alice", readonly=True, namespace="*", resource="namespaces", apiGroup="") + "\n")
    server = svc_server_factory(
        f"--token-auth-file={tokens}", "--authorization-mode=ABAC", f"--authorization-policy-file={policy}"
    )
    config = server.anonymous_client().config
    alice = RestClient(dataclasses.replace(config, token="alice-token"))
    try:
        assert alice.request("GET", "/api/v1/namespaces").status == 200
        denied = alice.request("POST", "/api/v1/namespaces", body={"metadata": {"name": "x"}})
    finally:
        alice.close()
    assert denied.status == 403
    assert denied.json()["message"].endswith(": No policy matched.")
