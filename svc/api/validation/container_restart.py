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
from svc.machinery.field_errors import FieldError, forbidden, not_supported, required, too_long

CONTAINER_RESTART_POLICIES: Final = ("Always", "Never", "OnFailure")
"""Upstream lists them sorted (`sets.List`) in its NotSupported detail."""
RULE_ACTIONS: Final = ("Restart",)
RULE_ACTIONS_WITH_RESTART_ALL: Final = ("Restart", "RestartAllContainers")
EXIT_CODE_OPERATORS: Final = ("In", "NotIn")
MAX_RULES: Final = 20
MAX_EXIT_CODES: Final = 255
_NO_POLICY: Final = "must specify restartPolicy when restart rules are used"
_SIDECAR_RULES: Final = "restartPolicyRules are not allowed for init containers with restart policy Always"


def _rules_errors(rules: list[Any], base: str) -> list[FieldError]:
    """The rules' limits: upstream reports a long list as `TooLong` (whose text counts bytes), and an
    unknown action against the basic actions only, even where RestartAllContainers is accepted."""
    errors: list[FieldError] = []
    path = join(base, "restartPolicyRules")
    if len(rules) > MAX_RULES:
        errors.append(too_long(path, MAX_RULES))
    restart_all = current_pod_options().allow_restart_all_containers
    actions = RULE_ACTIONS_WITH_RESTART_ALL if restart_all else RULE_ACTIONS
    for index, rule in enumerate(rules):
        where = f"{path}[{index}]"
        action = lookup(rule, "action")
        if action not in actions:
            errors.append(not_supported(f"{where}.action", action or "", RULE_ACTIONS))
        exit_codes = lookup(rule, "exitCodes")
        if exit_codes is None:
            errors.append(required(f"{where}.exitCodes", "must be specified"))
            continue
        operator = lookup(exit_codes, "operator")
        if operator not in EXIT_CODE_OPERATORS:
            errors.append(not_supported(f"{where}.exitCodes.operator", operator or "", EXIT_CODE_OPERATORS))
        if len(items(lookup(exit_codes, "values"))) > MAX_EXIT_CODES:
            errors.append(too_long(f"{where}.exitCodes.values", MAX_EXIT_CODES))
    return errors


def restart_policy_errors(container: Any, base: str) -> list[FieldError]:
    """Upstream's `validateContainerRestartPolicy`: rules without a policy are refused and still checked."""
    policy, rules = lookup(container, "restartPolicy"), items(lookup(container, "restartPolicyRules"))
    if policy is None and not rules:
        return []
    errors: list[FieldError] = []
    if policy is None:
        errors.append(required(join(base, "restartPolicy"), _NO_POLICY))
    elif policy not in CONTAINER_RESTART_POLICIES:
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
    """Upstream's `validateInitContainerRestartPolicy`: `Always` makes a sidecar, whose rules need
    RestartAllContainersOnContainerExits; any other policy needs ContainerRestartRules."""
    policy, rules = lookup(container, "restartPolicy"), items(lookup(container, "restartPolicyRules"))
    if policy is None:
        return [required(join(base, "restartPolicy"), _NO_POLICY)] if rules else []
    options = current_pod_options()
    if not options.allow_container_restart_rules:
        return [] if policy == "Always" else [not_supported(join(base, "restartPolicy"), policy, ("Always",))]
    if policy == "Always" and not options.allow_restart_all_containers:
        return [forbidden(join(base, "restartPolicyRules"), _SIDECAR_RULES)] if rules else []
    return restart_policy_errors(container, base)
