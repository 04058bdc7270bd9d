"""The client's TLS context, built from kubeconfig material without leaving a file behind.

Python's `ssl` reads a CA bundle from memory (`cadata`) but a certificate chain and its key only from
files. Inline credentials (`client-certificate-data`, `client-key-data`) are therefore handed to it as
anonymous in-memory files (Linux `memfd`), which no directory ever lists and which vanish with their
descriptors, even if the process is killed. Where `memfd` is missing, they are written to a private
directory that is removed as soon as the context holds them.
"""

from __future__ import annotations

import os
import ssl
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from svc.client.kubeconfig import ClientConfig


def ssl_context(config: ClientConfig) -> ssl.SSLContext:
    cadata = config.ca_data.decode("ascii", "replace") if config.ca_data else None
    context = ssl.create_default_context(cafile=config.ca_file or None, cadata=cadata)
    if config.insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if config.cert_data or config.key_data:
        cert = config.cert_data or _read(config.cert_file)
        key = config.key_data or _read(config.key_file)
        with memory_file(cert) as cert_path, memory_file(key) as key_path:
            context.load_cert_chain(cert_path, key_path if key else None)
    elif config.cert_file:
        context.load_cert_chain(config.cert_file, config.key_file or None)
    return context


def _read(path: str) -> bytes:
    return Path(path).read_bytes() if path else b""


@contextmanager
def memory_file(data: bytes) -> Iterator[str]:
    """A path whose content is `data`, valid only inside the block."""
    if hasattr(os, "memfd_create"):
        descriptor = os.memfd_create("svc-credential", os.MFD_CLOEXEC)
        try:
            os.write(descriptor, data)
            yield f"/proc/self/fd/{descriptor}"
        finally:
            os.close(descriptor)
        return
    with tempfile.TemporaryDirectory(prefix="svc-credential-") as directory:
        path = Path(directory) / "data"
        path.touch(mode=0o600)
        path.write_bytes(data)
        yield str(path)
