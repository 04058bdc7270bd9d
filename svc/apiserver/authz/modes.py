"""The built-in authorization modes (`--authorization-mode`) and the chain they form."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from svc.apiserver.authz.abac import AbacAuthorizer
from svc.apiserver.authz.authorizer import Attributes, Authorizer, AuthorizerFunc, Decision, Recorder, Union
from svc.apiserver.authz.node.authorizer import node_name_of
from svc.apiserver.authz.rbac.authorizer import aggregate
from svc.apiserver.authz.rbac.index import PolicyIndex
from svc.apiserver.authz.rbac.rules import Rule
from svc.registry.admission import UserInfo


async def always_allow(attributes: Attributes) -> tuple[Decision, str]:
    return Decision.ALLOW, ""


async def always_deny(attributes: Attributes) -> tuple[Decision, str]:
    return Decision.NO_OPINION, "Everything is forbidden."


PRIVILEGED_GROUP = "system:masters"


async def privileged_group(attributes: Attributes) -> tuple[Decision, str]:
    """Members of system:masters may do anything, whatever the configured modes (as upstream)."""
    if PRIVILEGED_GROUP in attributes.user.groups:
        return Decision.ALLOW, ""
    return Decision.NO_OPINION, ""


def build_authorizer(
    modes: list[str],
    *,
    rbac: Authorizer,
    node: Authorizer | None = None,
    abac: Authorizer | None = None,
    webhooks: Sequence[Authorizer] = (),
    recorder: Recorder | None = None,
) -> Union:
    """The chain in the order of `modes`; the stateful authorizers (RBAC, Node, ABAC, one per Webhook
    entry, in order) come built."""
    available: dict[str, Authorizer | AuthorizerFunc | None] = {
        "AlwaysAllow": always_allow,
        "AlwaysDeny": always_deny,
        "ABAC": abac,
        "Node": node,
        "RBAC": rbac,
    }
    remaining = iter(webhooks)
    chain = [next(remaining) if mode == "Webhook" else available[mode] for mode in modes]
    return Union([privileged_group, *(authorizer for authorizer in chain if authorizer is not None)], recorder)


Rules = tuple[list[Rule], bool, str]
"""The rules a user holds, whether the list may be incomplete, and why."""

RuleResolver = Callable[[UserInfo, str], Rules]

_EVERYTHING = [Rule(("*",), ("*",), ("*",)), Rule(("*",), non_resource_urls=("*",))]


def build_rule_resolver(modes: list[str], *, rbac: PolicyIndex, abac: AbacAuthorizer | None = None) -> RuleResolver:
    """What SelfSubjectRulesReview lists: the rules of every mode of the chain, in order (upstream's
    `RulesFor` of each authorizer, concatenated). Modes that cannot list rules add nothing."""

    def rules_for(user: UserInfo, namespace: str) -> Rules:
        rules: list[Rule] = []
        errors: list[str] = []
        for mode in modes:
            if mode == "AlwaysAllow":
                rules.extend(_EVERYTHING)
            elif mode == "ABAC" and abac is not None:
                rules.extend(abac.rules_for(user, namespace))
            elif mode == "Webhook":
                errors.append("webhook authorizer does not support user rule resolution")
            elif mode == "Node" and node_name_of(user) is not None:
                errors.append("node authorizer does not support user rule resolution")
            elif mode == "RBAC":
                held, failed = rbac.rules_for(user, namespace)
                rules.extend(held)
                errors.extend(failed)
        return rules, bool(errors), aggregate(errors) if errors else ""

    return rules_for
