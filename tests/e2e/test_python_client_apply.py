"""Server-side apply through the official Python client."""

from __future__ import annotations

import pytest
from kubernetes import client, config
from kubernetes.client.rest import ApiException

APPLY = "application/apply-patch+yaml"


@pytest.fixture
def core(svc_server_factory):
    server = svc_server_factory("--brand-profile=kubernetes")
    api = config.new_client_from_config(config_file=str(server.kubeconfig))
    yield client.CoreV1Api(api)
    api.close()


def _config(data: dict) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied"}, "data": data}


def test_apply_creates_then_updates(core) -> None:
    created = core.patch_namespaced_config_map(
        "applied", "default", _config({"a": "1"}), field_manager="py", _content_type=APPLY
    )
    assert created.data == {"a": "1"}
    assert created.metadata.managed_fields[0].manager == "py"
    updated = core.patch_namespaced_config_map(
        "applied", "default", _config({"a": "2"}), field_manager="py", _content_type=APPLY
    )
    assert updated.data == {"a": "2"}


def test_repeated_apply_is_a_no_op(core) -> None:
    first = core.patch_namespaced_config_map(
        "applied", "default", _config({"a": "1"}), field_manager="py", _content_type=APPLY
    )
    second = core.patch_namespaced_config_map(
        "applied", "default", _config({"a": "1"}), field_manager="py", _content_type=APPLY
    )
    assert second.metadata.resource_version == first.metadata.resource_version


def test_conflict_and_force(core) -> None:
    core.patch_namespaced_config_map(
        "applied", "default", _config({"a": "1"}), field_manager="one", _content_type=APPLY
    )
    with pytest.raises(ApiException) as caught:
        core.patch_namespaced_config_map(
            "applied", "default", _config({"a": "2"}), field_manager="two", _content_type=APPLY
        )
    assert caught.value.status == 409
    forced = core.patch_namespaced_config_map(
        "applied", "default", _config({"a": "2"}), field_manager="two", force=True, _content_type=APPLY
    )
    assert forced.data == {"a": "2"}


def test_applier_removing_a_field_it_owned_alone(core) -> None:
    core.patch_namespaced_config_map(
        "applied", "default", _config({"a": "1", "b": "2"}), field_manager="py", _content_type=APPLY
    )
    result = core.patch_namespaced_config_map(
        "applied", "default", _config({"a": "1"}), field_manager="py", _content_type=APPLY
    )
    assert result.data == {"a": "1"}


def test_apply_without_field_manager_is_422(core) -> None:
    with pytest.raises(ApiException) as caught:
        core.patch_namespaced_config_map("applied", "default", _config({"a": "1"}), _content_type=APPLY)
    assert caught.value.status == 422
