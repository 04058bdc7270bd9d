"""One live `svc-apiserver` process per fuzz module, and the checks every fuzzed request must pass.

A subprocess (not an in-process server) so its whole output, tracebacks from aiohttp's own request
parser included, lands in one log file that the checks read.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from svc.testing.harness import start_process, stop_process
from tests.fuzz.probe import Probe
from tests.fuzz.strategies import BASES, CLUSTER_SCOPED, NAMESPACE, collection_path

EXPLORE = os.environ.get("SVC_FUZZ") == "explore"
"""`SVC_FUZZ=explore` draws fresh random examples (and ten times as many) for a local hunt; the
default is derandomized: each test replays the same examples on every run, so CI cannot flake."""


def fuzz_settings(max_examples: int) -> settings:
    return settings(
        max_examples=max_examples * (10 if EXPLORE else 1),
        deadline=None,
        derandomize=not EXPLORE,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
        print_blob=True,
    )


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
