"""What a server program loads before it knows its flags: gRPC and Protobuf (a tenth of a second) only
come with the features that speak them (etcd, a KMS plugin, an external token signer)."""

from __future__ import annotations

import subprocess
import sys

_LOADED = (
    "import sys, svc.apiserver.main; "
    "print(sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in ('grpc', 'aetcd')}"
    " | {m for m in sys.modules if m == 'google.protobuf'}))"
)


def test_the_server_program_imports_no_grpc_or_protobuf() -> None:
    result = subprocess.run([sys.executable, "-c", _LOADED], capture_output=True, text=True, timeout=120, check=True)
    assert result.stdout.strip() == "[]"
