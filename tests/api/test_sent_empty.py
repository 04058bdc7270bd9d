"""Where an update sent an empty list Go writes even when nil, and putting it back for a webhook's copy."""

from __future__ import annotations

from typing import Any

from svc.api.sent_empty import NOTHING, finder


def _pod(sources: Any) -> dict[str, Any]:
    volume = {"name": "v", "projected": {"sources": sources}}
    return {"spec": {"containers": [], "volumes": [volume]}}


def test_a_kind_without_such_lists_has_no_finder() -> None:
    assert finder("", "v1", "ConfigMap") is None


def test_empty_lists_are_found_in_list_items_too() -> None:
    find = finder("", "v1", "Pod")
    assert find is not None
    pod = _pod([])
    found = find(pod)
    assert {key for _, key, _ in found.places} == {"containers", "sources"}


def test_nothing_is_found_where_the_lists_are_filled_or_null() -> None:
    find = finder("", "v1", "Pod")
    assert find is not None
    pod = _pod(None)
    pod["spec"]["containers"] = [{"name": "c"}]
    assert find(pod) is NOTHING


def test_put_back_fills_only_what_is_null_and_nulls_it_again() -> None:
    find = finder("", "v1", "Pod")
    assert find is not None
    pod = _pod([])
    found = find(pod)
    pod["spec"]["containers"] = [{"name": "set by the checks"}]
    pod["spec"]["volumes"][0]["projected"]["sources"] = None
    with found.put_back():
        assert pod["spec"]["volumes"][0]["projected"]["sources"] == []
        assert pod["spec"]["containers"] == [{"name": "set by the checks"}]
    assert pod["spec"]["volumes"][0]["projected"]["sources"] is None
    assert pod["spec"]["containers"] == [{"name": "set by the checks"}]
