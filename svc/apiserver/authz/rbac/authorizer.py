"""The RBAC authorizer (`--authorization-mode=RBAC`): allow when a bound role has a matching rule.

RBAC never denies; without a matching rule it has no opinion, so a later authorizer may still allow.
Its reasons are upstream's: `RBAC: allowed by <binding>` when allowed, and the roles it could not read
(a binding naming a missing role) when not.

Decisions are remembered until the policy next changes: a controller or service account asks the same
question many times a second, and a remembered answer costs one dictionary lookup instead of a walk
over its bindings' rules. Any change to any role or binding forgets them all, so a remembered answer is
always the one the current policy gives.
"""

from __future__ import annotations

from svc.apiserver.authz.authorizer import Attributes, Decision
from svc.apiserver.authz.rbac.index import PolicyIndex
from svc.apiserver.authz.rbac.rules import allows


def aggregate(errors: list[str]) -> str:
    """Several errors as upstream's aggregate error prints them."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


_REMEMBERED = 10_000

Question = tuple[str, tuple[str, ...], str, bool, str, str, str, str, str]


def _question(attributes: Attributes) -> Question:
    """What an RBAC decision depends on (never the user's extra fields or uid, nor the API version)."""
    return (
        attributes.user.name,
        attributes.user.groups,
        attributes.verb,
        attributes.is_resource_request,
        attributes.path if not attributes.is_resource_request else "",
        attributes.namespace,
        attributes.api_group,
        attributes.resource + "/" + attributes.subresource,
        attributes.name,
    )


class RBACAuthorizer:
    def __init__(self, index: PolicyIndex) -> None:
        self.index = index
        self._answers: dict[Question, tuple[Decision, str]] = {}
        self._generation = -1

    async def authorize(self, attributes: Attributes) -> tuple[Decision, str]:
        if self._generation != self.index.generation or len(self._answers) >= _REMEMBERED:
            self._answers.clear()
            self._generation = self.index.generation
        question = _question(attributes)
        answer = self._answers.get(question)
        if answer is None:
            answer = self._answers[question] = self.decide(attributes)
        return answer

    def decide(self, attributes: Attributes) -> tuple[Decision, str]:
        errors: list[str] = []
        for binding, rules in self.index.visit(attributes.user, attributes.namespace):
            if isinstance(rules, str):
                errors.append(rules)
                continue
            for rule in rules:
                if allows(rule, attributes):
                    return Decision.ALLOW, f"RBAC: allowed by {binding.describe(attributes.user)}"
        return Decision.NO_OPINION, f"RBAC: {aggregate(errors)}" if errors else ""
