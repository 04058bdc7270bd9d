"""CRDs for the custom resource tests, and installing one until it is Established."""

from __future__ import annotations

import copy
import time
from typing import Any

CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
WIDGETS = "/apis/example.com/v1/namespaces/default/widgets"

WIDGET_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "scope": "Namespaced",
        "names": {
            "plural": "widgets",
            "singular": "widget",
            "kind": "Widget",
            "listKind": "WidgetList",
            "shortNames": ["wd"],
            "categories": ["all"],
        },
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "subresources": {
                    "status": {},
                    "scale": {
                        "specReplicasPath": ".spec.replicas",
                        "statusReplicasPath": ".status.replicas",
                        "labelSelectorPath": ".status.selector",
                    },
                },
                "selectableFields": [{"jsonPath": ".spec.color"}],
                "additionalPrinterColumns": [
                    {"name": "Color", "type": "string", "jsonPath": ".spec.color"},
                    {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
                ],
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "properties": {
                                    "color": {"type": "string"},
                                    "replicas": {"type": "integer"},
                                    "ports": {
                                        "type": "array",
                                        "x-kubernetes-list-type": "map",
                                        "x-kubernetes-list-map-keys": ["name"],
                                        "items": {
                                            "type": "object",
                                            "required": ["name"],
                                            "properties": {
                                                "name": {"type": "string"},
                                                "port": {"type": "integer"},
                                            },
                                        },
                                    },
                                },
                            },
                            "status": {
                                "type": "object",
                                "properties": {
                                    "replicas": {"type": "integer"},
                                    "selector": {"type": "string"},
                                },
                            },
                        },
                    }
                },
            }
        ],
    },
}


def crd(**changes: Any) -> dict[str, Any]:
    """The widget CRD with top-level spec fields changed, and its name following the names."""
    body = copy.deepcopy(WIDGET_CRD)
    body["spec"].update(copy.deepcopy(changes))
    spec = body["spec"]
    body["metadata"]["name"] = f"{spec['names']['plural']}.{spec['group']}"
    return body


def condition(obj: dict[str, Any], kind: str) -> dict[str, Any]:
    return next((c for c in obj.get("status", {}).get("conditions") or [] if c["type"] == kind), {})


def wait_for_condition(
    client, name: str, kind: str, value: str = "True", seconds: float = 10.0, reasons: tuple[str, ...] = ()
) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        current = client.request("GET", f"{CRD_PATH}/{name}").json()
        found = condition(current, kind)
        if found.get("status") == value and (not reasons or found.get("reason") in reasons):
            return current
        if time.monotonic() > deadline:
            return current
        time.sleep(0.02)


def wait_for_status(client, path: str, code: int, seconds: float = 5.0) -> int:
    deadline = time.monotonic() + seconds
    while True:
        found = client.request("GET", path).status
        if found == code or time.monotonic() > deadline:
            return found
        time.sleep(0.02)


def install(client, body: dict[str, Any] | None = None) -> dict[str, Any]:
    body = body or WIDGET_CRD
    created = client.request("POST", CRD_PATH, body=body)
    assert created.status == 201, created.body
    established = wait_for_condition(client, body["metadata"]["name"], "Established")
    assert condition(established, "Established").get("status") == "True", established
    return established


def widget(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name}, "spec": spec}


def wait_gone(client, path: str, seconds: float = 15.0) -> int:
    return wait_for_status(client, path, 404, seconds)
