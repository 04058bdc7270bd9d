"""The official protobuf runtime over upstream's .proto files, compiled at test time with protoc."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

UPSTREAM_PROTO = Path(__file__).resolve().parents[3].parent / "shared" / "upstream-proto"


@pytest.fixture(scope="session")
def descriptor_set(tmp_path_factory: pytest.TempPathFactory) -> descriptor_pb2.FileDescriptorSet:
    protoc = pytest.importorskip("grpc_tools.protoc")
    if not UPSTREAM_PROTO.is_dir():
        pytest.skip(f"the upstream .proto files are not at {UPSTREAM_PROTO}")
    out = tmp_path_factory.mktemp("proto") / "upstream.pb"
    files = sorted(str(p.relative_to(UPSTREAM_PROTO)) for p in UPSTREAM_PROTO.rglob("*.proto"))
    args = ["protoc", f"-I{UPSTREAM_PROTO}", f"--descriptor_set_out={out}", "--include_imports", *files]
    status = protoc.main(args)
    assert status == 0, "protoc failed on the upstream .proto files"
    return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


@pytest.fixture(scope="session")
def official(descriptor_set: descriptor_pb2.FileDescriptorSet) -> Callable[[str], type]:
    """Message class of the official runtime by fully-qualified upstream name."""
    pool = descriptor_pool.DescriptorPool()
    for file in descriptor_set.file:
        pool.Add(file)
    return lambda name: message_factory.GetMessageClass(pool.FindMessageTypeByName(name))
