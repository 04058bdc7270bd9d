"""Generate svc/api/resource_table.json from the upstream OpenAPI v2 document.

The OpenAPI document tells, for every built-in resource, its group, version, kind, plural,
scope, verbs and subresources (from the paths and their `x-kubernetes-action` and
`x-kubernetes-group-version-kind` extensions). It does not carry short names and categories:
those are upstream facts listed below by hand.

Usage: python tools/gen_resource_table.py [path/to/swagger.json]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SWAGGER = ROOT.parent / "shared" / "upstream-openapi" / "swagger-v1.36.json"
OUTPUT = ROOT / "svc" / "api" / "resource_table.json"

# Upstream short names (release-1.36), keyed by (group, resource).
SHORT_NAMES: dict[tuple[str, str], list[str]] = {
    ("", "componentstatuses"): ["cs"],
    ("", "configmaps"): ["cm"],
    ("", "endpoints"): ["ep"],
    ("", "events"): ["ev"],
    ("", "limitranges"): ["limits"],
    ("", "namespaces"): ["ns"],
    ("", "nodes"): ["no"],
    ("", "persistentvolumeclaims"): ["pvc"],
    ("", "persistentvolumes"): ["pv"],
    ("", "pods"): ["po"],
    ("", "replicationcontrollers"): ["rc"],
    ("", "resourcequotas"): ["quota"],
    ("", "serviceaccounts"): ["sa"],
    ("", "services"): ["svc"],
    ("apiextensions.k8s.io", "customresourcedefinitions"): ["crd", "crds"],
    ("apps", "daemonsets"): ["ds"],
    ("apps", "deployments"): ["deploy"],
    ("apps", "replicasets"): ["rs"],
    ("apps", "statefulsets"): ["sts"],
    ("autoscaling", "horizontalpodautoscalers"): ["hpa"],
    ("batch", "cronjobs"): ["cj"],
    ("certificates.k8s.io", "certificatesigningrequests"): ["csr"],
    ("events.k8s.io", "events"): ["ev"],
    ("networking.k8s.io", "ingresses"): ["ing"],
    ("networking.k8s.io", "networkpolicies"): ["netpol"],
    ("networking.k8s.io", "ipaddresses"): ["ip"],
    ("policy", "poddisruptionbudgets"): ["pdb"],
    ("scheduling.k8s.io", "priorityclasses"): ["pc"],
    ("storage.k8s.io", "storageclasses"): ["sc"],
    ("storage.k8s.io", "volumeattributesclasses"): ["vac"],
}

# Upstream categories (release-1.36), keyed by (group, resource).
CATEGORIES: dict[tuple[str, str], list[str]] = {
    ("", "pods"): ["all"],
    ("", "replicationcontrollers"): ["all"],
    ("", "services"): ["all"],
    ("apps", "daemonsets"): ["all"],
    ("apps", "deployments"): ["all"],
    ("apps", "replicasets"): ["all"],
    ("apps", "statefulsets"): ["all"],
    ("autoscaling", "horizontalpodautoscalers"): ["all"],
    ("batch", "cronjobs"): ["all"],
    ("batch", "jobs"): ["all"],
    ("apiextensions.k8s.io", "customresourcedefinitions"): ["api-extensions"],
    ("apiregistration.k8s.io", "apiservices"): ["api-extensions"],
    ("admissionregistration.k8s.io", "mutatingwebhookconfigurations"): ["api-extensions"],
    ("admissionregistration.k8s.io", "validatingwebhookconfigurations"): ["api-extensions"],
    ("admissionregistration.k8s.io", "validatingadmissionpolicies"): ["api-extensions"],
    ("admissionregistration.k8s.io", "validatingadmissionpolicybindings"): ["api-extensions"],
    ("admissionregistration.k8s.io", "mutatingadmissionpolicies"): ["api-extensions"],
    ("admissionregistration.k8s.io", "mutatingadmissionpolicybindings"): ["api-extensions"],
}

ACTION_VERBS = {
    "get": "get",
    "list": "list",
    "post": "create",
    "put": "update",
    "patch": "patch",
    "delete": "delete",
    "deletecollection": "deletecollection",
    "watch": "watch",
    "watchlist": "watch",
}


def _split(path: str) -> tuple[str, str, bool, str, bool, str] | None:
    """Return (group, version, namespaced, resource, has_name, subresource) for a resource path."""
    parts = path.strip("/").split("/")
    if parts[0] == "api" and len(parts) >= 3:
        group, version, rest = "", parts[1], parts[2:]
    elif parts[0] == "apis" and len(parts) >= 4:
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        return None
    if rest[0] == "watch":
        rest = rest[1:]
    namespaced = False
    if len(rest) >= 3 and rest[0] == "namespaces" and rest[1] == "{namespace}":
        namespaced, rest = True, rest[2:]
    resource = rest[0]
    has_name = len(rest) > 1 and rest[1] == "{name}"
    subresource = "/".join(rest[2:]) if has_name else ""
    return group, version, namespaced, resource, has_name, subresource


def _ref_name(operation: dict) -> str:
    schema = operation.get("responses", {}).get("200", {}).get("schema", {})
    if not schema:
        schema = operation.get("responses", {}).get("201", {}).get("schema", {})
    return schema.get("$ref", "").rsplit("/", 1)[-1]


def generate(swagger: dict) -> list[dict]:
    rows: dict[tuple[str, str, str], dict] = {}
    for path, item in swagger["paths"].items():
        split = _split(path)
        if split is None:
            continue
        group, version, namespaced, resource, _, subresource = split
        if subresource.startswith("proxy/"):
            continue
        row = rows.setdefault(
            (group, version, resource),
            {
                "group": group,
                "version": version,
                "resource": resource,
                "kind": "",
                "namespaced": False,
                "verbs": set(),
                "definition": "",
                "listDefinition": "",
                "deleteReturnsObject": False,
                "subresources": {},
            },
        )
        row["namespaced"] = row["namespaced"] or namespaced
        for method, op in item.items():
            if method == "parameters":
                continue
            action = op.get("x-kubernetes-action")
            gvk = op.get("x-kubernetes-group-version-kind", {})
            if subresource:
                sub = row["subresources"].setdefault(
                    subresource,
                    {
                        "kind": gvk.get("kind", ""),
                        "group": gvk.get("group", ""),
                        "version": gvk.get("version", ""),
                        "verbs": set(),
                        "definition": "",
                    },
                )
                if action in ACTION_VERBS:
                    sub["verbs"].add(ACTION_VERBS[action])
                elif action == "connect":
                    sub["verbs"].add(method)
                if action in ("get", "put", "post") and not sub["definition"]:
                    sub["definition"] = _ref_name(op)
                continue
            if action in ACTION_VERBS:
                row["verbs"].add(ACTION_VERBS[action])
            if gvk and not row["kind"]:
                row["kind"] = gvk["kind"]
            if action == "list":
                row["listDefinition"] = _ref_name(op)
            if action == "delete":
                row["deleteReturnsObject"] = _ref_name(op) != "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
            if action in ("get", "post") and not row["definition"]:
                row["definition"] = _ref_name(op)
    table = []
    for (group, _, resource), row in sorted(rows.items()):
        if not row["verbs"] and not row["subresources"]:
            continue
        subresources = {
            name: {**sub, "verbs": sorted(sub["verbs"])} for name, sub in sorted(row["subresources"].items())
        }
        table.append(
            {
                **row,
                "singular": row["kind"].lower(),
                "verbs": sorted(row["verbs"]),
                "shortNames": SHORT_NAMES.get((group, resource), []),
                "categories": CATEGORIES.get((group, resource), []),
                "subresources": subresources,
            }
        )
    return table


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_SWAGGER
    table = generate(json.loads(source.read_text()))
    OUTPUT.write_text(json.dumps(table, indent=None, separators=(",", ":"), sort_keys=True) + "\n")
    print(f"wrote {len(table)} resources to {OUTPUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
