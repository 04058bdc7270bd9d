"""Reading a kubeconfig file: the chosen context's server address and credentials."""

from __future__ import annotations

import base64
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml


class KubeconfigError(ValueError):
    pass


@dataclass(frozen=True)
class ClientConfig:
    server: str
    ca_file: str = ""
    cert_file: str = ""
    key_file: str = ""
    token: str = ""
    username: str = ""
    password: str = ""
    insecure: bool = False
    tls_server_name: str = ""
    namespace: str = ""


def _named(entries: list[dict[str, Any]], name: str, what: str) -> dict[str, Any]:
    for entry in entries or []:
        if entry.get("name") == name:
            return entry.get(what) or {}
    raise KubeconfigError(f'{what} "{name}" not found in the kubeconfig')


def _file(section: dict[str, Any], key: str, base: Path) -> str:
    """A path for `key`, writing `key-data` to a private temporary file when the data is inline."""
    data = section.get(f"{key}-data")
    if data:
        handle = tempfile.NamedTemporaryFile(prefix="svc-", suffix=f".{key}", delete=False)  # noqa: SIM115
        with handle:
            handle.write(base64.b64decode(data))
        os.chmod(handle.name, 0o600)
        return handle.name
    path = section.get(key, "")
    return str(base / path) if path and not os.path.isabs(path) else path


def load_kubeconfig(path: str | Path, *, context: str = "", cluster: str = "", user: str = "") -> ClientConfig:
    path = Path(path)
    try:
        config = yaml.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError) as error:
        raise KubeconfigError(f'error loading config file "{path}": {error}') from None
    if not isinstance(config, dict):
        raise KubeconfigError(f'error loading config file "{path}": not a kubeconfig document')
    context_name = context or config.get("current-context", "")
    if not context_name and not (cluster and user):
        raise KubeconfigError("no context chosen and no current-context set in the kubeconfig")
    chosen = _named(config.get("contexts", []), context_name, "context") if context_name else {}
    cluster_section = _named(config.get("clusters", []), cluster or chosen.get("cluster", ""), "cluster")
    user_name = user or chosen.get("user", "")
    user_section = _named(config.get("users", []), user_name, "user") if user_name else {}
    server = cluster_section.get("server", "")
    if not server:
        raise KubeconfigError("the chosen cluster has no server address")
    base = path.parent
    return ClientConfig(
        server=server,
        ca_file=_file(cluster_section, "certificate-authority", base),
        cert_file=_file(user_section, "client-certificate", base),
        key_file=_file(user_section, "client-key", base),
        token=user_section.get("token", ""),
        username=user_section.get("username", ""),
        password=user_section.get("password", ""),
        insecure=bool(cluster_section.get("insecure-skip-tls-verify")),
        tls_server_name=cluster_section.get("tls-server-name", ""),
        namespace=chosen.get("namespace", ""),
    )
