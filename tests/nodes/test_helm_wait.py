"""Helm 4 against a cluster that runs pods: `install --wait` waits for the Deployment to be ready, and
`helm test` runs the chart's test pod to success."""

from __future__ import annotations

import subprocess
from pathlib import Path

CHART = {
    "Chart.yaml": "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
    "templates/deployment.yaml": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}-web\nspec:\n"
        "  replicas: 2\n  selector:\n    matchLabels: {app: web}\n  template:\n"
        "    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n"
        "      - name: web\n        image: nginx:1.27\n"
    ),
    "templates/service.yaml": (
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}-web\nspec:\n"
        "  selector: {app: web}\n  ports:\n  - port: 80\n"
    ),
    "templates/tests/connection.yaml": (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}-test\n"
        "  annotations:\n    helm.sh/hook: test\nspec:\n  restartPolicy: Never\n  containers:\n"
        "  - name: wget\n    image: busybox\n    command: [wget, '{{ .Release.Name }}-web:80']\n"
    ),
}


def test_helm_install_waits_for_readiness_and_helm_test_passes(
    svc_server_factory, svc_controller_manager, svc_nodes, helm_binary, tmp_path: Path
) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    svc_controller_manager(server, "--brand-profile=kubernetes")
    svc_nodes(server, "--brand-profile=kubernetes", "--run-time=300ms", count=2)
    for relative, text in CHART.items():
        path = tmp_path / "shop" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    env = {"HOME": str(tmp_path), "KUBECONFIG": str(server.kubeconfig), "PATH": "/usr/bin:/bin"}

    def helm(*args: str) -> subprocess.CompletedProcess[str]:
        result = subprocess.run([helm_binary, *args], capture_output=True, text=True, timeout=120, env=env, check=False)
        assert result.returncode == 0, result.stderr
        return result

    helm("install", "shop", str(tmp_path / "shop"), "--wait", "--timeout=60s")
    deployment = server.client().request("GET", "/apis/apps/v1/namespaces/default/deployments/shop-web").json()
    assert deployment["status"]["readyReplicas"] == 2
    tested = helm("test", "shop", "--timeout=60s")
    assert "Phase:          Succeeded" in tested.stdout
