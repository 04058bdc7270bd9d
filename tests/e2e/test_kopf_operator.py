"""A real operator framework (kopf) reacting to ConfigMap create, update and delete."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

OPERATOR = textwrap.dedent(
    """
    import json
    import kopf

    LOG = {log!r}

    def record(kind, name, value):
        with open(LOG, "a") as handle:
            handle.write(json.dumps([kind, name, value]) + "\\n")

    @kopf.on.startup()
    def configure(settings, **_):
        settings.persistence.finalizer = "example.com/kopf-finalizer"

    @kopf.on.create("v1", "configmaps", labels={{"watched": "yes"}})
    def created(name, body, **_):
        record("create", name, body.get("data", {{}}).get("v"))

    @kopf.on.update("v1", "configmaps", labels={{"watched": "yes"}})
    def updated(name, body, **_):
        record("update", name, body.get("data", {{}}).get("v"))

    @kopf.on.delete("v1", "configmaps", labels={{"watched": "yes"}})
    def deleted(name, **_):
        record("delete", name, None)
    """
)


def _events(log: Path) -> list[list]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def _wait_for(log: Path, count: int) -> list[list]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        events = _events(log)
        if len(events) >= count:
            return events
        time.sleep(0.2)
    return _events(log)


def test_kopf_operator_reacts(svc_server_factory, tmp_path: Path) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    api = server.client()
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
        body = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "op", "labels": {"watched": "yes"}},
            "data": {"v": "1"},
        }
        assert api.request("POST", "/api/v1/namespaces/default/configmaps", body=body).status == 201
        assert _wait_for(log, 1)[:1] == [["create", "op", "1"]]
        patch = {"data": {"v": "2"}}
        api.request(
            "PATCH", "/api/v1/namespaces/default/configmaps/op", body=patch, content_type="application/merge-patch+json"
        )
        assert _wait_for(log, 2)[1] == ["update", "op", "2"]
        api.request("DELETE", "/api/v1/namespaces/default/configmaps/op")
        assert _wait_for(log, 3)[2] == ["delete", "op", None]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if api.request("GET", "/api/v1/namespaces/default/configmaps/op").status == 404:
                break
            time.sleep(0.2)
        assert api.request("GET", "/api/v1/namespaces/default/configmaps/op").status == 404
    finally:
        process.terminate()
        try:
            output, _ = process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
        print(output)
