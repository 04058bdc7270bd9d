"""The validatingadmissionpolicy-status controller over a seeded cache and the fake clock."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.controllers.admissionpolicystatus import NAME, AdmissionPolicyStatusController
from tests.controllers.fakes import make_context

Obj = dict[str, Any]
STATUS = "/apis/admissionregistration.svc/v1/validatingadmissionpolicies/replicas/status"


def policy(expression: str, generation: int, observed: int = 0) -> Obj:
    rule = {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["deployments"]}
    return {
        "metadata": {"name": "replicas", "generation": generation},
        "spec": {"matchConstraints": {"resourceRules": [rule]}, "validations": [{"expression": expression}]},
        "status": {"observedGeneration": observed} if observed else {},
    }


def applied(seeded: Obj) -> list[tuple[str, str, Obj | None]]:
    async def scenario() -> list[tuple[str, str, Obj | None]]:
        context, client = make_context()
        controller = AdmissionPolicyStatusController(context)
        controller.policies.replace([seeded])
        await controller.sync("replicas")
        return client.calls

    return asyncio.run(scenario())


def test_a_policy_behind_its_generation_gets_its_warnings_applied_by_the_controller() -> None:
    ((verb, path, body),) = applied(policy("object.replicas > 1", generation=2, observed=1))
    assert (verb, path) == (f"apply:{NAME}:force", STATUS)
    assert body is not None
    assert body["apiVersion"] == "admissionregistration.svc/v1"
    assert body["status"]["observedGeneration"] == 2
    (warning,) = body["status"]["typeChecking"]["expressionWarnings"]
    assert warning["fieldRef"] == "spec.validations[0].expression"
    assert warning["warning"].startswith("apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'")


def test_a_policy_that_type_checks_gets_an_empty_type_checking() -> None:
    ((_, _, body),) = applied(policy("object.spec.replicas <= 5", generation=1))
    assert body is not None
    assert body["status"] == {"observedGeneration": 1, "typeChecking": {}}


def test_a_generation_already_observed_is_not_checked_again() -> None:
    assert applied(policy("object.replicas > 1", generation=3, observed=3)) == []
