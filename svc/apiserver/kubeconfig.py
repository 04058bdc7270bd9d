"""The admin kubeconfig written at start: server address, CA and the admin's credentials, inline: the
admin client certificate, or a bearer token where the generated client CA is not trusted."""

from __future__ import annotations

import base64
from pathlib import Path

from svc.apiserver.pki import Pki
from svc.private_files import write_private
from svc.wire.formats import yaml_dump


def _inline(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode()


def admin_kubeconfig(pki: Pki, *, server: str, cluster: str, user: str, token: str = "") -> dict:
    credentials = (
        {"token": token}
        if token
        else {"client-certificate-data": _inline(pki.admin.cert), "client-key-data": _inline(pki.admin.key)}
    )
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": cluster,
                "cluster": {"server": server, "certificate-authority-data": _inline(pki.serving_ca.cert)},
            }
        ],
        "users": [{"name": user, "user": credentials}],
        "contexts": [{"name": f"{user}@{cluster}", "context": {"cluster": cluster, "user": user}}],
        "current-context": f"{user}@{cluster}",
        "preferences": {},
    }


def write_kubeconfig(path: Path, config: dict) -> None:
    """Owner-only: the file holds the admin's private key."""
    write_private(path, yaml_dump(config).encode())
