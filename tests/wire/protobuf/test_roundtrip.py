"""decode(encode(x)) == x for generated objects in upstream's JSON form.

Some JSON forms have no protobuf counterpart and are not generated: null (left out on encode),
empty arrays and maps (a repeated field with no items is not on the wire, so it decodes as absent;
upstream's omitempty JSON drops them the same way), and zero values of the `omitempty` non-pointer
fields (image, path, hostNetwork, generation, ...), which upstream's JSON never holds: those are
generated non-zero here, and dropped in the test at the end.
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from svc.wire.protobuf import decode_object, encode_list, encode_object
from tests.wire.protobuf.samples import read_back

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)
nonempty_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20)
names = st.from_regex(r"[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?", fullmatch=True)
int32 = st.integers(-(1 << 31), (1 << 31) - 1)
int64 = st.integers(-(1 << 63), (1 << 63) - 1)
nonzero_int32 = int32.filter(bool)
timestamps = st.datetimes(datetime(1900, 1, 1), datetime(2200, 1, 1)).map(
    lambda moment: moment.replace(tzinfo=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
)
quantities = st.sampled_from(["0", "1", "100m", "128Mi", "1.5Gi", "2e3"])
int_or_string = st.one_of(int32, names)


def optional(**fields):
    return st.fixed_dictionaries({}, optional=fields)


metadata = st.fixed_dictionaries(
    {"name": names},
    optional={
        "namespace": names,
        "labels": st.dictionaries(names, text, min_size=1, max_size=3),
        "annotations": st.dictionaries(names, text, min_size=1, max_size=2),
        "resourceVersion": st.integers(0).map(str),
        "generation": int64.filter(bool),
        "creationTimestamp": timestamps,
        "finalizers": st.lists(names, min_size=1, max_size=2),
    },
)

config_maps = st.fixed_dictionaries(
    {"apiVersion": st.just("v1"), "kind": st.just("ConfigMap"), "metadata": metadata},
    optional={
        "data": st.dictionaries(text, text, min_size=1, max_size=3),
        "binaryData": st.dictionaries(
            names, st.binary(max_size=16).map(lambda b: base64.b64encode(b).decode()), min_size=1, max_size=2
        ),
        "immutable": st.booleans(),
    },
)

containers = st.fixed_dictionaries(
    {"name": names},
    optional={
        "image": nonempty_text,
        "args": st.lists(text, min_size=1, max_size=3),
        "ports": st.lists(
            optional(containerPort=int32, protocol=st.sampled_from(["TCP", "UDP"])), min_size=1, max_size=2
        ),
        "resources": optional(
            limits=st.dictionaries(st.sampled_from(["cpu", "memory"]), quantities, min_size=1),
            requests=st.dictionaries(st.sampled_from(["cpu", "memory"]), quantities, min_size=1),
        ),
        "readinessProbe": optional(
            httpGet=optional(path=nonempty_text, port=int_or_string),
            periodSeconds=nonzero_int32,
            failureThreshold=nonzero_int32,
        ),
        "env": st.lists(
            st.fixed_dictionaries({"name": names}, optional={"value": nonempty_text}), min_size=1, max_size=2
        ),
    },
)

pods = st.fixed_dictionaries(
    {"apiVersion": st.just("v1"), "kind": st.just("Pod"), "metadata": metadata},
    optional={
        # `containers` has no omitempty: a spec without it decodes with `containers: null`
        "spec": st.fixed_dictionaries(
            {"containers": st.lists(containers, min_size=1, max_size=2)},
            optional={
                "volumes": st.lists(
                    st.fixed_dictionaries({"name": names}, optional={"emptyDir": optional(sizeLimit=quantities)}),
                    min_size=1,
                    max_size=2,
                ),
                "priority": int32,  # a pointer: 0 stays
                "hostNetwork": st.just(True),
                "nodeSelector": st.dictionaries(names, text, min_size=1, max_size=2),
            },
        ),
        "status": optional(phase=st.sampled_from(["Pending", "Running"]), startTime=timestamps, podIP=nonempty_text),
    },
)


@settings(max_examples=150)
@given(config_maps)
def test_config_maps_round_trip(config_map):
    assert decode_object(encode_object(config_map)) == config_map


@settings(max_examples=150)
@given(pods)
def test_pods_round_trip(pod):
    assert decode_object(encode_object(pod)) == read_back(pod)


@given(st.lists(config_maps, min_size=1, max_size=5))
def test_lists_round_trip(config_map_items):
    items = [{k: v for k, v in item.items() if k not in ("apiVersion", "kind")} for item in config_map_items]
    listed = {
        "kind": "ConfigMapList",
        "apiVersion": "v1",
        "metadata": {"resourceVersion": "9"},
        "items": items,
    }
    assert decode_object(encode_list(listed, "ConfigMap")) == listed


metadata_zeros = optional(
    generateName=st.just(""),
    namespace=st.just(""),
    selfLink=st.just(""),
    uid=st.just(""),
    resourceVersion=st.just(""),
    generation=st.just(0),
)


@given(metadata, metadata_zeros)
def test_zero_values_upstream_json_omits_do_not_come_back(meta, zeros):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {**meta, **zeros}}
    kept = {key: value for key, value in meta.items() if key not in zeros}
    decoded = decode_object(encode_object(pod))
    assert decoded["metadata"] == kept
