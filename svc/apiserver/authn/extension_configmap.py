"""The `extension-apiserver-authentication` ConfigMap in the system namespace, as upstream publishes it.

Aggregated API servers and webhooks read it to learn which client CA the API server trusts and how
to trust front-proxy requests it forwards: `client-ca-file` (PEM), and with a request-header CA the
`requestheader-client-ca-file` (PEM) and the header and allowed-name lists as JSON arrays. Written at
every start, so it reflects the flags the server runs with.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import serialization

from svc.apiserver.authn.request_header import RequestHeaderConfig
from svc.registry.admission import NoAdmission, UserInfo
from svc.registry.options import WriteOptions
from svc.registry.store import GenericStore

NAME = "extension-apiserver-authentication"


def _pem(certificates: list[x509.Certificate]) -> str:
    return b"".join(c.public_bytes(serialization.Encoding.PEM) for c in certificates).decode()


def _json_list(values: tuple[str, ...]) -> str:
    return json.dumps(list(values), separators=(",", ":"))


def configmap_data(
    client_cas: list[x509.Certificate],
    request_header: RequestHeaderConfig | None,
    request_header_cas: list[x509.Certificate],
) -> dict[str, str]:
    data = {"client-ca-file": _pem(client_cas)} if client_cas else {}
    if request_header is not None and request_header_cas:
        data["requestheader-client-ca-file"] = _pem(request_header_cas)
        data["requestheader-username-headers"] = _json_list(request_header.username_headers)
        data["requestheader-uid-headers"] = _json_list(request_header.uid_headers)
        data["requestheader-group-headers"] = _json_list(request_header.group_headers)
        data["requestheader-extra-headers-prefix"] = _json_list(request_header.extra_prefixes)
        data["requestheader-allowed-names"] = _json_list(request_header.allowed_names)
    return data


async def publish(store: GenericStore, namespace: str, data: dict[str, str], user: UserInfo) -> None:
    """Create the ConfigMap or replace its data with `data`."""
    expected: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": NAME, "namespace": namespace},
        "data": data,
    }

    async def update(current: dict[str, Any] | None) -> dict[str, Any]:
        if current is None:
            return copy.deepcopy(expected)
        updated = copy.deepcopy(current)
        updated["data"] = dict(data)
        return updated

    await store.update(
        namespace, NAME, update, admission=NoAdmission(), user=user, options=WriteOptions(), allow_create=True
    )
