"""Helpers of the admission plugin tests: objects to create and a client of a fresh server."""

from __future__ import annotations

from typing import Any

from svc.client.rest import Response, RestClient

Obj = dict[str, Any]


def pod(name: str = "p", *containers: Obj, **spec: Any) -> Obj:
    containers = containers or ({"name": "c", "image": "nginx"},)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": list(containers), **spec},
    }


def service_account(name: str = "default", **fields: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}, **fields}


def core_path(resource: str, namespace: str = "default", name: str = "") -> str:
    base = f"/api/v1/namespaces/{namespace}/{resource}" if namespace else f"/api/v1/{resource}"
    return f"{base}/{name}" if name else base


def create(client: RestClient, resource: str, obj: Obj, namespace: str = "default") -> Response:
    return client.request("POST", core_path(resource, namespace), body=obj)


def created(client: RestClient, resource: str, obj: Obj, namespace: str = "default") -> Obj:
    response = create(client, resource, obj, namespace)
    assert response.status == 201, response.body
    return response.json()


def warning_texts(response: Response) -> list[str]:
    """The texts of a response's `Warning: 299 - "..."` headers, unquoted."""
    return [w.removeprefix('299 - "').removesuffix('"').replace('\\"', '"') for w in response.warnings]
