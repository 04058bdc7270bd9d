"""The RBAC authorizer (`--authorization-mode=RBAC`): allow when a bound role has a matching rule.

RBAC never denies; without a matching rule it has no opinion, so a later authorizer may still allow.
Its reasons are upstream's: `RBAC: allowed by <binding>` when allowed, and the roles it could not read
(a binding naming a missing role) when not.
"""

from __future__ import annotations

from svc.apiserver.authz.authorizer import Attributes, Decision
from svc.apiserver.authz.rbac.index import PolicyIndex
from svc.apiserver.authz.rbac.rules import allows


def aggregate(errors: list[str]) -> str:
    """Several errors as upstream's aggregate error prints them."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


class RBACAuthorizer:
    def __init__(self, index: PolicyIndex) -> None:
        self.index = index

    async def authorize(self, attributes: Attributes) -> tuple[Decision, str]:
        errors: list[str] = []
        for binding, rules in self.index.visit(attributes.user, attributes.namespace):
            if isinstance(rules, str):
                errors.append(rules)
                continue
            for rule in rules:
                if allows(rule, attributes):
                    return Decision.ALLOW, f"RBAC: allowed by {binding.describe(attributes.user)}"
        return Decision.NO_OPINION, f"RBAC: {aggregate(errors)}" if errors else ""
