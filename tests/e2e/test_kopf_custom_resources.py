"""kopf runs an operator on a CRD: it reacts to create, update and delete of custom resources and
writes their status through the status subresource (issue 14)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tests.apiserver.crd.crds import WIDGETS, crd, install, widget

OPERATOR = textwrap.dedent(
    """
    import json
    import kopf

    LOG = {log!r}

    def record(kind, name, value):
        with open(LOG, "a") as handle:
            handle.write(json.dumps([kind, name, value]) + "\\n")

    @kopf.on.create("example.com", "v1", "widgets")
    def created(name, spec, **_):
        record("create", name, spec.get("color"))
        return {{"seen": spec.get("color")}}

    @kopf.on.update("example.com", "v1", "widgets")
    def updated(name, spec, **_):
        record("update", name, spec.get("color"))

    @kopf.on.delete("example.com", "v1", "widgets")
    def deleted(name, **_):
        record("delete", name, None)
    """
)


def _events(log: Path) -> list[list]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _wait_for(log: Path, count: int) -> list[list]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(_events(log)) < count:
        time.sleep(0.2)
    return _events(log)


def _crd_keeping_any_status() -> dict:
    """kopf writes handler results under status: the schema must keep them (as upstream prunes too)."""
    version = crd()["spec"]["versions"][0]
    version["schema"]["openAPIV3Schema"]["properties"]["status"]["x-kubernetes-preserve-unknown-fields"] = True
    return crd(versions=[version])


def test_kopf_operator_on_a_crd(svc_server_factory, tmp_path: Path) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    api = server.client()
    install(api, _crd_keeping_any_status())
    log = tmp_path / "events.jsonl"
    operator = tmp_path / "operator.py"
    operator.write_text(OPERATOR.format(log=str(log)))
    env = {**os.environ, "KUBECONFIG": str(server.kubeconfig)}
    process = subprocess.Popen(
        [sys.executable, "-m", "kopf", "run", "--standalone", "-n", "default", str(operator)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        time.sleep(2)
        assert api.request("POST", WIDGETS, body=widget("w", color="red")).status == 201
        assert _wait_for(log, 1)[:1] == [["create", "w", "red"]]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            current = api.request("GET", f"{WIDGETS}/w").json()
            if (current.get("status") or {}).get("created"):
                break
            time.sleep(0.2)
        assert current["status"]["created"] == {"seen": "red"}
        api.request(
            "PATCH", f"{WIDGETS}/w", body={"spec": {"color": "blue"}}, content_type="application/merge-patch+json"
        )
        assert _wait_for(log, 2)[1] == ["update", "w", "blue"]
        api.request("DELETE", f"{WIDGETS}/w")
        assert _wait_for(log, 3)[2] == ["delete", "w", None]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and api.request("GET", f"{WIDGETS}/w").status != 404:
            time.sleep(0.2)
        assert api.request("GET", f"{WIDGETS}/w").status == 404
    finally:
        process.terminate()
        try:
            output, _ = process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
        print(output)
