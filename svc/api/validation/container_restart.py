"""A container's own `restartPolicy` and `restartPolicyRules` (ContainerRestartRules, beta and on in
1.36), as upstream's `validateContainerRestartPolicy` checks them: regular containers and regular init
containers may name a policy and exit-code rules; a sidecar (an init container with `Always`) may carry
rules only with RestartAllContainersOnContainerExits. Which of this a write may use comes from the pod
validation options (`svc.api.validation.gates`): the gate, or the stored spec already using it.
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.engine import items, join, lookup
from svc.api.validation.gates import current_pod_options
from svc.machinery.field_errors import FieldError, forbidden, not_supported, required, too_many

CONTAINER_RESTART_POLICIES: Final = ("Always", "OnFailure", "Never")
RULE_ACTIONS: Final = ("Restart",)
RULE_ACTIONS_WITH_RESTART_ALL: Final = ("Restart", "RestartAllContainers")
EXIT_CODE_OPERATORS: Final = ("In", "NotIn")
MAX_RULES: Final = 20
MAX_EXIT_CODES: Final = 255


def _rules_errors(rules: list[Any], base: str) -> list[FieldError]:
    errors: list[FieldError] = []
    path = join(base, "restartPolicyRules")
    if len(rules) > MAX_RULES:
        errors.append(too_many(path, len(rules), MAX_RULES))
    restart_all = current_pod_options().allow_restart_all_containers
    actions = RULE_ACTIONS_WITH_RESTART_ALL if restart_all else RULE_ACTIONS
    for index, rule in enumerate(rules):
        where = f"{path}[{index}]"
        action = lookup(rule, "action")
        if action not in actions:
            errors.append(not_supported(f"{where}.action", action or "", actions))
        exit_codes = lookup(rule, "exitCodes")
        if exit_codes is None:
            errors.append(required(f"{where}.exitCodes", "must be specified"))
            continue
        operator = lookup(exit_codes, "operator")
        if operator not in EXIT_CODE_OPERATORS:
            errors.append(not_supported(f"{where}.exitCodes.operator", operator or "", EXIT_CODE_OPERATORS))
        values = items(lookup(exit_codes, "values"))
        if len(values) > MAX_EXIT_CODES:
            errors.append(too_many(f"{where}.exitCodes.values", len(values), MAX_EXIT_CODES))
    return errors


def restart_policy_errors(container: Any, base: str) -> list[FieldError]:
    """A regular container's, or a regular init container's, own policy and rules."""
    policy, rules = lookup(container, "restartPolicy"), items(lookup(container, "restartPolicyRules"))
    if policy is None:
        if rules:
            return [required(join(base, "restartPolicy"), "must specify restartPolicy when restart rules are used")]
        return []
    errors: list[FieldError] = []
    if policy not in CONTAINER_RESTART_POLICIES:
        errors.append(not_supported(join(base, "restartPolicy"), policy, CONTAINER_RESTART_POLICIES))
    return errors + _rules_errors(rules, base)


def regular_container_errors(container: Any, base: str) -> list[FieldError]:
    """A container of `containers`: its own policy only with ContainerRestartRules (or in use)."""
    if current_pod_options().allow_container_restart_rules:
        return restart_policy_errors(container, base)
    if lookup(container, "restartPolicy") is not None:
        return [forbidden(join(base, "restartPolicy"), "may not be set for non-init containers")]
    return []


def init_container_errors(container: Any, base: str) -> list[FieldError]:
    """An init container: `Always` makes it a sidecar; any other policy needs ContainerRestartRules."""
    policy = lookup(container, "restartPolicy")
    if policy == "Always":
        rules = items(lookup(container, "restartPolicyRules"))
        if not rules:
            return []
        if not current_pod_options().allow_restart_all_containers:
            return [forbidden(join(base, "restartPolicyRules"), "may not be set for sidecar containers")]
        return _rules_errors(rules, base)
    if current_pod_options().allow_container_restart_rules:
        return restart_policy_errors(container, base)
    if policy is not None:
        return [not_supported(join(base, "restartPolicy"), policy, ("Always",))]
    return []
