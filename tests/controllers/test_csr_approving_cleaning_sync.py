"""The CSR approving and cleaner controllers over seeded caches."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from svc.client.aio import ApiError
from svc.controllers.csrapproving import CSRApprovingController, NotApproved
from svc.controllers.csrcleaner import CSRCleanerController
from svc.controllers.deployment_math import rfc3339
from tests.controllers.csr_fixtures import make_request
from tests.controllers.fakes import RecordingClient, make_context

Obj = dict[str, Any]
KUBELET_CLIENT = "svc.io/svc-apiserver-client-svclet"
SAR_PATH = "/apis/authorization.svc/v1/subjectaccessreviews"


class ReviewingClient(RecordingClient):
    """Answers SubjectAccessReviews: allowed for the listed subresources."""

    def __init__(self, allowed: set[str]) -> None:
        super().__init__()
        self.allowed = allowed

    async def create(self, path: str, body: Obj) -> Obj:
        await super().create(path, body)
        subresource = body["spec"]["resourceAttributes"]["subresource"]
        return {**body, "status": {"allowed": subresource in self.allowed}}


def node_request(username: str, node: str = "n1", **status: Any) -> Obj:
    spec = {
        "request": make_request(f"system:node:{node}", ("system:nodes",)),
        "signerName": KUBELET_CLIENT,
        "usages": ["digital signature", "client auth"],
        "username": username,
        "groups": ["system:nodes"],
    }
    return {"metadata": {"name": "req"}, "spec": spec, "status": status}


def approving(allowed: set[str], csr: Obj) -> tuple[CSRApprovingController, ReviewingClient]:
    context, _ = make_context()
    client = ReviewingClient(allowed)
    context.client = client  # type: ignore[assignment]
    controller = CSRApprovingController(context)
    controller.requests.replace([csr])
    return controller, client


def test_a_node_asking_for_its_own_client_certificate_is_approved_after_a_review() -> None:
    async def scenario() -> None:
        controller, client = approving({"selfnodeclient"}, node_request("system:node:n1"))
        await controller.sync("req")
        (_, path, review), (verb, approval_path, body) = client.calls
        assert path == SAR_PATH
        assert review["spec"]["user"] == "system:node:n1"
        assert review["spec"]["resourceAttributes"] == {
            "group": "certificates.svc",
            "resource": "certificatesigningrequests",
            "subresource": "selfnodeclient",
            "verb": "create",
        }
        assert (verb, approval_path) == ("update", "/apis/certificates.svc/v1/certificatesigningrequests/req/approval")
        condition = body["status"]["conditions"][0]
        assert (condition["type"], condition["status"], condition["reason"]) == ("Approved", "True", "AutoApproved")
        assert condition["message"] == "Auto approving self kubelet client certificate after SubjectAccessReview."

    asyncio.run(scenario())


def test_a_bootstrap_identity_needs_the_nodeclient_permission_and_is_retried_without_it() -> None:
    async def scenario() -> None:
        controller, client = approving(set(), node_request("system:bootstrap:abcdef"))
        with pytest.raises(NotApproved, match=r'recognized csr "req" as \[nodeclient\] but subject access review'):
            await controller.sync("req")
        assert [verb for verb, _path, _body in client.calls] == ["create"]
        controller, client = approving({"nodeclient"}, node_request("system:bootstrap:abcdef"))
        await controller.sync("req")
        assert "Auto approving kubelet client certificate" in client.calls[-1][2]["status"]["conditions"][0]["message"]

    asyncio.run(scenario())


def test_other_signers_and_decided_requests_are_not_reviewed() -> None:
    async def scenario() -> None:
        denied = node_request("system:node:n1", conditions=[{"type": "Denied", "status": "True"}])
        controller, client = approving({"selfnodeclient"}, denied)
        await controller.sync("req")
        other = node_request("system:node:n1")
        other["spec"]["signerName"] = "svc.io/svc-apiserver-client"
        controller.requests.replace([other])
        await controller.sync("req")
        assert client.calls == []

    asyncio.run(scenario())


def csr_at(name: str, created: float, **status: Any) -> Obj:
    return {"metadata": {"name": name, "creationTimestamp": rfc3339(created)}, "status": status}


def test_the_cleaner_deletes_by_upstreams_retention_times() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = CSRCleanerController(context)
        now = context.clock.wall()
        old, recent = rfc3339(now - 3700), rfc3339(now - 100)
        controller.requests.replace(
            [
                csr_at("pending-old", now - 25 * 3600),
                csr_at("pending-new", now - 23 * 3600),
                csr_at(
                    "denied-old", now - 3700, conditions=[{"type": "Denied", "status": "True", "lastUpdateTime": old}]
                ),
                csr_at(
                    "denied-new", now - 100, conditions=[{"type": "Denied", "status": "True", "lastUpdateTime": recent}]
                ),
                csr_at(
                    "failed-old", now - 3700, conditions=[{"type": "Failed", "status": "True", "lastUpdateTime": old}]
                ),
                csr_at(
                    "approved-unissued",
                    now - 3700,
                    conditions=[{"type": "Approved", "status": "True", "lastUpdateTime": old}],
                ),
            ]
        )
        client.failures.clear()
        await controller.clean()
        deleted = sorted(path.rsplit("/", 1)[-1] for verb, path, _body in client.calls if verb == "delete")
        assert deleted == ["denied-old", "failed-old", "pending-old"]

    asyncio.run(scenario())


def test_a_vanished_request_is_not_an_error_for_the_cleaner() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = CSRCleanerController(context)
        controller.requests.replace([csr_at("gone", context.clock.wall() - 30 * 3600)])
        client.failures["delete"] = ApiError(404, {"kind": "Status", "code": 404, "reason": "NotFound"})
        await controller.clean()
        assert len(client.calls) == 1

    asyncio.run(scenario())


def test_a_certificate_that_does_not_parse_leaves_the_cleaner_to_the_approval_time() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = CSRCleanerController(context)
        now = context.clock.wall()

        def approved(name: str, seconds_ago: float) -> Obj:
            condition = {"type": "Approved", "status": "True", "lastUpdateTime": rfc3339(now - seconds_ago)}
            return csr_at(name, now - seconds_ago, conditions=[condition], certificate="bm90IGEgY2VydGlmaWNhdGU=")

        controller.requests.replace([approved("recent", 100), approved("old", 3700)])
        await controller.clean()
        assert [(verb, path.rsplit("/", 1)[-1]) for verb, path, _body in client.calls] == [("delete", "old")]

    asyncio.run(scenario())
