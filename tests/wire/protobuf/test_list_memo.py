"""Within one list, equal message values are encoded once (memo.list_memo)."""

from __future__ import annotations

import copy

from svc.wire.protobuf import encode_list, encode_message
from svc.wire.protobuf.encoder import writer
from svc.wire.protobuf.memo import MEMO_TRIAL, current_memos, list_memo, remembered

from .samples import pod


def _pods(count: int, *, shared: bool) -> list[dict]:
    pods = [pod(index) for index in range(count)]
    if not shared:
        for index, obj in enumerate(pods):
            obj["spec"]["containers"][0]["image"] += f"-{index}"
    return pods


def _list_bytes_item_by_item(pods: list[dict]) -> bytes:
    listed = {"apiVersion": "v1", "kind": "PodList", "metadata": {}, "items": [encode_message(p) for p in pods]}
    return encode_list(listed, "Pod")  # items already bytes: nothing for the memo to do


def test_a_list_of_pods_sharing_containers_encodes_as_its_items_do_one_by_one() -> None:
    pods = _pods(5, shared=True)
    listed = {"apiVersion": "v1", "kind": "PodList", "metadata": {}, "items": copy.deepcopy(pods)}
    assert encode_list(listed, "Pod") == _list_bytes_item_by_item(pods)


def test_items_differing_only_in_a_zero_field_are_not_confused() -> None:
    first, second = pod(0), pod(1)
    first["spec"]["containers"][0]["ports"] = [{"containerPort": 80}]
    second["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 0}]
    listed = {"apiVersion": "v1", "kind": "PodList", "metadata": {}, "items": [first, second]}
    assert encode_list(listed, "Pod") == _list_bytes_item_by_item([first, second])


def test_a_message_whose_values_do_not_repeat_stops_beingremembered() -> None:
    write = writer("k8s.io.api.core.v1.Container")
    containers = [{"name": f"c{index}", "image": "nginx"} for index in range(MEMO_TRIAL + 1)]
    with list_memo():
        memos = current_memos.get()
        for container in containers[:-1]:
            assert remembered(memos, write, container) is not None
        assert remembered(memos, write, containers[-1]) is None
        assert memos[write] is None


def test_the_memo_lasts_one_list() -> None:
    assert current_memos.get() is None
    with list_memo():
        assert current_memos.get() == {}
    assert current_memos.get() is None


def test_pods_sharing_probes_but_not_containers_encode_as_they_do_one_by_one() -> None:
    pods = _pods(4, shared=False)
    for obj in pods:
        obj["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "100m"}, "limits": {"cpu": "1"}}
    listed = {"apiVersion": "v1", "kind": "PodList", "metadata": {}, "items": copy.deepcopy(pods)}
    assert encode_list(listed, "Pod") == _list_bytes_item_by_item(pods)
