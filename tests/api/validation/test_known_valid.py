"""Parts found valid before are not checked again, and nothing else changes: a remembered volume or
container resources still pass, a part differing by one value (or only by its JSON type) is checked
in full, and errors always name their own paths."""

from __future__ import annotations

from svc.api.validation.known_valid import KnownValid
from tests.api.validation.support import causes, with_path
from tests.api.validation.test_pods import POD

CONFIG = {"name": "config", "configMap": {"name": "app", "defaultMode": 420}}


def _pod_causes(pod: dict) -> list[tuple[str, str, str]]:
    return causes("", "Pod", pod)


def test_a_volume_valid_in_one_pod_passes_in_the_next() -> None:
    pod = with_path(POD, "spec.volumes.1", CONFIG)
    assert _pod_causes(pod) == []
    assert _pod_causes(pod) == []


def test_a_remembered_volume_changed_by_one_value_is_checked_again_at_its_own_path() -> None:
    assert _pod_causes(with_path(POD, "spec.volumes.1", CONFIG)) == []
    bad = {"name": "config", "configMap": {"name": "app", "defaultMode": 4096}}
    found = _pod_causes(with_path(POD, "spec.volumes.1", bad))
    assert [(field, reason) for field, reason, _ in found] == [
        ("spec.volumes[1].configMap.defaultMode", "FieldValueInvalid")
    ]


def test_remembered_container_resources_changed_by_one_value_are_checked_again() -> None:
    assert _pod_causes(POD) == []
    pod = with_path(POD, "spec.containers.0.resources.requests.cpu", "900m")
    found = _pod_causes(pod)
    assert [(field, reason) for field, reason, _ in found] == [
        ("spec.containers[0].resources.requests", "FieldValueInvalid")
    ]


def test_an_invalid_part_is_reported_on_every_write() -> None:
    pod = with_path(POD, "spec.containers.0.resources.requests.cpu", "900m")
    assert _pod_causes(pod) == _pod_causes(pod) != []


def test_the_memory_is_bounded_and_keys_keep_json_types() -> None:
    memo = KnownValid(limit=2)
    for part in ({"a": 1}, {"a": 2}, {"a": 3}):
        memo.remember(KnownValid.key(part))
    assert KnownValid.key({"a": 3}) in memo
    assert KnownValid.key({"a": 1}) not in memo
    assert KnownValid.key({"a": "3"}) not in memo
    assert KnownValid.key({"a": True}) != KnownValid.key({"a": 1})
    assert KnownValid.key({1j: 1}) not in memo


def test_a_remembered_source_still_has_its_volume_name_checked() -> None:
    assert _pod_causes(with_path(POD, "spec.volumes.1", CONFIG)) == []
    renamed = {**CONFIG, "name": "Config_1"}
    found = _pod_causes(with_path(POD, "spec.volumes.1", renamed))
    assert [(field, reason) for field, reason, _ in found] == [("spec.volumes[1].name", "FieldValueInvalid")]


def test_probes_remembered_valid_are_checked_again_under_another_grace_period() -> None:
    sleeper = with_path(POD, "spec.containers.0.lifecycle", {"preStop": {"sleep": {"seconds": 20}}})
    assert _pod_causes(with_path(sleeper, "spec.terminationGracePeriodSeconds", 30)) == []
    found = _pod_causes(with_path(sleeper, "spec.terminationGracePeriodSeconds", 10))
    assert [(field, reason) for field, reason, _ in found] == [
        ("spec.containers[0].lifecycle.preStop.sleep", "FieldValueInvalid")
    ]
