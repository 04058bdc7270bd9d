"""The list table of spec 1 §4.6, cell by cell, and paging (§4.8)."""

from __future__ import annotations

import pytest

PATH = "/api/v1/namespaces/default/configmaps"


@pytest.fixture
def api(svc_server):
    return svc_server.client()


@pytest.fixture
def versions(api) -> list[str]:
    """Create c0..c4; return the resourceVersion after each create."""
    found = []
    for index in range(5):
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{index}"}}
        found.append(api.request("POST", PATH, body=body).json()["metadata"]["resourceVersion"])
    return found


def _names(body: dict) -> list[str]:
    return [item["metadata"]["name"] for item in body["items"]]


def _list(api, **params):
    return api.request("GET", PATH, params=params)


def test_most_recent(api, versions) -> None:
    body = _list(api).json()
    assert _names(body) == ["c0", "c1", "c2", "c3", "c4"]
    assert int(body["metadata"]["resourceVersion"]) >= int(versions[-1])


def test_any(api, versions) -> None:
    assert _names(_list(api, resourceVersion="0").json()) == ["c0", "c1", "c2", "c3", "c4"]


def test_not_older_than(api, versions) -> None:
    body = _list(api, resourceVersion=versions[1]).json()
    assert int(body["metadata"]["resourceVersion"]) >= int(versions[1])
    assert len(body["items"]) == 5


def test_not_older_than_explicit_match(api, versions) -> None:
    body = _list(api, resourceVersion=versions[1], resourceVersionMatch="NotOlderThan").json()
    assert len(body["items"]) == 5


def test_not_older_than_with_zero_is_any(api, versions) -> None:
    assert _list(api, resourceVersion="0", resourceVersionMatch="NotOlderThan").status == 200


def test_exact(api, versions) -> None:
    body = _list(api, resourceVersion=versions[1], resourceVersionMatch="Exact").json()
    assert body["metadata"]["resourceVersion"] == versions[1]
    assert _names(body) == ["c0", "c1"]


def test_exact_through_limit(api, versions) -> None:
    body = _list(api, resourceVersion=versions[2], limit="10").json()
    assert body["metadata"]["resourceVersion"] == versions[2]
    assert _names(body) == ["c0", "c1", "c2"]


def test_exact_no_longer_held_is_410(svc_server, api, versions) -> None:
    svc_server.call(svc_server.server.backend.compact(int(versions[3])))
    response = _list(api, resourceVersion=versions[1], resourceVersionMatch="Exact")
    assert response.status == 410
    assert response.json()["reason"] == "Expired"


def test_paging_keeps_the_first_version(api, versions) -> None:
    first = _list(api, limit="2").json()
    assert _names(first) == ["c0", "c1"]
    assert first["metadata"]["remainingItemCount"] == 3
    api.request("POST", PATH, body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c9"}})
    second = _list(api, limit="2", **{"continue": first["metadata"]["continue"]}).json()
    third = _list(api, limit="2", **{"continue": second["metadata"]["continue"]}).json()
    assert _names(second) + _names(third) == ["c2", "c3", "c4"]
    assert {second["metadata"]["resourceVersion"], third["metadata"]["resourceVersion"]} == {
        first["metadata"]["resourceVersion"]
    }
    assert "continue" not in third["metadata"]


def test_paging_with_selector_has_no_remaining_count(api, versions) -> None:
    page = _list(api, limit="2", labelSelector="!missing").json()
    assert "remainingItemCount" not in page["metadata"]
    assert page["metadata"]["continue"]


def test_continue_with_version_zero_is_continuation(api, versions) -> None:
    first = _list(api, limit="2").json()
    second = _list(api, limit="2", resourceVersion="0", **{"continue": first["metadata"]["continue"]})
    assert _names(second.json()) == ["c2", "c3"]


def test_continue_with_version_is_400(api, versions) -> None:
    first = _list(api, limit="2").json()
    response = _list(api, limit="2", resourceVersion=versions[0], **{"continue": first["metadata"]["continue"]})
    assert response.status == 400
    assert response.json()["message"] == "specifying resource version is not allowed when using continue"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"resourceVersionMatch": "Exact"}, "resourceVersionMatch is forbidden unless resourceVersion is provided"),
        (
            {"resourceVersionMatch": "NotOlderThan"},
            "resourceVersionMatch is forbidden unless resourceVersion is provided",
        ),
        (
            {"resourceVersionMatch": "Exact", "resourceVersion": "0"},
            'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        ),
        (
            {"resourceVersionMatch": "Exact", "resourceVersion": "0", "limit": "1"},
            'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        ),
        ({"resourceVersionMatch": "Sometime", "resourceVersion": "1"}, 'Unsupported value: "Sometime"'),
    ],
)
def test_invalid_cells_are_400(api, params, message) -> None:
    response = _list(api, **params)
    assert response.status == 400
    assert message in response.json()["message"]


def test_expired_continue_token_is_410(svc_server, api, versions) -> None:
    first = _list(api, limit="2").json()
    api.request("DELETE", f"{PATH}/c4")
    backend = svc_server.server.backend
    svc_server.call(backend.compact(svc_server.call(backend.current_revision())))
    response = _list(api, limit="2", **{"continue": first["metadata"]["continue"]})
    assert response.status == 410
    assert response.json()["message"].startswith("The provided continue parameter is too old")


def test_malformed_continue_token_is_400(api) -> None:
    response = _list(api, limit="2", **{"continue": "not-a-token"})
    assert response.status == 400


def test_too_large_version_is_504_with_retry_after(api, versions) -> None:
    response = _list(api, resourceVersion=str(int(versions[-1]) + 1000))
    assert response.status == 504
    assert response.headers["Retry-After"] == "1"
    assert response.json()["message"].startswith("Too large resource version")


def test_resource_versions_are_decimal_and_grow(api, versions) -> None:
    numbers = [int(v) for v in versions]
    assert numbers == sorted(numbers)
    assert all(v.isdigit() and v[0] != "0" for v in versions)
