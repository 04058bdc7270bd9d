"""Rule matching and coverage as upstream's RBAC evaluates them (no server needed)."""

from __future__ import annotations

from svc.apiserver.authz.authorizer import Attributes
from svc.apiserver.authz.rbac.rules import Rule, allows, compact, uncovered
from svc.registry.admission import UserInfo

USER = UserInfo("u")


def _resource(verb: str, resource: str, subresource: str = "", name: str = "", group: str = "") -> Attributes:
    return Attributes(USER, verb, True, api_group=group, resource=resource, subresource=subresource, name=name)


def _path(verb: str, path: str) -> Attributes:
    return Attributes(USER, verb, False, path=path)


def test_subresources_match_only_when_named_or_starred() -> None:
    assert not allows(Rule(("get",), ("",), ("pods",)), _resource("get", "pods", "log"))
    assert allows(Rule(("get",), ("",), ("pods/log",)), _resource("get", "pods", "log"))
    assert allows(Rule(("get",), ("",), ("*/log",)), _resource("get", "pods", "log"))
    assert not allows(Rule(("get",), ("",), ("pods/*",)), _resource("get", "pods", "log"))
    assert allows(Rule(("get",), ("",), ("*",)), _resource("get", "pods", "log"))


def test_groups_and_verbs_match_exactly_or_by_star() -> None:
    assert not allows(Rule(("get",), ("",), ("deployments",)), _resource("get", "deployments", group="apps"))
    assert allows(Rule(("*",), ("*",), ("deployments",)), _resource("patch", "deployments", group="apps"))


def test_resource_names_never_match_unnamed_requests() -> None:
    rule = Rule(("get", "list"), ("",), ("pods",), ("web",))
    assert allows(rule, _resource("get", "pods", name="web"))
    assert not allows(rule, _resource("get", "pods", name="db"))
    assert not allows(rule, _resource("list", "pods"))


def test_non_resource_urls_match_by_star_suffix() -> None:
    rule = Rule(("get",), non_resource_urls=("/healthz/*", "/version"))
    assert allows(rule, _path("get", "/healthz/etcd"))
    assert allows(rule, _path("get", "/version"))
    assert not allows(rule, _path("get", "/version/"))
    assert not allows(rule, _path("post", "/version"))
    assert not allows(Rule(("get",), ("*",), ("*",)), _path("get", "/version"))


def test_coverage_breaks_rules_down_and_honours_subresource_stars() -> None:
    held = [Rule(("get", "list"), ("",), ("pods", "*/status"))]
    assert uncovered(held, [Rule(("get",), ("",), ("pods", "services/status"))]) == []
    assert uncovered(held, [Rule(("get", "delete"), ("",), ("pods",))]) == [Rule(("delete",), ("",), ("pods",))]


def test_named_holdings_cover_only_those_names() -> None:
    held = [Rule(("get",), ("",), ("secrets",), ("a",))]
    assert uncovered(held, [Rule(("get",), ("",), ("secrets",), ("a",))]) == []
    assert uncovered(held, [Rule(("get",), ("",), ("secrets",))]) == [Rule(("get",), ("",), ("secrets",))]


def test_missing_rules_print_compacted_as_upstream() -> None:
    missing = [
        Rule(("get",), ("",), ("pods",)),
        Rule(("list",), ("",), ("pods",)),
        Rule(("get",), non_resource_urls=("/x",)),
    ]
    assert [rule.compact() for rule in compact(missing)] == [
        '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}',
        '{NonResourceURLs:["/x"], Verbs:["get"]}',
    ]
