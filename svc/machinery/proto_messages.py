"""Protobuf message classes built at run time from a table of fields, for small gRPC plugin APIs.

The plugin protocols the API server speaks (the external JWT signer, KMS v2) are a handful of flat
messages. Declaring their fields here (names and numbers are upstream's facts) and letting the
protobuf runtime build the classes avoids committing generated code and a protoc step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, timestamp_pb2
from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper

Field = tuple[str, int, str]
"""name, number, type: "string" | "bytes" | "bool" | "int64" | "Timestamp" | a message or enum of the
package; `T[]` is a repeated field and `map<string,T>` a map with string keys."""
_F = descriptor_pb2.FieldDescriptorProto
_SCALARS = {"string": _F.TYPE_STRING, "bytes": _F.TYPE_BYTES, "bool": _F.TYPE_BOOL, "int64": _F.TYPE_INT64}
_TIMESTAMP = "google.protobuf.Timestamp"


def _set_type(field: descriptor_pb2.FieldDescriptorProto, kind: str, package: str, enums: Mapping[str, Any]) -> None:
    if kind in _SCALARS:
        field.type = _SCALARS[kind]
    elif kind in enums:
        field.type = _F.TYPE_ENUM
        field.type_name = f".{package}.{kind}"
    else:
        field.type = _F.TYPE_MESSAGE
        field.type_name = f".{_TIMESTAMP}" if kind == "Timestamp" else f".{package}.{kind}"


def _entry_name(field_name: str) -> str:
    """protoc's name of a map field's entry message: `annotations` -> `AnnotationsEntry`."""
    return "".join(part[:1].upper() + part[1:] for part in field_name.split("_")) + "Entry"


def build_messages(
    package: str,
    messages: Mapping[str, Sequence[Field]],
    enums: Mapping[str, Mapping[str, int]] | None = None,
) -> dict[str, Any]:
    """Classes for `messages` of `package` (proto3), and an enum wrapper (`.Value`, `.Name`, the
    values as attributes) for each of `enums` (name -> {value name: number})."""
    enums = enums or {}
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(timestamp_pb2.DESCRIPTOR.serialized_pb)
    file = descriptor_pb2.FileDescriptorProto(
        name=f"svc/{package.replace('.', '/')}.proto",
        package=package,
        syntax="proto3",
        dependency=[timestamp_pb2.DESCRIPTOR.name],
    )
    for enum_name, values in enums.items():
        enum = file.enum_type.add(name=enum_name)
        for value_name, number in values.items():
            enum.value.add(name=value_name, number=number)
    for message_name, fields in messages.items():
        message = file.message_type.add(name=message_name)
        for name, number, kind in fields:
            field = message.field.add(name=name, number=number, label=_F.LABEL_OPTIONAL)
            if kind.startswith("map<string,") and kind.endswith(">"):
                entry = message.nested_type.add(name=_entry_name(name))
                entry.options.map_entry = True
                entry.field.add(name="key", number=1, label=_F.LABEL_OPTIONAL, type=_F.TYPE_STRING)
                _set_type(entry.field.add(name="value", number=2, label=_F.LABEL_OPTIONAL), kind[11:-1], package, enums)
                field.label = _F.LABEL_REPEATED
                field.type = _F.TYPE_MESSAGE
                field.type_name = f".{package}.{message_name}.{entry.name}"
                continue
            if kind.endswith("[]"):
                field.label = _F.LABEL_REPEATED
                kind = kind.removesuffix("[]")
            _set_type(field, kind, package, enums)
    pool.Add(file)
    built: dict[str, Any] = {
        name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{package}.{name}")) for name in messages
    }
    built.update({name: EnumTypeWrapper(pool.FindEnumTypeByName(f"{package}.{name}")) for name in enums})
    return built
