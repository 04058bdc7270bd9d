"""The authz library: checks built from CEL reach the caller's authorizer with upstream's attributes."""

from __future__ import annotations

import pytest

from svc.machinery.cel import CelError, Environment
from svc.machinery.cel.library.authz import Authorizer, Request, Verdict, request_resource

ENV = Environment(["authorizer", "authorizer.requestResource"])


class Recorder:
    """Allows only creating pods in `default` and GET on /healthz; remembers what it was asked."""

    def __init__(self) -> None:
        self.asked: list[Request] = []

    def __call__(self, request: Request) -> Verdict:
        self.asked.append(request)
        if request.resource == "pods" and request.namespace == "default" and request.verb == "create":
            return Verdict("allow", "RBAC: allowed by role")
        if request.path == "/healthz" and request.verb == "get":
            return Verdict("allow")
        return Verdict("no opinion", "no rule matched")


def run(expression: str, decide: Recorder | None = None) -> object:
    authorizer = Authorizer("alice", ("dev",), decide or Recorder())
    activation = {
        "authorizer": authorizer,
        "authorizer.requestResource": request_resource(authorizer, group="apps", resource="deployments"),
    }
    return ENV.compile(expression).evaluate(activation)


def test_a_resource_check_is_allowed_when_the_authorizer_allows() -> None:
    assert run("authorizer.group('').resource('pods').namespace('default').check('create').allowed()") is True


def test_no_opinion_is_not_allowed_and_keeps_the_reason() -> None:
    expression = "authorizer.group('').resource('pods').namespace('kube-system').check('create')"
    assert run(f"{expression}.allowed()") is False
    assert run(f"{expression}.reason()") == "no rule matched"


def test_the_authorizer_receives_upstreams_attributes() -> None:
    recorder = Recorder()
    run(
        "authorizer.group('apps').resource('deployments').subresource('scale').namespace('ns').name('web')"
        ".check('update').allowed()",
        recorder,
    )
    (request,) = recorder.asked
    assert (request.user, request.verb, request.resource_request, request.api_group, request.api_version) == (
        "alice",
        "update",
        True,
        "apps",
        "*",
    )
    assert (request.resource, request.subresource, request.namespace, request.name) == (
        "deployments",
        "scale",
        "ns",
        "web",
    )


def test_a_path_check_is_a_non_resource_request() -> None:
    assert run("authorizer.path('/healthz').check('get').allowed()") is True


def test_service_account_checks_as_that_service_account() -> None:
    recorder = Recorder()
    run("authorizer.serviceAccount('default', 'builder').group('').resource('pods').check('list').allowed()", recorder)
    assert recorder.asked[0].user == "system:serviceaccount:default:builder"
    assert recorder.asked[0].groups == ("system:serviceaccounts", "system:serviceaccounts:default")


def test_request_resource_checks_the_resource_of_the_request() -> None:
    recorder = Recorder()
    run("authorizer.requestResource.check('delete').allowed()", recorder)
    assert (recorder.asked[0].api_group, recorder.asked[0].resource) == ("apps", "deployments")


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("authorizer.path('  ')", "path must not be empty"),
        ("authorizer.group('apps').resource('')", "resource must not be empty"),
        ("authorizer.serviceAccount('default', 'invalid@*name')", "Invalid service account name"),
        ("authorizer.serviceAccount('not@a#valid!namespace', 'validname')", "Invalid service account namespace"),
    ],
)
def test_documented_errors(expression: str, message: str) -> None:
    with pytest.raises(CelError, match=f"^{message}$"):
        run(expression)
