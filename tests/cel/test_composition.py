"""Admission policy variables: `variables.<name>`, lazily evaluated once per request."""

from __future__ import annotations

import pytest

from svc.machinery.cel import CelError
from svc.machinery.cel.access import COST
from svc.machinery.cel.composition import Composition

OBJECT = {"metadata": {"name": "web", "labels": {"env": "prod"}}, "spec": {"replicas": 5}}


def test_a_validation_reads_a_variable() -> None:
    composition = Composition([("replicas", "object.spec.replicas")], ["object"])
    act = composition.activation({"object": OBJECT})
    assert composition.compile("variables.replicas <= 10").run(act) is True


def test_a_variable_reads_an_earlier_variable() -> None:
    composition = Composition([("labels", "object.metadata.labels"), ("env", "variables.labels.env")], ["object"])
    act = composition.activation({"object": OBJECT})
    assert composition.compile("variables.env == 'prod'").run(act) is True


def test_a_variable_is_evaluated_once_per_request() -> None:
    composition = Composition([("big", "object.spec.replicas * 2")], ["object"])
    act = composition.activation({"object": OBJECT})
    composition.compile("variables.big > 0").run(act)
    cost_after_first = act[COST].used
    composition.compile("variables.big > 0").run(act)
    # The second read costs the access and the comparison, not the variable again.
    assert act[COST].used - cost_after_first < cost_after_first


def test_a_variables_error_surfaces_where_it_is_read() -> None:
    composition = Composition([("missing", "object.spec.paused")], ["object"])
    act = composition.activation({"object": OBJECT})
    with pytest.raises(CelError, match="no such key: paused"):
        composition.compile("variables.missing").run(act)


def test_an_unused_failing_variable_does_not_fail_the_expression() -> None:
    composition = Composition([("missing", "object.spec.paused")], ["object"])
    act = composition.activation({"object": OBJECT})
    assert composition.compile("object.spec.replicas == 5").run(act) is True


def test_has_on_variables_tells_declared_names() -> None:
    composition = Composition([("replicas", "object.spec.replicas")], ["object"])
    act = composition.activation({"object": OBJECT})
    assert composition.compile("has(variables.replicas) && !has(variables.other)").run(act) is True
