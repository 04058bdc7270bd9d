"""One live `svc-apiserver` process per fuzz module, and the checks every fuzzed request must pass.

A subprocess (not an in-process server) so its whole output, tracebacks from aiohttp's own request
parser included, lands in one log file that the checks read.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from svc.testing.harness import start_process, stop_process
from tests.fuzz.probe import Probe
from tests.fuzz.strategies import BASES, CLUSTER_SCOPED, NAMESPACE, collection_path


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Probe]:
    data_dir: Path = tmp_path_factory.mktemp("fuzz") / "server"
    running = start_process(data_dir, "--feature-gates=CBORServingAndStorage=true")
    log = data_dir.parent / f"{data_dir.name}.log"
    probe = Probe(running, log)
    try:
        seed(probe)
        yield probe
    finally:
        probe.close()
        stop_process(running)
    probe.assert_clean_log()


@pytest.fixture(autouse=True)
def _log_stays_clean(request: pytest.FixtureRequest) -> Iterator[None]:
    """A traceback in the server's log fails the test that caused it, not a later one."""
    yield
    if "probe" in request.fixturenames:
        request.getfixturevalue("probe").assert_clean_log()


def seed(probe: Probe) -> None:
    """The namespace the fuzzers write in, and objects named `a` and `one` for paths to find."""
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
    assert probe.send_json("POST", "/api/v1/namespaces", namespace).status == 201
    for resource, base in BASES.items():
        if resource in CLUSTER_SCOPED:
            continue
        for name in ("a", "one"):
            obj = {**base, "metadata": {"name": name, "labels": {"app": "web"}}}
            answer = probe.send_json("POST", collection_path(resource), obj)
            assert answer.status == 201, answer.body
