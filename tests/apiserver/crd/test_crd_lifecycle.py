"""A CRD's life in the API server: names accepted, Established, served in discovery at once, name
conflicts between CRDs, and deletion through the cleanup finalizer (issue 14)."""

from __future__ import annotations

import time

from svc.testing.harness import stop_process
from tests.apiserver.crd.crds import (
    CRD_PATH,
    WIDGETS,
    condition,
    crd,
    install,
    wait_for_condition,
    wait_for_status,
    wait_gone,
    widget,
)

AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"


def test_an_established_crd_has_accepted_names_conditions_and_stored_versions(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes").client()
    established = install(client)
    status = established["status"]
    assert status["acceptedNames"]["plural"] == "widgets"
    assert status["acceptedNames"]["shortNames"] == ["wd"]
    assert status["storedVersions"] == ["v1"]
    assert condition(established, "NamesAccepted") | {"lastTransitionTime": ""} == {
        "type": "NamesAccepted",
        "status": "True",
        "reason": "NoConflicts",
        "message": "no conflicts found",
        "lastTransitionTime": "",
    }
    assert condition(established, "Established")["reason"] == "InitialNamesAccepted"
    assert condition(established, "Established")["message"] == "the initial names have been accepted"


def test_discovery_shows_the_served_version_as_soon_as_it_is_established(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes").client()
    install(client)
    groups = client.request("GET", "/apis").json()["groups"]
    assert groups[-1]["name"] == "example.com"
    assert groups[-1]["preferredVersion"]["version"] == "v1"
    resources = {r["name"]: r for r in client.request("GET", "/apis/example.com/v1").json()["resources"]}
    assert resources["widgets"]["singularName"] == "widget"
    assert resources["widgets"]["namespaced"] is True
    assert resources["widgets"]["shortNames"] == ["wd"]
    assert resources["widgets"]["categories"] == ["all"]
    assert set(resources) == {"widgets", "widgets/status", "widgets/scale"}
    assert resources["widgets/scale"]["group"] == "autoscaling"
    aggregated = client.request("GET", "/apis", accept=AGGREGATED).json()
    entry = next(item for item in aggregated["items"] if item["metadata"]["name"] == "example.com")
    widgets = entry["versions"][0]["resources"][0]
    assert widgets["resource"] == "widgets"
    assert widgets["scope"] == "Namespaced"
    assert {sub["subresource"] for sub in widgets["subresources"]} == {"status", "scale"}


def test_versions_are_ordered_by_priority(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes").client()
    base = crd()["spec"]["versions"][0]
    versions = [
        {**base, "name": "v1alpha1", "storage": False},
        {**base, "name": "v2", "storage": False},
        {**base, "name": "v1", "storage": True},
    ]
    install(client, crd(versions=versions))
    group = client.request("GET", "/apis/example.com").json()
    assert [v["version"] for v in group["versions"]] == ["v2", "v1", "v1alpha1"]
    hashes = {
        client.request("GET", f"/apis/example.com/{v}").json()["resources"][0]["storageVersionHash"]
        for v in ("v2", "v1", "v1alpha1")
    }
    assert len(hashes) == 1


def test_a_kind_claimed_by_another_crd_of_the_group_is_not_accepted(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes").client()
    install(client)
    names = {"plural": "gadgets", "singular": "gadget", "kind": "Widget", "listKind": "GadgetList"}
    body = crd(names=names)
    assert client.request("POST", CRD_PATH, body=body).status == 201
    current = wait_for_condition(client, "gadgets.example.com", "NamesAccepted", "False")
    accepted = condition(current, "NamesAccepted")
    assert (accepted["status"], accepted["reason"], accepted["message"]) == (
        "False",
        "KindConflict",
        '"Widget" is already in use',
    )
    established = condition(current, "Established")
    assert (established["status"], established["reason"]) == ("False", "NotAccepted")
    assert client.request("GET", "/apis/example.com/v1/namespaces/default/gadgets").status == 404


def test_a_short_name_conflict_is_reported(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes").client()
    install(client)
    names = {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "shortNames": ["wd"]}
    assert client.request("POST", CRD_PATH, body=crd(names=names)).status == 201
    current = wait_for_condition(client, "gadgets.example.com", "NamesAccepted", "False")
    assert condition(current, "NamesAccepted")["reason"] == "ShortNamesConflict"
    assert condition(current, "NamesAccepted")["message"] == '"wd" is already in use'


def test_deleting_a_crd_deletes_its_custom_resources_then_the_crd(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes").client()
    install(client)
    assert client.request("POST", WIDGETS, body=widget("a", color="red")).status == 201
    deleted = client.request("DELETE", f"{CRD_PATH}/widgets.example.com")
    assert deleted.status == 200
    marked = deleted.json()
    assert "customresourcecleanup.apiextensions.k8s.io" in marked["metadata"]["finalizers"]
    assert condition(marked, "Terminating")["reason"] == "InstanceDeletionPending"
    assert wait_gone(client, f"{CRD_PATH}/widgets.example.com") == 404
    assert wait_gone(client, "/apis/example.com/v1", seconds=1) == 404
    assert all(g["name"] != "example.com" for g in client.request("GET", "/apis").json()["groups"])


def test_no_custom_resource_is_created_while_its_crd_terminates(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes").client()
    install(client)
    held = widget("held")
    held["metadata"]["finalizers"] = ["example.com/hold"]
    assert client.request("POST", WIDGETS, body=held).status == 201
    assert client.request("DELETE", f"{CRD_PATH}/widgets.example.com").status == 200
    wait_for_condition(client, "widgets.example.com", "Terminating", reasons=("InstanceDeletionCheck",))
    refused = client.request("POST", WIDGETS, body=widget("late"))
    assert refused.status == 405
    assert refused.json()["message"] == "create not allowed while custom resource definition is terminating"
    release = {"metadata": {"finalizers": None}}
    patched = client.request("PATCH", f"{WIDGETS}/held", body=release, content_type="application/merge-patch+json")
    assert patched.status == 200, patched.body
    assert wait_gone(client, f"{CRD_PATH}/widgets.example.com", seconds=20) == 404


def test_custom_resources_are_served_again_after_a_restart(svc_server_process, tmp_path) -> None:
    data_dir = tmp_path / "data"
    server = svc_server_process("--brand-profile=kubernetes", data_dir=data_dir)
    client = server.client()
    install(client)
    assert client.request("POST", WIDGETS, body=widget("a", color="red")).status == 201
    stop_process(server)
    restarted = svc_server_process("--brand-profile=kubernetes", data_dir=data_dir).client()
    found = restarted.request("GET", f"{WIDGETS}/a")
    assert found.status == 200
    assert found.json()["spec"] == {"color": "red"}


def test_a_changed_crd_is_served_as_changed(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes").client()
    current = install(client)
    current["spec"]["names"]["shortNames"] = ["wd", "wdg"]
    current["spec"]["versions"][0]["additionalPrinterColumns"].append(
        {"name": "Size", "type": "integer", "jsonPath": ".spec.replicas", "priority": 1}
    )
    assert client.request("PUT", f"{CRD_PATH}/widgets.example.com", body=current).status == 200
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        resources = client.request("GET", "/apis/example.com/v1").json()["resources"]
        if resources[0].get("shortNames") == ["wd", "wdg"]:
            break
        time.sleep(0.02)
    assert resources[0]["shortNames"] == ["wd", "wdg"]
    client.request("POST", WIDGETS, body=widget("a", replicas=2))
    table = client.request("GET", WIDGETS, accept="application/json;as=Table;v=v1;g=meta.k8s.io").json()
    assert [(c["name"], c["priority"]) for c in table["columnDefinitions"]][-1] == ("Size", 1)


def test_the_svc_profile_serves_custom_resources_under_its_group_names(svc_server) -> None:
    client = svc_server.client()
    body = crd()
    body["apiVersion"] = "apiextensions.svc/v1"
    path = "/apis/apiextensions.svc/v1/customresourcedefinitions"
    assert client.request("POST", path, body=body).status == 201
    assert wait_for_status(client, "/apis/example.com/v1", 200) == 200
    assert client.request("POST", WIDGETS, body=widget("a")).status == 201
    marked = client.request("DELETE", f"{path}/widgets.example.com").json()
    assert "customresourcecleanup.apiextensions.svc" in marked["metadata"]["finalizers"]
    assert wait_gone(client, f"{path}/widgets.example.com") == 404
