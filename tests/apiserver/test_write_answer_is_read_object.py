"""A write answers the object as it is read afterwards (upstream decodes its answer from what it stored).

For built-in kinds, upstream's Go types never give back an empty map or list, nor an `omitempty`
scalar holding "", 0 or false: whatever a create, update, merge patch or apply sends, its answer, the
GET that follows and the watch event of the write show the same object.
"""

from __future__ import annotations

import copy
import itertools
import threading
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from svc.testing.harness import in_process_server
from tests.apiserver.crd.crds import WIDGETS, install, widget

Obj = dict[str, Any]
Path = tuple[str | int, ...]
ABSENT = object()

settings_ = settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
names = itertools.count()

POD_SPEC: Obj = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}


def _pod_template(restart_policy: str) -> Obj:
    return {"metadata": {"labels": {"app": "x"}}, "spec": {**copy.deepcopy(POD_SPEC), "restartPolicy": restart_policy}}


# Per kind: (collection path, the object without its optional parts, optional parts as (path, empty value,
# a value that is not empty)). Paths holding an index are not sent in merge patches (lists replace there).
KINDS: dict[str, tuple[str, Obj, list[tuple[Path, Any, Any]]]] = {
    "ConfigMap": (
        "/api/v1/namespaces/default/configmaps",
        {"apiVersion": "v1", "kind": "ConfigMap"},
        [
            (("data",), {}, {"k": "v"}),
            (("binaryData",), {}, {"b": "YQ=="}),
            (("immutable",), False, True),
        ],
    ),
    "Secret": (
        "/api/v1/namespaces/default/secrets",
        {"apiVersion": "v1", "kind": "Secret"},
        [
            (("data",), {}, {"k": "YQ=="}),
            (("stringData",), {}, {"s": "v"}),
            (("type",), "", "Opaque"),
        ],
    ),
    "Pod": (
        "/api/v1/namespaces/default/pods",
        {"apiVersion": "v1", "kind": "Pod", "spec": POD_SPEC},
        [
            (("spec", "containers", 0, "args"), [], ["a"]),
            (("spec", "containers", 0, "command"), [], ["sh"]),
            (("spec", "containers", 0, "env"), [], [{"name": "E", "value": ""}]),
            (("spec", "containers", 0, "ports"), [], [{"containerPort": 80, "name": "", "hostIP": ""}]),
            (("spec", "containers", 0, "workingDir"), "", "/w"),
            (("spec", "containers", 0, "resources"), {}, {"limits": {}, "requests": {"cpu": "1"}}),
            (("spec", "nodeSelector"), {}, {"disk": "ssd"}),
            (("spec", "hostname"), "", "h"),
            (("spec", "hostNetwork"), False, True),
            (("spec", "tolerations"), [], [{"key": "k", "operator": "Exists", "effect": ""}]),
            (("spec", "volumes"), [], [{"name": "v", "emptyDir": {}}]),
        ],
    ),
    "Service": (
        "/api/v1/namespaces/default/services",
        {"apiVersion": "v1", "kind": "Service", "spec": {"ports": [{"port": 80}]}},
        [
            (("spec", "selector"), {}, {"app": "x"}),
            (("spec", "externalIPs"), [], ["192.0.2.1"]),
            (("spec", "ports", 0, "name"), "", "http"),
            (("spec", "publishNotReadyAddresses"), False, True),
        ],
    ),
    "Deployment": (
        "/apis/apps/v1/namespaces/default/deployments",
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "spec": {"selector": {"matchLabels": {"app": "x"}}, "template": _pod_template("Always")},
        },
        [
            (("spec", "paused"), False, True),
            (("spec", "minReadySeconds"), 0, 5),
            (("spec", "revisionHistoryLimit"), 0, 3),
            (("spec", "selector", "matchExpressions"), [], [{"key": "app", "operator": "Exists"}]),
            (("spec", "template", "metadata", "annotations"), {}, {"a": "b"}),
        ],
    ),
    "Job": (
        "/apis/batch/v1/namespaces/default/jobs",
        {"apiVersion": "batch/v1", "kind": "Job", "spec": {"template": _pod_template("Never")}},
        [
            (("spec", "backoffLimit"), 0, 2),
            (("spec", "suspend"), False, True),
            (("spec", "template", "metadata", "annotations"), {}, {"a": "b"}),
            (("spec", "template", "spec", "imagePullSecrets"), [], [{"name": "pull"}]),
        ],
    ),
    "Role": (
        "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role"},
        [
            (("rules",), [], [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"], "resourceNames": []}]),
        ],
    ),
    "Namespace": (
        "/api/v1/namespaces",
        {"apiVersion": "v1", "kind": "Namespace"},
        [
            (("spec",), {}, {"finalizers": []}),
        ],
    ),
    "ServiceAccount": (
        "/api/v1/namespaces/default/serviceaccounts",
        {"apiVersion": "v1", "kind": "ServiceAccount"},
        [
            (("secrets",), [], [{"name": "s"}]),
            (("imagePullSecrets",), [], [{"name": "pull"}]),
            (("automountServiceAccountToken",), False, True),
        ],
    ),
    "Event": (
        "/api/v1/namespaces/default/events",
        {"apiVersion": "v1", "kind": "Event", "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"}},
        [
            (("reason",), "", "Started"),
            (("message",), "", "m"),
            (("count",), 0, 2),
            (("source",), {}, {"component": ""}),
            (("reportingComponent",), "", "c"),
            (("type",), "Normal", "Warning"),
        ],
    ),
}

METADATA_PARTS: list[tuple[Path, Any, Any]] = [
    (("metadata", "labels"), {}, {"a": "b"}),
    (("metadata", "annotations"), {}, {"x": "y"}),
    (("metadata", "finalizers"), [], ["example.com/keep"]),
    (("metadata", "generateName"), "", "g-"),
]


def _set(obj: Obj, path: Path, value: Any) -> None:
    *parents, last = path
    for key in parents:
        obj = obj.setdefault(key, {}) if isinstance(key, str) else obj[key]
    obj[last] = copy.deepcopy(value)


def _parts(kind: str) -> st.SearchStrategy[list[tuple[Path, Any]]]:
    """Some of the kind's optional parts, each empty or not."""
    choices = [
        st.sampled_from([ABSENT, empty, full]).map(lambda value, path=path: (path, value))
        for path, empty, full in [*METADATA_PARTS, *KINDS[kind][2]]
    ]
    return st.tuples(*choices).map(lambda chosen: [(path, value) for path, value in chosen if value is not ABSENT])


def _refused_update(kind: str, parts: list[tuple[Path, Any]]) -> bool:
    """An immutable ConfigMap re-sent with an empty map is a change upstream refuses (its stored map is
    nil: test_immutable_empty_maps.py)."""
    chosen = dict(parts)
    return (
        kind == "ConfigMap"
        and chosen.get(("immutable",)) is True
        and {} in (chosen.get(("data",)), chosen.get(("binaryData",)))
    )


def _decorated(obj: Obj, parts: list[tuple[Path, Any]], label: str) -> Obj:
    out = copy.deepcopy(obj)
    for path, value in parts:
        _set(out, path, value)
    out["metadata"].setdefault("labels", {})
    out["metadata"]["labels"] = {**out["metadata"]["labels"], "op": label}
    return out


def _merge_patch(parts: list[tuple[Path, Any]], label: str) -> Obj:
    patch: Obj = {"metadata": {"labels": {"op": label}}}
    for path, value in parts:
        if all(isinstance(key, str) for key in path) and path != ("metadata", "labels"):
            _set(patch, path, value)
    return patch


def _events(api, path: str, name: str, since: str, count: int) -> dict[str, Obj]:
    """The objects of the watch events of `name` after `since`, by resourceVersion (at most `count`; the
    server ends the watch after 5 s, and the client drops it after 10 s)."""
    params = {"watch": "1", "resourceVersion": since, "fieldSelector": f"metadata.name={name}", "timeoutSeconds": "5"}
    stream = api.stream(path, params=params)
    deadline = threading.Timer(10, stream.close)
    deadline.start()
    found: dict[str, Obj] = {}
    try:
        for line in stream:
            event = orjson.loads(line)
            found[event["object"]["metadata"]["resourceVersion"]] = event["object"]
            if len(found) == count:
                break
    finally:
        deadline.cancel()
        stream.close()
    return found


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One server for every kind and example: each example writes objects of its own names."""
    with in_process_server(tmp_path_factory.mktemp("answers"), "--brand-profile=kubernetes") as running:
        yield running


def _written(api, method: str, path: str, body: Any, **kwargs: Any) -> Obj:
    response = api.request(method, path, body=body, **kwargs)
    assert response.status in (200, 201), response.body
    return response.json()


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_write_answers_what_get_and_watch_read(server, kind: str) -> None:
    collection, base, _ = KINDS[kind]
    api = server.client()

    @settings_
    @given(parts=_parts(kind))
    def check(parts: list[tuple[Path, Any]]) -> None:
        assume(not _refused_update(kind, parts))
        name = f"w{next(names)}"
        item = f"{collection}/{name}"
        since = api.request("GET", collection, params={"limit": "1"}).json()["metadata"]["resourceVersion"]
        obj = {**copy.deepcopy(base), "metadata": {"name": name}}
        answers: list[Obj] = []

        def step(write: Callable[[], Obj]) -> None:
            answer = write()
            assert answer == api.request("GET", item).json()
            answers.append(answer)

        step(lambda: _written(api, "POST", collection, _decorated(obj, parts, "create")))
        step(lambda: _written(api, "PUT", item, _decorated(api.request("GET", item).json(), parts, "update")))
        step(
            lambda: _written(
                api, "PATCH", item, _merge_patch(parts, "patch"), content_type="application/merge-patch+json"
            )
        )
        step(
            lambda: _written(
                api,
                "PATCH",
                item,
                _decorated(obj, parts, "apply"),
                content_type="application/apply-patch+yaml",
                params={"fieldManager": "answers", "force": "true"},
            )
        )
        events = _events(api, collection, name, since, len(answers))
        assert {answer["metadata"]["resourceVersion"]: answer for answer in answers} == events

    check()


CONFIG_MAPS = "/api/v1/namespaces/default/configmaps"


def _config_map(name: str) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {}}, "data": {}}


def test_dry_run_create_answers_without_empty_values(server) -> None:
    answer = _written(server.client(), "POST", CONFIG_MAPS, _config_map("dry"), params={"dryRun": "All"})
    assert "data" not in answer
    assert "labels" not in answer["metadata"]


def test_json_storage_keeps_no_empty_values(svc_server_factory) -> None:
    """Upstream drops them whatever its storage media type; so is an object stored as JSON."""
    api = svc_server_factory("--storage-media-type=application/json").client()
    answer = _written(api, "POST", CONFIG_MAPS, _config_map("json"))
    assert "data" not in answer
    assert answer == api.request("GET", f"{CONFIG_MAPS}/json").json()


def test_custom_resource_keeps_its_empty_values(server) -> None:
    """Custom resources are unstructured upstream: what their schema keeps is stored as sent."""
    api = server.client()
    install(api)
    answer = _written(api, "POST", WIDGETS, widget("empty", color="", ports=[]))
    assert answer["spec"] == {"color": "", "ports": []}
    assert answer == api.request("GET", f"{WIDGETS}/empty").json()


def test_update_manager_owns_no_empty_values(server) -> None:
    """Upstream's field manager reads the object through its Go type: `data: {}` is not a field set."""
    answer = _written(server.client(), "POST", CONFIG_MAPS, {**_config_map("owned"), "immutable": False})
    assert answer["metadata"]["managedFields"][0]["fieldsV1"] == {"f:immutable": {}}
