"""omit_empty.py drops from an object exactly what the Protobuf round trip drops, for every built-in kind.

Objects are generated from the message table: every field may be absent, null, empty or not, down to
a few levels. Fields of the custom JSON forms (times, quantities, raw JSON) are left out but for
their empty lists: their values are kept whatever they hold.
"""

from __future__ import annotations

import copy
import functools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from svc.api.omit_empty import pruner
from svc.wire.protobuf.decoder import decoder
from svc.wire.protobuf.encoder import encoder
from svc.wire.protobuf.forms import form_of
from svc.wire.protobuf.schema import FieldSpec, schema

_SCALARS = {
    "string": st.sampled_from(["", "a"]),
    "bytes": st.sampled_from(["", "YQ=="]),
    "int32": st.sampled_from([0, 7]),
    "int64": st.sampled_from([0, 7]),
    "bool": st.booleans(),
}
_DEPTH = 3
_KINDS = sorted(
    (group_version.rpartition("/")[0], group_version.rpartition("/")[2], kind, message)
    for group_version, kinds in schema().kinds.items()
    for kind, message in kinds.items()
)


def _value(field: FieldSpec, depth: int) -> st.SearchStrategy | None:
    """Values of one field (None: the field is left out)."""
    if form_of(field.type) is not None:
        return st.just([]) if field.label == "repeated" else None
    if field.type in _SCALARS:
        single = _SCALARS[field.type]
    elif depth == 0:
        return None
    else:
        single = _message(field.type, depth - 1)
    if field.label == "repeated":
        return st.lists(single, max_size=2)
    if field.label == "map":
        return st.dictionaries(st.sampled_from(["k", "l"]), single, max_size=2)
    return single


def _fields(message: str, depth: int) -> dict[str, st.SearchStrategy]:
    found: dict[str, st.SearchStrategy] = {}
    for field in schema().messages[message]:
        if field.inline:
            found.update(_fields(field.type, depth))
            continue
        values = _value(field, depth)
        if values is not None:
            found[field.json_name] = st.one_of(st.none(), values)
    return found


@functools.cache
def _message(message: str, depth: int) -> st.SearchStrategy:
    return st.fixed_dictionaries({}, optional=_fields(message, depth))


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), kind=st.sampled_from(_KINDS))
def test_pruned_object_is_what_protobuf_storage_gives_back(data, kind) -> None:
    group, version, name, message = kind
    obj = data.draw(_message(message, _DEPTH))
    encoded = encoder(message)(obj)
    expected = decoder(message)(encoded, 0, len(encoded))
    prune = pruner(group, version, name)
    assert prune is not None
    pruned = copy.deepcopy(obj)
    prune(pruned)
    assert pruned == expected


def test_custom_kinds_have_no_plan() -> None:
    assert pruner("example.com", "v1", "Widget") is None


def test_pointer_zero_is_kept_and_omitempty_zero_dropped() -> None:
    deployment = {"spec": {"revisionHistoryLimit": 0, "minReadySeconds": 0, "paused": False, "template": {}}}
    prune = pruner("apps", "v1", "Deployment")
    assert prune is not None
    prune(deployment)
    assert deployment["spec"]["revisionHistoryLimit"] == 0
    assert "minReadySeconds" not in deployment["spec"] and "paused" not in deployment["spec"]


def test_an_absent_struct_is_written_as_its_zero() -> None:
    """encoding/json never omits a struct value: an absent `devices` is written with its own
    always-written fields (`requests` has no omitempty: null)."""
    claim = {"metadata": {"name": "c"}, "spec": {}}
    prune = pruner("resource.k8s.io", "v1", "ResourceClaim")
    assert prune is not None
    prune(claim)
    assert claim["spec"] == {"devices": {"requests": None}}
    assert claim["status"] == {}


def test_a_struct_zero_carries_its_scalars_and_sub_structs() -> None:
    node = {"metadata": {"name": "n"}, "status": {}}
    prune = pruner("", "v1", "Node")
    assert prune is not None
    prune(node)
    assert node["status"]["daemonEndpoints"] == {"kubeletEndpoint": {"Port": 0}}
    assert node["status"]["nodeInfo"]["kubeletVersion"] == ""


def test_a_template_without_metadata_gets_an_empty_one() -> None:
    """ObjectMeta.creationTimestamp is `omitzero` at release-1.36: not written as null."""
    template = {"metadata": {"name": "t"}, "template": {"spec": {"containers": [{"name": "c"}]}}}
    prune = pruner("", "v1", "PodTemplate")
    assert prune is not None
    prune(template)
    assert template["template"]["metadata"] == {}


def test_a_zero_time_that_is_not_omitzero_is_written_null() -> None:
    pod = {"status": {"conditions": [{"type": "Ready", "status": "True"}]}}
    prune = pruner("", "v1", "Pod")
    assert prune is not None
    prune(pod)
    condition = pod["status"]["conditions"][0]
    assert (condition["lastProbeTime"], condition["lastTransitionTime"]) == (None, None)


def test_a_null_scalar_without_omitempty_is_written_zero() -> None:
    replica_set = {"spec": {"selector": {}}, "status": {"replicas": None}}
    prune = pruner("apps", "v1", "ReplicaSet")
    assert prune is not None
    prune(replica_set)
    assert replica_set["status"]["replicas"] == 0
