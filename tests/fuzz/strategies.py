"""Hypothesis strategies for requests to the API server: paths, queries, headers, objects, patches.

Each strategy mixes values a real client sends with malformed and absurd ones, so that most
examples reach deep into a handler instead of stopping at the first check.
"""

from __future__ import annotations

import copy
import itertools
from typing import Any
from urllib.parse import quote

from hypothesis import strategies as st

NAMESPACE = "fuzz"
PRINTABLE = st.characters(min_codepoint=0x21, max_codepoint=0x7E)
"""What `http.client` lets into a request line or a header value unescaped."""

# -- names and path segments ------------------------------------------------------------------------

dns_names = st.sampled_from(["a", "one", "x-1", "fuzz", "default", "web", "n" * 63, "a.b.c"])
junk_segments = st.one_of(
    st.sampled_from(["", ".", "..", "%2e%2e", "%2F", "%00", "%", "%zz", "%ff%fe", "A_B", "-x", "x-", "~", "*", "@"]),
    st.text(PRINTABLE.filter(lambda c: c not in "?#/"), min_size=1, max_size=12),
    st.text(max_size=8).map(lambda text: quote(text, safe="")),
    st.integers(min_value=64, max_value=4000).map(lambda n: "n" * n),
)
names = st.one_of(dns_names, dns_names, junk_segments)

COLLECTIONS = [
    ("/api/v1", "configmaps", True),
    ("/api/v1", "secrets", True),
    ("/api/v1", "pods", True),
    ("/api/v1", "services", True),
    ("/api/v1", "serviceaccounts", True),
    ("/api/v1", "events", True),
    ("/api/v1", "namespaces", False),
    ("/api/v1", "nodes", False),
    ("/apis/apps/v1", "deployments", True),
    ("/apis/apps/v1", "statefulsets", True),
    ("/apis/batch/v1", "jobs", True),
    ("/apis/rbac.authorization.svc/v1", "clusterroles", False),
    ("/apis/rbac.authorization.svc/v1", "roles", True),
    ("/apis/coordination.svc/v1", "leases", True),
    ("/apis/unknown.example/v1", "widgets", True),
    ("/api/v2", "configmaps", True),
    ("/apis/apps/v9", "deployments", True),
    ("/api/v1", "nosuchthings", True),
]
SUBRESOURCES = ["status", "scale", "finalize", "log", "binding", "eviction", "exec", "proxy", "ephemeralcontainers"]
FIXED_PATHS = [
    "/",
    "/api",
    "/api/",
    "/apis",
    "/apis/apps",
    "/apis/apps/v1",
    "/apis/meta.svc/v1",
    "/version",
    "/healthz",
    "/livez",
    "/readyz",
    "/readyz/ping",
    "/healthz/nonexistent",
    "/openapi/v2",
    "/openapi/v3",
    "/openapi/v3/apis/apps/v1",
    "/openapi/v3/apis/nope/v1",
    "/metrics",
    "/apis/authentication.svc/v1/selfsubjectreviews",
    "/api/v1/watch/namespaces/fuzz/configmaps",
    "/api/v1/watch/namespaces/fuzz/configmaps/a",
    "/api/v1/namespaces/fuzz/configmaps/a/",
    "//api//v1//namespaces",
    "/api/v1/namespaces/fuzz/../default/configmaps",
]


@st.composite
def resource_paths(draw: st.DrawFn) -> str:
    """A resource path: collection, object or subresource, namespaced or not, sometimes malformed."""
    prefix, resource, namespaced = draw(st.sampled_from(COLLECTIONS))
    parts = [prefix]
    if draw(st.booleans()) and (namespaced or draw(st.booleans())):
        parts += ["namespaces", draw(st.one_of(st.just(NAMESPACE), st.just("default"), names))]
    parts.append(resource)
    depth = draw(st.integers(0, 3))
    if depth >= 1:
        parts.append(draw(names))
    if depth >= 2:
        parts.append(draw(st.one_of(st.sampled_from(SUBRESOURCES), names)))
    if depth >= 3:
        parts.append(draw(names))
    return "/".join(parts)


paths = st.one_of(st.sampled_from(FIXED_PATHS), resource_paths(), resource_paths())

# -- query parameters -------------------------------------------------------------------------------

huge = st.sampled_from(["99999999999999999999999", "-1", "-9223372036854775809", "1e3", "0x10", "1.5", " 1", ""])
junk_values = st.one_of(huge, st.text(PRINTABLE, max_size=20), st.text(max_size=10))
selectors = st.sampled_from(
    [
        "a=b",
        "a==b,c!=d",
        "a in (x,y)",
        "!a",
        "a notin (x)",
        "a>1",
        "a<",
        "=b",
        "a=b=c",
        "x/y=z",
        "a in (",
        "metadata.name=a",
        "metadata.namespace!=fuzz",
        "status.phase=Running",
        "spec.nodeName=",
        "metadata.uid=x",
        "type=Opaque",
        "a=" + "v" * 100,
        "nope.field=x",
    ]
)
PARAMETERS: dict[str, st.SearchStrategy[str]] = {
    "labelSelector": st.one_of(selectors, junk_values),
    "fieldSelector": st.one_of(selectors, junk_values),
    "resourceVersion": st.one_of(st.sampled_from(["", "0", "1", "2", "999999999"]), junk_values),
    "resourceVersionMatch": st.one_of(st.sampled_from(["NotOlderThan", "Exact", "notolderthan"]), junk_values),
    "limit": st.one_of(st.sampled_from(["0", "1", "2", "500"]), huge, junk_values),
    "continue": st.one_of(
        st.sampled_from(["", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhIn0", "!!!", "e30", "bnVsbA"]),
        junk_values,
    ),
    "watch": st.sampled_from(["false", "0", "", "no", "False"]),
    "allowWatchBookmarks": st.sampled_from(["true", "false", "x"]),
    "sendInitialEvents": st.sampled_from(["true", "false", "x"]),
    "timeoutSeconds": st.one_of(st.sampled_from(["1", "0", "-5"]), huge, junk_values),
    "dryRun": st.one_of(st.sampled_from(["All", "all", "", "None"]), junk_values),
    "fieldManager": st.one_of(st.sampled_from(["fuzzer", "", "m" * 200, "kubectl-client-side-apply"]), junk_values),
    "fieldValidation": st.one_of(st.sampled_from(["Strict", "Warn", "Ignore", "strict", ""]), junk_values),
    "force": st.sampled_from(["true", "false", "1", "", "x"]),
    "propagationPolicy": st.one_of(st.sampled_from(["Orphan", "Background", "Foreground", "orphan"]), junk_values),
    "gracePeriodSeconds": st.one_of(st.sampled_from(["0", "30", "-1"]), huge, junk_values),
    "orphanDependents": st.sampled_from(["true", "false", "x"]),
    "pretty": st.sampled_from(["true", "false", "1", "", "x"]),
    "includeObject": st.sampled_from(["None", "Metadata", "Object", "x"]),
    "shardSelector": junk_values,
}
parameter_names = st.one_of(st.sampled_from(sorted(PARAMETERS)), st.text(PRINTABLE, min_size=1, max_size=8))


@st.composite
def queries(draw: st.DrawFn, *, watch: bool = False) -> str:
    """A query string: known parameters with valid/malformed/absurd values, repeats, odd encoding."""
    items = []
    for _ in range(draw(st.integers(0, 5))):
        name = draw(parameter_names)
        value = draw(PARAMETERS.get(name, junk_values))
        if draw(st.integers(0, 3)) == 0:
            items.append(quote(name, safe="") + "=" + quote(value, safe="=,!()/:*~'$@;").replace("%20", "+"))
        else:
            items.append(quote(name, safe="") + "=" + quote(value, safe=""))
    if watch:
        items.append("watch=true&timeoutSeconds=1")
    return "?" + "&".join(items) if items else ""


# -- headers ----------------------------------------------------------------------------------------

PROTOBUF = "application/vnd.svc.protobuf"
MEDIA_TYPES = [
    "application/json",
    "application/yaml",
    PROTOBUF,
    "application/cbor",
    "application/json;as=Table;g=meta.svc;v=v1",
    "application/json;as=Table;v=v1;g=meta.svc, application/json",
    "application/json;as=PartialObjectMetadata;g=meta.svc;v=v1",
    "application/json;as=PartialObjectMetadataList;g=meta.svc;v=v1",
    f"{PROTOBUF};as=Table;g=meta.svc;v=v1",
    "application/cbor;as=Table;g=meta.svc;v=v1",
    "application/yaml;as=PartialObjectMetadata;g=meta.svc;v=v1",
    "application/json;as=Table;g=meta.k8s.io;v=v1beta1",
    "application/json;as=Table;g=meta.svc;v=v9",
    "application/json;as=Nope;g=meta.svc;v=v1",
    "application/json;stream=watch",
    "application/json;charset=utf-8",
    "application/json;charset=latin-1",
    "application/json; q=0.1, application/yaml; q=0.9",
    "application/json;q=0",
    "application/json;q=abc",
    "*/*",
    "application/*",
    "*/json",
    "text/html",
    "text/plain",
    "application/apply-patch+yaml",
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+cbor",
    "application/cbor-seq",
    "application/vnd.kubernetes.protobuf",
    "",
    ";",
    "/",
    "application/",
    "application/json;;",
    "application/json;a",
    'application/json;a="b;c"',
    "APPLICATION/JSON",
]
header_values = st.text(PRINTABLE, max_size=30)
"""`http.client` sends header values as Latin-1 and refuses line breaks."""
media_types = st.one_of(st.sampled_from(MEDIA_TYPES), header_values)


def odd_case(name: str) -> st.SearchStrategy[str]:
    return st.sampled_from([name, name.lower(), name.upper(), name.swapcase()])


@st.composite
def headers(draw: st.DrawFn, *, content_type: str | None = None) -> list[tuple[str, str]]:
    """Accept, Content-Type, Content-Encoding and Impersonate-* headers, sometimes repeated."""
    result = []
    for _ in range(draw(st.integers(0, 2))):
        result.append((draw(odd_case("Accept")), draw(media_types)))
    if content_type is not None:
        result.append((draw(odd_case("Content-Type")), content_type))
    elif draw(st.booleans()):
        result.append((draw(odd_case("Content-Type")), draw(media_types)))
    if draw(st.integers(0, 4)) == 0:
        encoding = draw(st.sampled_from(["gzip", "identity", "deflate", "br", "x", ""]))
        result.append((draw(odd_case("Content-Encoding")), encoding))
    if draw(st.integers(0, 3)) == 0:
        result.append((draw(odd_case("Accept-Encoding")), draw(st.sampled_from(["gzip", "*", "br;q=1", "x"]))))
    for _ in range(draw(st.integers(0, 2)) if draw(st.integers(0, 2)) == 0 else 0):
        name = draw(
            st.sampled_from(
                [
                    "Impersonate-User",
                    "Impersonate-Group",
                    "Impersonate-Uid",
                    "Impersonate-Extra-scopes",
                    "Impersonate-Extra-%41b",
                    "Impersonate-Extra-",
                    "Impersonate-Nope",
                ]
            )
        )
        value = draw(st.one_of(st.sampled_from(["alice", "system:admin", "system:masters", ""]), header_values))
        result.append((draw(odd_case(name)), value))
    return result


# -- objects ----------------------------------------------------------------------------------------

BASES: dict[str, dict[str, Any]] = {
    "configmaps": {"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "v"}, "binaryData": {"b": "AAE="}},
    "secrets": {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "Opaque",
        "data": {"p": "cHc="},
        "stringData": {"s": "t"},
    },
    "pods": {
        "apiVersion": "v1",
        "kind": "Pod",
        "spec": {
            "containers": [
                {
                    "name": "c",
                    "image": "nginx",
                    "ports": [{"containerPort": 80, "protocol": "TCP"}],
                    "env": [{"name": "A", "value": "1"}],
                    "resources": {"limits": {"cpu": "100m", "memory": "64Mi"}},
                }
            ],
            "tolerations": [{"key": "k", "operator": "Exists"}],
        },
    },
    "services": {
        "apiVersion": "v1",
        "kind": "Service",
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080, "name": "http"}]},
    },
    "deployments": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]},
            },
        },
    },
    "namespaces": {"apiVersion": "v1", "kind": "Namespace", "spec": {"finalizers": ["svc"]}},
    "serviceaccounts": {"apiVersion": "v1", "kind": "ServiceAccount", "automountServiceAccountToken": False},
    "jobs": {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}},
    },
    "statefulsets": {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "spec": {
            "serviceName": "web",
            "selector": {"matchLabels": {"app": "db"}},
            "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "c", "image": "db"}]}},
            "volumeClaimTemplates": [
                {
                    "metadata": {"name": "v"},
                    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
                }
            ],
        },
    },
    "persistentvolumeclaims": {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    },
    "leases": {
        "apiVersion": "coordination.svc/v1",
        "kind": "Lease",
        "spec": {"holderIdentity": "h", "leaseDurationSeconds": 10, "acquireTime": "2026-01-01T00:00:00.000000Z"},
    },
    "events": {
        "apiVersion": "v1",
        "kind": "Event",
        "involvedObject": {"kind": "Pod", "name": "a", "namespace": "fuzz"},
        "reason": "Started",
        "message": "m",
        "type": "Normal",
        "count": 1,
        "firstTimestamp": "2026-01-01T00:00:00Z",
    },
    "clusterroles": {
        "apiVersion": "rbac.authorization.svc/v1",
        "kind": "ClusterRole",
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}],
    },
}
KINDS = sorted(BASES)
PREFIX = {
    "deployments": "/apis/apps/v1",
    "jobs": "/apis/batch/v1",
    "clusterroles": "/apis/rbac.authorization.svc/v1",
    "statefulsets": "/apis/apps/v1",
    "leases": "/apis/coordination.svc/v1",
}
CLUSTER_SCOPED = {"namespaces", "clusterroles"}


def collection_path(resource: str, namespace: str = NAMESPACE) -> str:
    prefix = PREFIX.get(resource, "/api/v1")
    if resource in CLUSTER_SCOPED:
        return f"{prefix}/{resource}"
    return f"{prefix}/namespaces/{namespace}/{resource}"


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.sampled_from([2**64, -(2**70), 1.5, 1e308, -0.0, 3.0]),
    st.text(max_size=12),
    st.sampled_from(["", "100m", "1Gi", "nginx", "TCP", "Always", "-1", "true", "null", "2026-01-01T00:00:00Z"]),
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)
labels = st.dictionaries(
    st.one_of(st.sampled_from(["app", "svc.io/x", "a.b/c", "tier"]), st.text(max_size=10)),
    st.one_of(st.sampled_from(["web", "", "v1"]), st.text(max_size=10)),
    max_size=3,
)
KEYS = [
    "metadata",
    "spec",
    "status",
    "data",
    "name",
    "labels",
    "annotations",
    "finalizers",
    "ownerReferences",
    "containers",
    "image",
    "ports",
    "port",
    "replicas",
    "selector",
    "template",
    "type",
    "clusterIP",
    "managedFields",
    "resourceVersion",
    "generateName",
    "namespace",
    "uid",
    "creationTimestamp",
    "deletionTimestamp",
    "generation",
    "unknownField",
    "$patch",
    "$retainKeys",
    "kind",
    "apiVersion",
    "rules",
]


def _containers(value: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) pair under value, to pick a place to mutate."""
    found: list[tuple[Any, Any]] = []
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            for key, item in current.items():
                found.append((current, key))
                stack.append(item)
        elif isinstance(current, list):
            for index, item in enumerate(current):
                found.append((current, index))
                stack.append(item)
    return found


@st.composite
def mutated(draw: st.DrawFn, obj: dict[str, Any]) -> dict[str, Any]:
    """`obj` with a few random edits: values replaced, keys removed or added, types changed."""
    result = copy.deepcopy(obj)
    for _ in range(draw(st.integers(0, 3))):
        places = _containers(result)
        if not places:
            break
        container, key = draw(st.sampled_from(places))
        action = draw(st.sampled_from(["replace", "delete", "add", "labels"]))
        if action == "replace":
            container[key] = draw(json_values)
        elif action == "delete":
            del container[key]
        elif action == "add" and isinstance(container[key], dict):
            container[key][draw(st.sampled_from(KEYS))] = draw(json_values)
        elif action == "add" and isinstance(container[key], list):
            container[key].append(draw(json_values))
        elif action == "labels" and isinstance(result.get("metadata"), dict):
            result["metadata"]["labels"] = draw(labels)
    return result


other_types = st.one_of(
    st.sampled_from([None, True, False, 0, -1, 2**31, 2**63, -(2**63) - 1, 2**80, 0.5, 1e308, -0.0, "", "x", "1"]),
    st.sampled_from([[], [None], [1, "a"], {}, {"": None}, {"a": {"b": [{}]}}, [[[[[]]]]]]).map(copy.deepcopy),
    json_values,
)
"""Values of every JSON type, the boundaries of int64 and past them among them (fresh copies: a
caller may edit what it drew)."""


@st.composite
def retyped(draw: st.DrawFn, obj: dict[str, Any]) -> dict[str, Any]:
    """`obj` with one member (any depth) replaced by a value of a likely different type."""
    result = copy.deepcopy(obj)
    container, key = draw(st.sampled_from(_containers(result)))
    container[key] = draw(other_types)
    return result


@st.composite
def objects(draw: st.DrawFn, resource: str, *, name: str | None = None) -> dict[str, Any]:
    """A valid object of `resource`, with a fresh name, then possibly mutated."""
    obj = copy.deepcopy(BASES[resource])
    metadata: dict[str, Any] = {"name": name or draw(fresh_names)}
    if draw(st.booleans()):
        metadata["labels"] = draw(labels)
    if draw(st.integers(0, 3)) == 0:
        metadata["annotations"] = {"note": draw(st.text(max_size=20))}
    if draw(st.integers(0, 5)) == 0:
        metadata["finalizers"] = [draw(st.sampled_from(["example.com/f", "bad finalizer", "svc.io/x"]))]
    obj["metadata"] = metadata
    if draw(st.integers(0, 2)) == 0:
        return obj
    return draw(mutated(obj))


_serial = itertools.count()
fresh_names = st.builds(lambda: f"f{next(_serial)}")
"""Unique across the module's examples: the server keeps what earlier examples wrote."""

# -- patches ----------------------------------------------------------------------------------------

pointer_tokens = st.one_of(
    st.sampled_from(KEYS), st.sampled_from(["0", "1", "-", "~0", "~1", "k"]), st.text(max_size=5)
)
pointers = st.lists(pointer_tokens, min_size=0, max_size=4).map(lambda tokens: "".join("/" + t for t in tokens))


@st.composite
def json_patch_ops(draw: st.DrawFn) -> Any:
    """RFC 6902 operations, well-formed or not."""
    ops = []
    for _ in range(draw(st.integers(0, 4))):
        op: dict[str, Any] = {"op": draw(st.sampled_from(["add", "remove", "replace", "move", "copy", "test", "x"]))}
        op["path"] = draw(st.one_of(pointers, st.just("/metadata/labels/fuzz"), st.just("/data/k"), json_values))
        if op["op"] in ("add", "replace", "test") or draw(st.integers(0, 5)) == 0:
            op["value"] = draw(json_values)
        if op["op"] in ("move", "copy"):
            op["from"] = draw(pointers)
        if draw(st.integers(0, 8)) == 0:
            del op[draw(st.sampled_from(sorted(op)))]
        ops.append(op)
    return draw(st.one_of(st.just(ops), st.just(ops), json_values))


@st.composite
def merge_patches(draw: st.DrawFn, base: dict[str, Any]) -> Any:
    """A merge or strategic-merge patch: a mutated part of the object, nulls, directives, or junk."""
    patch = draw(mutated({key: value for key, value in base.items() if key not in ("apiVersion", "kind")}))
    if isinstance(patch.get("metadata"), dict):
        patch["metadata"].pop("name", None)
    if draw(st.integers(0, 3)) == 0:
        patch[draw(st.sampled_from(KEYS))] = draw(
            st.one_of(
                st.none(),
                st.just({"$patch": draw(st.sampled_from(["delete", "replace", "merge", "x"]))}),
                st.just([{"$patch": "delete", "name": "c"}]),
                st.just({"$retainKeys": ["a"], "a": 1}),
                json_values,
            )
        )
    if draw(st.integers(0, 5)) == 0:
        directive = draw(st.sampled_from(["$setElementOrder/containers", "$deleteFromPrimitiveList/finalizers"]))
        patch.setdefault("spec", {})
        if isinstance(patch["spec"], dict):
            patch["spec"][directive] = draw(json_values)
    return draw(st.one_of(st.just(patch), st.just(patch), st.just(patch), json_values))
