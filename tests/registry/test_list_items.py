"""The forms a cache-served list hands its items over in (svc.registry.list_items)."""

from __future__ import annotations

import orjson

from svc.registry.list_items import ItemForm, list_items
from svc.storage.cached_object import CachedObject


def _cached(name: str, api_version: str = "v1") -> CachedObject:
    return CachedObject.of({"apiVersion": api_version, "kind": "ConfigMap", "metadata": {"name": name}})


def _presented(seen: list[str]):
    def present(obj: dict) -> dict:
        seen.append(obj["metadata"]["name"])
        return {**obj, "apiVersion": "v1", "kind": "ConfigMap"}

    return present


def test_one_pass_items_are_decoded_only_when_the_iteration_reaches_them() -> None:
    seen: list[str] = []
    items = list_items([_cached("a"), _cached("b")], ItemForm.ONE_PASS, _presented(seen), "v1", "ConfigMap")
    assert len(items) == 2 and seen == []
    iterator = iter(items)
    assert next(iterator)["metadata"]["name"] == "a"
    assert seen == ["a"]
    assert [item["metadata"]["name"] for item in iterator] == ["b"]


def test_json_items_embed_the_cached_bytes_when_the_served_identity_matches() -> None:
    seen: list[str] = []
    same, other = _cached("same"), _cached("other", api_version="v1beta1")
    items = list_items([same, other], ItemForm.JSON, _presented(seen), "v1", "ConfigMap")
    assert isinstance(items[0], orjson.Fragment)
    assert items[1]["apiVersion"] == "v1" and seen == ["other"]


def test_decoded_items_are_private_copies() -> None:
    cached = _cached("a")
    first = list_items([cached], ItemForm.DECODED, _presented([]), "v1", "ConfigMap")[0]
    first["metadata"]["name"] = "changed"
    assert list_items([cached], ItemForm.DECODED, _presented([]), "v1", "ConfigMap")[0]["metadata"]["name"] == "a"
