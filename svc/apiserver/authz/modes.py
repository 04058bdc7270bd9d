"""The built-in authorization modes (`--authorization-mode`) and the chain they form."""

from __future__ import annotations

from svc.apiserver.authz.authorizer import Attributes, AuthorizerFunc, Decision, Union


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


MODES: dict[str, AuthorizerFunc] = {"AlwaysAllow": always_allow, "AlwaysDeny": always_deny}


def build_authorizer(modes: list[str]) -> Union:
    return Union([privileged_group, *(MODES[mode] for mode in modes)])
