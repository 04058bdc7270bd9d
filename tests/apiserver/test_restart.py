"""Acknowledged writes survive `kill -9` of the server process, with the same resourceVersions."""

from __future__ import annotations

from svc.testing.harness import stop_process


def test_objects_survive_kill_9(svc_server_process, tmp_path) -> None:
    data_dir = tmp_path / "data"
    server = svc_server_process(data_dir=data_dir)
    api = server.client()
    created = {}
    for index in range(20):
        body = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"cm-{index}"},
            "data": {"i": str(index)},
        }
        response = api.request("POST", "/api/v1/namespaces/default/configmaps", body=body)
        assert response.status == 201
        created[f"cm-{index}"] = response.json()["metadata"]["resourceVersion"]
    stop_process(server, kill=True)
    assert server.process is not None and server.process.returncode == -9

    restarted = svc_server_process(data_dir=data_dir)
    listed = restarted.client().request("GET", "/api/v1/namespaces/default/configmaps").json()
    found = {item["metadata"]["name"]: item["metadata"]["resourceVersion"] for item in listed["items"]}
    assert found == created


def test_certificates_are_reused_after_restart(svc_server_process, tmp_path) -> None:
    data_dir = tmp_path / "data"
    server = svc_server_process(data_dir=data_dir)
    first_ca = (data_dir / "pki" / "ca.crt").read_bytes()
    kubeconfig = server.kubeconfig.read_text()
    port = int(server.url.rsplit(":", 1)[1])
    stop_process(server)
    restarted = svc_server_process(data_dir=data_dir, port=port)
    assert (data_dir / "pki" / "ca.crt").read_bytes() == first_ca
    assert restarted.kubeconfig.read_text() == kubeconfig
    assert restarted.client().request("GET", "/api/v1/namespaces/default").status == 200
