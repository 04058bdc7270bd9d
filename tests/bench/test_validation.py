"""The validation scenario's in-process half: the object it times is the one the create path validates."""

from __future__ import annotations

from bench.objects import deployment, pod
from bench.report import targets_section
from bench.validation import KINDS, handed_to_validate, validation_seconds
from svc.api.brand import KUBERNETES
from svc.api.kinds import strategy_for
from svc.api.resources import ResourceSet

RESOURCES = ResourceSet(KUBERNETES)


def _strategy(name: str):
    kind = next(kind for kind in KINDS if kind.name == name)
    return strategy_for(RESOURCES.get(*kind.api), KUBERNETES)


def test_the_timed_pod_is_defaulted_and_prepared_as_the_create_path_hands_it() -> None:
    handed = handed_to_validate(_strategy("Pod"), pod("web-1"), "bench")
    container = handed["spec"]["containers"][0]
    assert container["terminationMessagePath"] == "/dev/termination-log"
    assert handed["metadata"]["namespace"] == "bench"
    assert handed["metadata"]["uid"]


def test_the_bench_deployment_is_valid_and_its_validation_takes_cpu() -> None:
    strategy = _strategy("Deployment")
    handed = handed_to_validate(strategy, deployment("web"), "bench")
    assert strategy.validate(handed) == []
    assert validation_seconds(strategy, handed, iterations=3, rounds=2) > 0


def test_a_validation_share_above_15_percent_misses_its_target() -> None:
    facts = {"validation share Pod/32": 0.2, "validation share Deployment/32": 0.05}
    verdicts = {row[0]: row[3] for row in targets_section(facts).rows}
    assert verdicts["Pod's validation, share of its create's server CPU (32 clients)"] == "**no**"
    assert verdicts["Deployment's validation, share of its create's server CPU (32 clients)"] == "yes"
    assert verdicts["ConfigMap's validation, share of its create's server CPU (32 clients)"] == "n/a"
