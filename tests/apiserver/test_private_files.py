"""The data directory, database, keys and kubeconfig are owner-only whatever the umask."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from svc.private_files import make_private_dir, write_private
from svc.testing.harness import in_process_server

pytestmark = pytest.mark.embedded_store


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def open_umask():
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


def test_server_files_are_owner_only_under_umask_000(svc_server_process, tmp_path, open_umask) -> None:
    data_dir = tmp_path / "data"
    server = svc_server_process(data_dir=data_dir)
    os.umask(0o022)
    assert server.client().request("GET", "/api/v1/namespaces").status == 200
    directories = [data_dir, data_dir / "pki"]
    files = [
        data_dir / "state.db",
        data_dir / "state.db-wal",
        data_dir / "state.db-shm",
        data_dir / "state.db.lock",
        data_dir / "admin.kubeconfig",
        *(data_dir / "pki").iterdir(),
    ]
    assert len(files) == 5 + 9  # the pki: 4 certificates with their keys, the service-account signing key
    assert {str(path): _mode(path) for path in directories} == {str(path): 0o700 for path in directories}
    assert {str(path): _mode(path) for path in files} == {str(path): 0o600 for path in files}


def test_a_separate_cert_dir_is_owner_only(svc_server_factory, tmp_path, open_umask) -> None:
    cert_dir = tmp_path / "certs" / "nested"
    svc_server_factory(f"--cert-dir={cert_dir}")
    assert (_mode(cert_dir.parent), _mode(cert_dir)) == (0o700, 0o700)
    assert {_mode(path) for path in cert_dir.iterdir()} == {0o600}


def test_files_left_with_wide_modes_are_tightened_at_start(tmp_path) -> None:
    data_dir = tmp_path / "data"
    with in_process_server(data_dir):
        pass
    files = [data_dir / "state.db", data_dir / "state.db.lock", *(data_dir / "pki").iterdir()]
    for path in files:
        os.chmod(path, 0o644)
    with in_process_server(data_dir):
        assert {str(path): _mode(path) for path in files} == {str(path): 0o600 for path in files}


def test_write_private_replaces_a_wider_file(tmp_path, open_umask) -> None:
    target = tmp_path / "secret"
    target.write_text("old")
    os.chmod(target, 0o666)
    write_private(target, b"new")
    assert (target.read_bytes(), _mode(target)) == (b"new", 0o600)
    assert list(tmp_path.iterdir()) == [target]


def test_make_private_dir_leaves_an_existing_directory_alone(tmp_path) -> None:
    os.chmod(tmp_path, 0o755)
    make_private_dir(tmp_path)
    assert _mode(tmp_path) == 0o755
