"""`/openapi/v2` as the gnostic `openapi_v2.Document` Protobuf message, next to the JSON document.

The messages are decoded with descriptors built here from gnostic's `OpenAPIv2.proto` field numbers
(transcribed as data, independent of the encoder's own table), and every definition and operation is
rebuilt as JSON to compare with the JSON document.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, message_factory

PROTO_ACCEPT = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
PROTO_TYPE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"

# message -> (field, number, type, repeated); types are scalars or message names of package openapi.v2.
_GNOSTIC: dict[str, list[tuple[str, int, str, bool]]] = {
    "Document": [("swagger", 1, "string", False), ("info", 2, "Info", False), ("paths", 8, "Paths", False),
                 ("definitions", 9, "Definitions", False), ("vendor_extension", 16, "NamedAny", True)],
    "Info": [("title", 1, "string", False), ("version", 2, "string", False)],
    "Paths": [("vendor_extension", 1, "NamedAny", True), ("path", 2, "NamedPathItem", True)],
    "NamedPathItem": [("name", 1, "string", False), ("value", 2, "PathItem", False)],
    "PathItem": [("get", 2, "Operation", False), ("put", 3, "Operation", False), ("post", 4, "Operation", False),
                 ("delete", 5, "Operation", False), ("patch", 8, "Operation", False),
                 ("parameters", 9, "ParametersItem", True)],
    "Operation": [("tags", 1, "string", True), ("operation_id", 5, "string", False), ("consumes", 7, "string", True),
                  ("parameters", 8, "ParametersItem", True), ("responses", 9, "Responses", False),
                  ("vendor_extension", 13, "NamedAny", True)],
    "ParametersItem": [("parameter", 1, "Parameter", False), ("json_reference", 2, "JsonReference", False)],
    "JsonReference": [("_ref", 1, "string", False), ("description", 2, "string", False)],
    "Parameter": [("body_parameter", 1, "BodyParameter", False), ("non_body_parameter", 2, "NonBodyParameter", False)],
    "BodyParameter": [("description", 1, "string", False), ("name", 2, "string", False), ("in", 3, "string", False),
                      ("required", 4, "bool", False), ("schema", 5, "Schema", False)],
    "NonBodyParameter": [("query_parameter_sub_schema", 3, "QueryParameterSubSchema", False),
                         ("path_parameter_sub_schema", 4, "PathParameterSubSchema", False)],
    "QueryParameterSubSchema": [("required", 1, "bool", False), ("in", 2, "string", False),
                                ("description", 3, "string", False), ("name", 4, "string", False),
                                ("type", 6, "string", False), ("unique_items", 20, "bool", False)],
    "PathParameterSubSchema": [("required", 1, "bool", False), ("in", 2, "string", False),
                               ("description", 3, "string", False), ("name", 4, "string", False),
                               ("type", 5, "string", False), ("unique_items", 19, "bool", False)],
    "Responses": [("response_code", 1, "NamedResponseValue", True)],
    "NamedResponseValue": [("name", 1, "string", False), ("value", 2, "ResponseValue", False)],
    "ResponseValue": [("response", 1, "Response", False), ("json_reference", 2, "JsonReference", False)],
    "Response": [("description", 1, "string", False), ("schema", 2, "SchemaItem", False)],
    "SchemaItem": [("schema", 1, "Schema", False)],
    "Definitions": [("additional_properties", 1, "NamedSchema", True)],
    "Properties": [("additional_properties", 1, "NamedSchema", True)],
    "NamedSchema": [("name", 1, "string", False), ("value", 2, "Schema", False)],
    "Schema": [("_ref", 1, "string", False), ("format", 2, "string", False), ("description", 4, "string", False),
               ("required", 19, "string", True), ("enum", 20, "Any", True),
               ("additional_properties", 21, "AdditionalPropertiesItem", False), ("type", 22, "TypeItem", False),
               ("items", 23, "ItemsItem", False), ("properties", 25, "Properties", False),
               ("vendor_extension", 31, "NamedAny", True)],
    "AdditionalPropertiesItem": [("schema", 1, "Schema", False), ("boolean", 2, "bool", False)],
    "TypeItem": [("value", 1, "string", True)],
    "ItemsItem": [("schema", 1, "Schema", True)],
    "NamedAny": [("name", 1, "string", False), ("value", 2, "Any", False)],
    "Any": [("value", 1, ".google.protobuf.Any", False), ("yaml", 2, "string", False)],
}  # fmt: skip
_SCALARS = {
    "string": descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
    "bool": descriptor_pb2.FieldDescriptorProto.TYPE_BOOL,
}


def _document_class() -> Any:
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(descriptor_pb2.FileDescriptorProto.FromString(
        any_pb2.DESCRIPTOR.serialized_pb).SerializeToString())  # fmt: skip
    file = descriptor_pb2.FileDescriptorProto(
        name="openapiv2/test.proto", package="openapi.v2", syntax="proto3", dependency=["google/protobuf/any.proto"]
    )
    for name, fields in _GNOSTIC.items():
        message = file.message_type.add(name=name)
        for field_name, number, kind, repeated in fields:
            field = message.field.add(name=field_name, number=number)
            field.label = field.LABEL_REPEATED if repeated else field.LABEL_OPTIONAL
            if kind in _SCALARS:
                field.type = _SCALARS[kind]
            else:
                field.type = field.TYPE_MESSAGE
                field.type_name = kind if kind.startswith(".") else f".openapi.v2.{kind}"
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("openapi.v2.Document"))


def _extensions(named: Any) -> dict[str, Any]:
    return {entry.name: yaml.safe_load(entry.value.yaml) for entry in named}


def _schema(message: Any) -> dict[str, Any]:
    """The JSON form of a decoded Schema, for the keys a Kubernetes document uses."""
    schema: dict[str, Any] = {}
    for key, name in (("$ref", "_ref"), ("format", "format"), ("description", "description")):
        if getattr(message, name):
            schema[key] = getattr(message, name)
    if message.required:
        schema["required"] = list(message.required)
    if message.enum:
        schema["enum"] = [yaml.safe_load(value.yaml) for value in message.enum]
    if message.HasField("additional_properties"):
        extra = message.additional_properties
        schema["additionalProperties"] = _schema(extra.schema) if extra.HasField("schema") else extra.boolean
    if message.type.value:
        schema["type"] = message.type.value[0]
    if message.items.schema:
        schema["items"] = _schema(message.items.schema[0])
    if message.HasField("properties"):
        schema["properties"] = {p.name: _schema(p.value) for p in message.properties.additional_properties}
    schema.update(_extensions(message.vendor_extension))
    return schema


def _parameter(item: Any) -> dict[str, Any]:
    body = item.parameter.body_parameter
    if item.parameter.HasField("body_parameter"):
        return {"name": body.name, "in": body.__getattribute__("in"), "required": body.required,
                "schema": _schema(body.schema)}  # fmt: skip
    query = item.parameter.non_body_parameter.query_parameter_sub_schema
    written = {"name": query.name, "in": getattr(query, "in"), "type": query.type}
    if query.unique_items:
        written["uniqueItems"] = True
    return written


def _operation(message: Any) -> dict[str, Any]:
    operation: dict[str, Any] = {"operationId": message.operation_id, "tags": list(message.tags)}
    if message.consumes:
        operation["consumes"] = list(message.consumes)
    operation["parameters"] = [_parameter(item) for item in message.parameters]
    operation["responses"] = {
        code.name: {"description": code.value.response.description}
        | ({"schema": _schema(code.value.response.schema.schema)} if code.value.response.HasField("schema") else {})
        for code in message.responses.response_code
    }
    operation.update(_extensions(message.vendor_extension))
    return operation


def _normalized_operation(operation: dict[str, Any]) -> dict[str, Any]:
    """The JSON operation with the keys in the order `_operation` rebuilds them; false `required` and
    false `uniqueItems` are absent in proto3."""
    parameters = [{k: v for k, v in p.items() if v is not False} for p in operation.get("parameters", [])]
    rebuilt = {k: operation[k] for k in ("operationId", "tags", "consumes") if k in operation}
    rebuilt["parameters"] = parameters
    rebuilt["responses"] = operation["responses"]
    rebuilt.update({k: v for k, v in operation.items() if k.startswith("x-")})
    return rebuilt


def _without_empty(value: Any) -> Any:
    """The JSON with empty descriptions left out: proto3 cannot tell them from unset ones."""
    if isinstance(value, dict):
        return {key: _without_empty(item) for key, item in value.items() if (key, item) != ("description", "")}
    if isinstance(value, list):
        return [_without_empty(item) for item in value]
    return value


@pytest.fixture(scope="module")
def document_class() -> Any:
    return _document_class()


@pytest.fixture
def api(svc_server):
    return svc_server.client()


def test_protobuf_document_decodes_and_matches_the_json_one(api, document_class) -> None:
    json_document = api.request("GET", "/openapi/v2").json()
    response = api.request("GET", "/openapi/v2", accept=PROTO_ACCEPT)
    assert response.status == 200
    assert response.headers["Content-Type"] == PROTO_TYPE
    document = document_class.FromString(response.body)

    assert document.swagger == "2.0"
    assert (document.info.title, document.info.version) == (
        json_document["info"]["title"],
        json_document["info"]["version"],
    )
    assert [path.name for path in document.paths.path] == list(json_document["paths"])
    definitions = document.definitions.additional_properties
    assert [named.name for named in definitions] == list(json_document["definitions"])
    assert {named.name: _schema(named.value) for named in definitions} == _without_empty(json_document["definitions"])
    for path in document.paths.path:
        expected = json_document["paths"][path.name]
        for verb in ("get", "put", "post", "delete", "patch"):
            if verb in expected:
                assert _operation(getattr(path.value, verb)) == _normalized_operation(expected[verb]), (path.name, verb)
            else:
                assert not path.value.HasField(verb)


def test_the_current_media_type_is_served_too(api, document_class) -> None:
    response = api.request("GET", "/openapi/v2", accept=PROTO_TYPE)
    assert response.headers["Content-Type"] == PROTO_TYPE
    assert document_class.FromString(response.body).swagger == "2.0"


@pytest.mark.parametrize("accept", ["application/json", PROTO_ACCEPT])
def test_both_encodings_share_upstreams_caching_headers(api, accept: str) -> None:
    first = api.request("GET", "/openapi/v2", accept=accept)
    etag = first.headers["ETag"]
    assert etag.startswith('"') and len(etag) == 130 and etag.strip('"').isupper()
    assert "Accept" in first.headers.get_all("Vary")
    assert first.headers["Last-Modified"].endswith("GMT")

    again = api.request("GET", "/openapi/v2", accept=accept, headers={"If-None-Match": etag})
    assert again.status == 304
    assert again.body == b""
    assert again.headers["ETag"] == etag
    since = api.request(
        "GET", "/openapi/v2", accept=accept, headers={"If-Modified-Since": first.headers["Last-Modified"]}
    )
    assert since.status == 304
    stale = api.request("GET", "/openapi/v2", accept=accept, headers={"If-None-Match": '"other"'})
    assert stale.status == 200


def test_json_and_protobuf_have_the_same_etag(api) -> None:
    json_tag = api.request("GET", "/openapi/v2").headers["ETag"]
    assert api.request("GET", "/openapi/v2", accept=PROTO_ACCEPT).headers["ETag"] == json_tag


@pytest.mark.parametrize(
    ("accept", "content_type"),
    [
        ("*/*", "application/json"),
        ("application/*", "application/json"),
        (f"application/json;q=0.5, {PROTO_ACCEPT}", PROTO_TYPE),
    ],
)
def test_accept_negotiation_prefers_json_for_wildcards(api, accept: str, content_type: str) -> None:
    assert api.request("GET", "/openapi/v2", accept=accept).headers["Content-Type"] == content_type


def test_an_unacceptable_type_is_a_bare_406(api) -> None:
    response = api.request("GET", "/openapi/v2", accept="application/yaml")
    assert response.status == 406
    assert response.body == b""
