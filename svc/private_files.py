"""Files and directories only their owner may read: the database, keys, the admin kubeconfig.

The mode is set on the open file descriptor or right after `mkdir`, so it holds whatever the umask
is, and a file is never visible, even briefly, with wider permissions than owner-only.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def make_private_dir(path: Path) -> None:
    """Create `path` and its missing parents owner-only. A directory that already exists is left as it
    is: it may be the user's (`--data-dir=/srv`), and the files written into it are private anyway."""
    missing = [directory for directory in (path, *path.parents) if not directory.exists()]
    for directory in reversed(missing):
        try:
            directory.mkdir(mode=PRIVATE_DIR)
        except FileExistsError:
            continue
        os.chmod(directory, PRIVATE_DIR)


def open_private(path: Path, flags: int = os.O_RDWR) -> int:
    """Open `path`, creating it when missing, and make it owner-only; returns the descriptor."""
    descriptor = os.open(path, flags | os.O_CREAT | os.O_NOFOLLOW, PRIVATE_FILE)
    try:
        os.fchmod(descriptor, PRIVATE_FILE)
    except OSError:
        os.close(descriptor)
        raise
    return descriptor


def tighten(path: Path) -> None:
    """Make an existing file owner-only (one left by an older release); a missing one is fine."""
    with contextlib.suppress(FileNotFoundError):
        os.chmod(path, PRIVATE_FILE)


def write_private(path: Path, data: bytes) -> None:
    """Replace `path` with `data` atomically (a reader sees the old or the new file, never half)."""
    temporary = path.with_name(path.name + ".tmp")
    descriptor = open_private(temporary, os.O_WRONLY | os.O_TRUNC)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)
    os.replace(temporary, path)
