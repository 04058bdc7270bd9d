"""Reading a kubeconfig file: the chosen context's server address and credentials."""

from __future__ import annotations

import base64
import binascii
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml


class KubeconfigError(ValueError):
    pass


@dataclass(frozen=True)
class ClientConfig:
    """Where to connect and as whom. Inline credentials stay in memory (`*_data`); see client/tls.py."""

    server: str
    ca_file: str = ""
    cert_file: str = ""
    key_file: str = ""
    ca_data: bytes = b""
    cert_data: bytes = b""
    key_data: bytes = b""
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
    """The path given for `key`, relative to the kubeconfig's directory; empty when the data is inline."""
    if section.get(f"{key}-data"):
        return ""
    path = section.get(key, "")
    return str(base / path) if path and not os.path.isabs(path) else path


def _data(section: dict[str, Any], key: str) -> bytes:
    """The inline `key-data`, which takes precedence over a file, as client-go's loader has it."""
    data = section.get(f"{key}-data")
    if not data:
        return b""
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, TypeError, ValueError):
        raise KubeconfigError(f"{key}-data: illegal base64 data") from None


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
        ca_data=_data(cluster_section, "certificate-authority"),
        cert_data=_data(user_section, "client-certificate"),
        key_data=_data(user_section, "client-key"),
        token=user_section.get("token", ""),
        username=user_section.get("username", ""),
        password=user_section.get("password", ""),
        insecure=bool(cluster_section.get("insecure-skip-tls-verify")),
        tls_server_name=cluster_section.get("tls-server-name", ""),
        namespace=chosen.get("namespace", ""),
    )
