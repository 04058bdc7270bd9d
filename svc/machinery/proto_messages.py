"""Protobuf message classes built at run time from a table of fields, for small gRPC plugin APIs.

The plugin protocols the API server speaks (the external JWT signer, KMS) are a handful of flat
messages. Declaring their fields here (names and numbers are upstream's facts) and letting the
protobuf runtime build the classes avoids committing generated code and a protoc step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, timestamp_pb2

Field = tuple[str, int, str]  # name, number, type: "string" | "bytes" | "bool" | "int64" | "Timestamp" | a message
_SCALARS = {
    "string": descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
    "bytes": descriptor_pb2.FieldDescriptorProto.TYPE_BYTES,
    "bool": descriptor_pb2.FieldDescriptorProto.TYPE_BOOL,
    "int64": descriptor_pb2.FieldDescriptorProto.TYPE_INT64,
}
_TIMESTAMP = "google.protobuf.Timestamp"


def build_messages(package: str, messages: Mapping[str, Sequence[Field]]) -> dict[str, Any]:
    """Classes for `messages` of `package` (proto3). A type ending in `[]` is a repeated field; a type
    that is not a scalar names another message of the package, or `Timestamp`."""
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(timestamp_pb2.DESCRIPTOR.serialized_pb)
    file = descriptor_pb2.FileDescriptorProto(
        name=f"svc/{package.replace('.', '/')}.proto",
        package=package,
        syntax="proto3",
        dependency=[timestamp_pb2.DESCRIPTOR.name],
    )
    for message_name, fields in messages.items():
        message = file.message_type.add(name=message_name)
        for name, number, kind in fields:
            repeated = kind.endswith("[]")
            kind = kind.removesuffix("[]")
            label = (
                descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
                if repeated
                else descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL
            )
            field = message.field.add(name=name, number=number, label=label)
            if kind in _SCALARS:
                field.type = _SCALARS[kind]
            else:
                field.type = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
                field.type_name = f".{_TIMESTAMP}" if kind == "Timestamp" else f".{package}.{kind}"
    pool.Add(file)
    return {name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{package}.{name}")) for name in messages}
