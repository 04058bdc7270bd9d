"""Shared fixtures: real client binaries for end-to-end tests."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from svc.testing.etcd import EtcdCluster, EtcdProcess, EtcdTls
from svc.testing.harness import ETCD_URL_VARIABLE

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / ".tools" / "bin"


def _kubectl_binaries() -> list[tuple[str, str]]:
    found = []
    system = shutil.which("kubectl")
    if system:
        found.append(("kubectl-system", system))
    bundled = TOOLS / "kubectl"
    found.append(("kubectl-1.35", str(bundled)))
    return found


@pytest.fixture(params=_kubectl_binaries(), ids=lambda pair: pair[0])
def kubectl_binary(request: pytest.FixtureRequest) -> str:
    path = request.param[1]
    if not Path(path).exists():
        pytest.fail(f"{path} is missing: run `make tools` (make test does)")
    return path


@pytest.fixture
def helm_binary() -> str:
    path = TOOLS / "helm"
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make tools` (make test does)")
    return str(path)


# The suite runs in a temporary directory of its own, and nothing may be left in it but pytest's own
# directories: a leftover there is a file some code of ours (or a client it drives) did not remove,
# such as a credential written out for a TLS library.
_SUITE_TMP = "SVC_SUITE_TMPDIR"


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or _SUITE_TMP in os.environ:
        return
    suite_tmp = tempfile.mkdtemp(prefix="svc-suite-")
    os.environ[_SUITE_TMP] = os.environ["TMPDIR"] = suite_tmp
    tempfile.tempdir = None


def _left_in(directory: str) -> list[str]:
    return sorted(name for name in os.listdir(directory) if not name.startswith("pytest-of-"))


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # The official client writes inline kubeconfig credentials to temporary files and removes them only
    # at interpreter exit, after this hook; its own clean-up runs here instead, in every process.
    kube_config = sys.modules.get("kubernetes.config.kube_config")
    if kube_config is not None:
        kube_config._cleanup_temp_files()
    config = session.config
    if hasattr(config, "workerinput") or config.option.collectonly:
        return
    suite_tmp = os.environ.get(_SUITE_TMP)
    if not suite_tmp or not os.path.isdir(suite_tmp):
        return
    left = _left_in(suite_tmp)
    if left:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(
                f"FAILED: the suite left files in its temporary directory {suite_tmp}: {left}", red=True
            )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        return
    shutil.rmtree(suite_tmp, ignore_errors=True)


# -- etcd ------------------------------------------------------------------------------------------
# `SVC_TEST_STORE=etcd` runs every test server on one etcd per test process (each server under a key
# prefix of its own); the etcd fixtures below give storage tests an etcd of their own.
_STORE_VARIABLE = "SVC_TEST_STORE"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get(_STORE_VARIABLE) != "etcd":
        return
    skip = pytest.mark.skip(reason="a feature of the embedded store; the suite runs on etcd")
    for item in items:
        if item.get_closest_marker("embedded_store"):
            item.add_marker(skip)


def _etcd_binary() -> str:
    from bench.anchors.etcd import ensure_etcd

    binary, why = ensure_etcd()
    if not binary:
        pytest.skip(f"no etcd to test against: {why}")
    return binary


@pytest.fixture(scope="session")
def etcd_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EtcdProcess]:
    """One etcd for the session: tests on it must not depend on the keys or revisions of others."""
    etcd = EtcdProcess(_etcd_binary(), tmp_path_factory.mktemp("etcd-session"))
    etcd.start()
    yield etcd
    etcd.kill()


@pytest.fixture
def etcd_cluster(tmp_path: Path) -> Iterator[EtcdCluster]:
    """Three etcd members on loopback forming one cluster, of the test's own."""
    cluster = EtcdCluster(_etcd_binary(), tmp_path / "etcd-cluster")
    cluster.start()
    yield cluster
    cluster.kill()


@pytest.fixture
def etcd_process(tmp_path: Path) -> Iterator[EtcdProcess]:
    """An etcd of the test's own, which the test may kill and restart."""
    etcd = EtcdProcess(_etcd_binary(), tmp_path / "etcd")
    etcd.start()
    yield etcd
    etcd.kill()


@pytest.fixture
def etcd_tls_process(tmp_path: Path) -> Iterator[EtcdProcess]:
    """An etcd of the test's own that serves TLS and asks clients for a certificate of its CA."""
    from tests.apiserver.authn.peers import Authority

    authority, pki = Authority.create("etcd-ca"), tmp_path / "etcd-pki"
    pki.mkdir()
    (pki / "ca.crt").write_text(authority.pem)
    cert, key = authority.write_pair(pki, "etcd-server", server=True)
    client_cert, client_key = authority.write_pair(pki, "apiserver-etcd-client")
    etcd = EtcdProcess(
        _etcd_binary(), tmp_path / "etcd", tls=EtcdTls(pki / "ca.crt", cert, key, client_cert, client_key)
    )
    etcd.start()
    yield etcd
    etcd.kill()


@pytest.fixture(scope="session", autouse=True)
def _shared_test_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    store = os.environ.get(_STORE_VARIABLE, "sqlite")
    if store == "sqlite":
        yield
        return
    if store != "etcd":
        pytest.exit(f"{_STORE_VARIABLE} must be sqlite or etcd, not {store!r}")
    etcd = EtcdProcess(_etcd_binary(), tmp_path_factory.mktemp("etcd-shared"))
    etcd.start()
    os.environ[ETCD_URL_VARIABLE] = etcd.url
    yield
    del os.environ[ETCD_URL_VARIABLE]
    etcd.kill()
