"""The generated message table against protoc's reading of the same upstream .proto files."""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2

from svc.wire.protobuf.schema import _TABLE, schema

ROOT = Path(__file__).resolve().parents[3]
FDP = descriptor_pb2.FieldDescriptorProto
SCALAR_NAMES = {FDP.TYPE_STRING: "string", FDP.TYPE_BYTES: "bytes", FDP.TYPE_BOOL: "bool"}
SCALAR_NAMES |= {FDP.TYPE_INT32: "int32", FDP.TYPE_INT64: "int64"}


@cache
def load_generator():
    spec = importlib.util.spec_from_file_location("gen_proto_table", ROOT / "tools" / "gen_proto_table.py")
    module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def protoc_fields(descriptor_set: descriptor_pb2.FileDescriptorSet) -> dict[str, list[tuple]]:
    """(number, name, label, type) per message as protoc resolved them; maps as (key, value)."""
    messages: dict[str, descriptor_pb2.DescriptorProto] = {}

    def collect(scope: str, message: descriptor_pb2.DescriptorProto) -> None:
        messages[f"{scope}.{message.name}"] = message
        for nested in message.nested_type:
            collect(f"{scope}.{message.name}", nested)

    for file in descriptor_set.file:
        if file.package.startswith("k8s.io"):
            for message in file.message_type:
                collect(file.package, message)

    def type_of(field: FDP) -> str:
        return field.type_name.lstrip(".") if field.type == FDP.TYPE_MESSAGE else SCALAR_NAMES[field.type]

    table = {}
    for name, message in messages.items():
        if message.options.map_entry:
            continue
        rows = []
        for field in message.field:
            entry = messages.get(field.type_name.lstrip("."))
            if entry is not None and entry.options.map_entry:
                rows.append((field.number, field.name, "map", (type_of(entry.field[0]), type_of(entry.field[1]))))
            else:
                label = "repeated" if field.label == FDP.LABEL_REPEATED else "optional"
                rows.append((field.number, field.name, label, type_of(field)))
        table[name] = sorted(rows)
    return table


def our_fields() -> dict[str, list[tuple]]:
    return {
        name: sorted((f.number, f.name, f.label, ("string", f.type) if f.label == "map" else f.type) for f in fields)
        for name, fields in schema().messages.items()
    }


def test_every_message_and_field_matches_protoc(descriptor_set):
    assert our_fields() == protoc_fields(descriptor_set)


def test_committed_table_is_what_the_generator_writes():
    generator = load_generator()
    mirrors = generator.DEFAULT_GO_MIRRORS
    inputs = [*mirrors.values(), generator.DEFAULT_PROTO_ROOT, generator.DEFAULT_SWAGGER]
    missing = [str(path) for path in inputs if not path.exists()]
    if missing:
        pytest.skip(f"the generator's inputs are not at {', '.join(missing)}")
    messages, definitions, _ = generator.build(
        generator.DEFAULT_PROTO_ROOT, generator.DEFAULT_SWAGGER, mirrors, generator.GO_REF
    )
    assert generator.render(messages, definitions) == _TABLE.read_text()


GO_SOURCE = """package v1

import (
\tmetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Widget has a `json:"x"` in its comment.
type Widget struct {
\tmetav1.TypeMeta `json:",inline"`
\tmetav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
\t// Size is `optional`.
\tSize *int32 `json:"size,omitempty" protobuf:"varint,2,opt,name=size"`
\tLabels map[string]string `json:"labels" patchStrategy:"merge" protobuf:"bytes,3,rep,name=labels"`
\tNested struct {
\t\tInner string `json:"inner" protobuf:"bytes,9,opt,name=inner"`
\t} `json:"nested"`
\tLocal time.Time `protobuf:"-"`
}

type Empty struct{}

type Condition metav1.Condition

type Names []string
"""


def test_go_reader_takes_protobuf_tagged_fields_and_type_definitions():
    generator = load_generator()
    types = generator.go_types(GO_SOURCE, "k8s.io/api/x/v1")
    assert types["Widget"] == {
        1: generator.GoField("metav1.ObjectMeta", frozenset({"omitempty"})),
        2: generator.GoField("*int32", frozenset({"omitempty"})),
        3: generator.GoField("map[string]string", frozenset()),
    }
    assert types["Empty"] == types["Names"] == {}
    assert types["Condition"] == ("k8s.io/apimachinery/pkg/apis/meta/v1", "Condition")


@pytest.mark.parametrize(
    ("proto_type", "go_type", "json_options", "omitted"),
    [
        ("string", "string", {"omitempty"}, True),
        ("string", "types.UID", {"omitempty"}, True),
        ("int64", "int64", {"omitempty"}, True),
        ("bool", "bool", {"omitempty"}, True),
        ("bytes", "[]byte", {"omitempty"}, True),
        ("string", "string", set(), False),
        ("int32", "*int32", {"omitempty"}, False),
        ("string", "*string", {"omitempty"}, False),
        ("bytes", "[]byte", {"omitzero"}, False),
        ("k8s.io.api.core.v1.PodSpec", "PodSpec", {"omitempty"}, False),
        ("k8s.io.apimachinery.pkg.apis.meta.v1.Time", "Time", {"omitempty"}, False),
        ("k8s.io.apimachinery.pkg.apis.meta.v1.Time", "Time", {"omitempty", "omitzero"}, True),
        ("k8s.io.apimachinery.pkg.apis.meta.v1.Time", "*Time", {"omitzero"}, False),
    ],
)
def test_which_zero_values_upstream_json_leaves_out(proto_type, go_type, json_options, omitted):
    generator = load_generator()
    f = generator.Field(1, "f", "optional", proto_type, go=generator.GoField(go_type, frozenset(json_options)))
    assert generator.omitted_when_zero(f) is omitted


def test_omitzero_on_a_struct_of_no_known_zero_is_an_error():
    generator = load_generator()
    go = generator.GoField("PodSpec", frozenset({"omitzero"}))
    f = generator.Field(1, "spec", "optional", "k8s.io.api.core.v1.PodSpec", go=go)
    with pytest.raises(generator.ProtoSyntaxError, match=r"omitzero on a k8s\.io\.api\.core\.v1\.PodSpec"):
        generator.omitted_when_zero(f)


@pytest.mark.parametrize(
    ("proto_type", "go_type", "json_options", "written"),
    [
        ("k8s.io.api.core.v1.PodSpec", "PodSpec", {"omitempty"}, True),  # encoding/json never omits a struct
        ("k8s.io.api.core.v1.PodSpec", "*PodSpec", {"omitempty"}, False),
        ("k8s.io.apimachinery.pkg.apis.meta.v1.Time", "Time", {"omitempty"}, True),  # written null
        ("k8s.io.apimachinery.pkg.apis.meta.v1.Time", "Time", {"omitempty", "omitzero"}, False),
        ("string", "string", set(), True),
        ("string", "string", {"omitempty"}, False),
        ("int32", "*int32", set(), False),
        ("k8s.io.apimachinery.pkg.apis.meta.v1.Verbs", "Verbs", set(), False),  # a named slice: null_when_empty
    ],
)
def test_which_fields_upstream_json_always_writes(proto_type, go_type, json_options, written):
    generator = load_generator()
    f = generator.Field(1, "f", "optional", proto_type, go=generator.GoField(go_type, frozenset(json_options)))
    wrappers = frozenset({"k8s.io.apimachinery.pkg.apis.meta.v1.Verbs"})
    assert generator.always_written(f, wrappers) is written


@pytest.mark.parametrize(
    ("message", "proto_name", "written"),
    [
        ("k8s.io.api.resource.v1.ResourceClaimSpec", "devices", True),
        ("k8s.io.api.core.v1.PodTemplateSpec", "metadata", True),
        ("k8s.io.api.core.v1.ServiceStatus", "loadBalancer", True),
        ("k8s.io.api.core.v1.PodCondition", "lastProbeTime", True),
        ("k8s.io.api.apps.v1.ReplicaSetStatus", "replicas", True),
        ("k8s.io.api.policy.v1.PodDisruptionBudgetStatus", "disruptionsAllowed", True),
        ("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "creationTimestamp", False),  # omitzero at 1.36
        ("k8s.io.api.core.v1.PodSpec", "securityContext", False),  # a pointer
        ("k8s.io.api.core.v1.Volume", "volumeSource", False),  # inline: its fields are the parent's
        ("k8s.io.api.rbac.v1.Role", "rules", False),  # a list: null_when_empty
    ],
)
def test_committed_table_marks_the_fields_always_written(message, proto_name, written):
    assert field(message, proto_name).always_written is written


@pytest.mark.parametrize(
    ("message", "proto_name", "omitted"),
    [
        ("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "generateName", True),
        ("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "creationTimestamp", True),
        ("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "deletionGracePeriodSeconds", False),
        ("k8s.io.api.apps.v1.DeploymentSpec", "minReadySeconds", True),
        ("k8s.io.api.apps.v1.DeploymentSpec", "replicas", False),
        ("k8s.io.api.core.v1.ContainerPort", "containerPort", False),
        ("k8s.io.api.core.v1.ContainerStatus", "ready", False),
        ("k8s.io.api.core.v1.PersistentVolumeClaimSpec", "storageClassName", False),
        ("k8s.io.api.admissionregistration.v1.WebhookClientConfig", "caBundle", True),
        ("k8s.io.api.core.v1.Pod", "spec", False),
    ],
)
def test_committed_table_marks_the_fields_left_out_when_zero(message, proto_name, omitted):
    assert field(message, proto_name).omitted_when_zero is omitted


def test_parser_resolves_nested_and_relative_names(tmp_path):
    (tmp_path / "a.proto").write_text(
        """
        syntax = "proto2";
        package x.y;
        option go_package = "x/y";
        // A comment; /* and a block */ one.
        message Outer {
          message Inner { optional string s = 1 [default = "a"]; }
          optional Inner inner = 1;
          repeated .x.y.Other others = 2;
          map<string, Inner> byName = 3;
        }
        message Other { optional Outer.Inner inner = 1; optional int64 n = 2; }
        """
    )
    messages = load_generator().parse_tree(tmp_path)
    assert [(f.name, f.label, f.type) for f in messages["x.y.Outer"].fields] == [
        ("inner", "optional", "x.y.Outer.Inner"),
        ("others", "repeated", "x.y.Other"),
        ("byName", "map", ("string", "x.y.Outer.Inner")),
    ]
    assert messages["x.y.Other"].fields[0].type == "x.y.Outer.Inner"


def test_parser_rejects_what_upstream_does_not_use(tmp_path):
    generator = load_generator()
    (tmp_path / "a.proto").write_text('syntax = "proto2"; package p; enum E { A = 0; }')
    with pytest.raises(generator.ProtoSyntaxError, match="unsupported top-level statement 'enum'"):
        generator.parse_tree(tmp_path)


def field(message: str, proto_name: str):
    return next(f for f in schema().messages[message] if f.name == proto_name)


@pytest.mark.parametrize(
    ("message", "proto_name", "json_name"),
    [
        ("k8s.io.api.admissionregistration.v1.ValidatingWebhookConfiguration", "Webhooks", "webhooks"),
        ("k8s.io.api.admissionregistration.v1.Variable", "Expression", "expression"),
        ("k8s.io.api.authentication.v1.BoundObjectReference", "uID", "uid"),
        ("k8s.io.api.networking.v1.IngressClassParametersReference", "aPIGroup", "apiGroup"),
        ("k8s.io.api.core.v1.DaemonEndpoint", "Port", "Port"),
        ("k8s.io.api.core.v1.Volume", "volumeSource", ""),
        ("k8s.io.api.core.v1.Probe", "handler", ""),
        ("k8s.io.api.core.v1.SecretKeySelector", "localObjectReference", ""),
        ("k8s.io.api.extensions.v1beta1.IngressRule", "ingressRuleValue", ""),
        ("k8s.io.api.core.v1.Pod", "metadata", "metadata"),
    ],
)
def test_json_names_where_they_differ_from_proto_names(message, proto_name, json_name):
    assert field(message, proto_name).json_name == json_name


def test_list_wrappers_are_the_named_slices():
    assert schema().list_wrappers == {
        "k8s.io.apimachinery.pkg.apis.meta.v1.Verbs",
        *(
            f"k8s.io.api.{group}.{version}.ExtraValue"
            for group in ("authentication", "authorization", "certificates")
            for version in ("v1", "v1beta1")
        ),
    }


@pytest.mark.parametrize(
    ("group_version", "kind", "message"),
    [
        ("v1", "Pod", "k8s.io.api.core.v1.Pod"),
        ("v1", "ConfigMapList", "k8s.io.api.core.v1.ConfigMapList"),
        ("apps/v1", "Deployment", "k8s.io.api.apps.v1.Deployment"),
        ("rbac.authorization.k8s.io/v1", "Role", "k8s.io.api.rbac.v1.Role"),
        ("flowcontrol.apiserver.k8s.io/v1", "FlowSchema", "k8s.io.api.flowcontrol.v1.FlowSchema"),
        (
            "authentication.k8s.io/v1beta1",
            "SelfSubjectReview",
            "k8s.io.api.authentication.v1beta1.SelfSubjectReview",
        ),
        (
            "apidiscovery.k8s.io/v2",
            "APIGroupDiscoveryList",
            "k8s.io.api.apidiscovery.v2.APIGroupDiscoveryList",
        ),
        ("v1", "Status", "k8s.io.apimachinery.pkg.apis.meta.v1.Status"),
        ("v1", "APIResourceList", "k8s.io.apimachinery.pkg.apis.meta.v1.APIResourceList"),
        ("apps/v1", "WatchEvent", "k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent"),
        ("batch/v1", "DeleteOptions", "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions"),
        (
            "meta.k8s.io/v1",
            "PartialObjectMetadata",
            "k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata",
        ),
        (
            "meta.k8s.io/v1beta1",
            "PartialObjectMetadataList",
            "k8s.io.apimachinery.pkg.apis.meta.v1beta1.PartialObjectMetadataList",
        ),
        ("meta.k8s.io/v1", "Table", None),
        ("apps/v1", "PodTemplateSpec", None),
        ("v1", "ExtraValue", None),
    ],
)
def test_kind_to_message(group_version, kind, message):
    assert schema().message_for(group_version, kind) == message
