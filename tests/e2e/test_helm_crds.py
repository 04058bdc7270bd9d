"""Helm installs a chart whose `crds/` folder defines the kind its templates create (issue 14)."""

from __future__ import annotations

import subprocess
from pathlib import Path

CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: backups.ops.example.com
spec:
  group: ops.example.com
  scope: Namespaced
  names: {plural: backups, singular: backup, kind: Backup}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              schedule: {type: string}
"""

CHART = {
    "Chart.yaml": "apiVersion: v2\nname: backups\nversion: 0.1.0\n",
    "values.yaml": "schedule: '@daily'\n",
    "crds/backup.yaml": CRD,
    "templates/backup.yaml": (
        "apiVersion: ops.example.com/v1\nkind: Backup\nmetadata:\n  name: {{ .Release.Name }}-nightly\n"
        "spec:\n  schedule: {{ .Values.schedule | quote }}\n"
    ),
}


def test_a_chart_with_crds_installs_its_custom_resources(svc_server_factory, helm_binary, tmp_path: Path) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    for relative, text in CHART.items():
        path = tmp_path / "backups" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    env = {"HOME": str(tmp_path), "KUBECONFIG": str(server.kubeconfig), "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [helm_binary, "install", "backups", str(tmp_path / "backups")],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    backup = server.client().request("GET", "/apis/ops.example.com/v1/namespaces/default/backups/backups-nightly")
    assert backup.status == 200, backup.body
    assert backup.json()["spec"] == {"schedule": "@daily"}
