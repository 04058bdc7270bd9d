"""What validation reads of the server's feature gates, and the pod validation options derived from them.

Upstream's pod validation takes `PodValidationOptions`, computed per write from the feature gates and
the stored object (`GetValidationOptionsFromPodSpecAndMeta`). Here the server hands its gates to the
strategies as a read-only `Gates` view; a strategy computes the options of one write (`pod_options_for`)
and runs its validation `using` them, and the few rules deep inside a pod spec that depend on them read
`current_pod_options()`. The options live only for that call (a context variable, set and reset around
it), so the validation tables stay plain data instead of threading options through every rule.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Final, Protocol

from svc.api.validation.engine import items, lookup


class Gates(Protocol):
    """A read-only view of feature gates (the server's `FeatureGates` is one)."""

    def enabled(self, name: str) -> bool: ...


@dataclass(frozen=True)
class _Defaults:
    """Upstream 1.36's defaults of the gates validation and the dropping of disabled fields read, for
    callers without a server."""

    on: frozenset[str] = frozenset(
        {
            "DRAExtendedResource",
            "ContainerRestartRules",
            "RestartAllContainersOnContainerExits",
            "HostnameOverride",
            "EnvFiles",
            "PodLevelResources",
            "InPlacePodLevelResourcesVerticalScaling",
            "InPlacePodVerticalScalingInitContainers",
            "ResourceHealthStatus",
            "ResourceHealthStatusMessage",
            "DRADeviceTaints",
            "DRAPartitionableDevices",
            "DRADeviceBindingConditions",
            "DRAResourceClaimDeviceStatus",
            "DRAConsumableCapacity",
        }
    )

    def enabled(self, name: str) -> bool:
        return name in self.on


UPSTREAM_DEFAULTS: Final[Gates] = _Defaults()
READ_BY_VALIDATION: Final = (
    "SELinuxMount",
    "DRAExtendedResource",
    "ContainerRestartRules",
    "RestartAllContainersOnContainerExits",
    "TaintTolerationComparisonOperators",
)


@dataclass(frozen=True)
class PodOptions:
    """The gate-dependent part of upstream's `PodValidationOptions` that svc's rules read."""

    only_recursive_selinux_change_policy: bool = False
    """`AllowOnlyRecursiveSELinuxChangePolicy`: without `SELinuxMount`, a pod spec may ask only for
    `Recursive` relabelling, unless the stored spec already names a policy."""

    allow_container_restart_rules: bool = True
    """`AllowContainerRestartPolicyRules`: regular containers (and regular init containers) may set
    `restartPolicy` and `restartPolicyRules` (ContainerRestartRules, or the stored spec uses them)."""

    allow_restart_all_containers: bool = True
    """`AllowRestartAllContainers`: a rule may take the `RestartAllContainers` action, and sidecars may
    have rules (RestartAllContainersOnContainerExits, or the stored spec uses them)."""

    allow_taint_toleration_comparison_operators: bool = True
    """`AllowTaintTolerationComparisonOperators`: tolerations may use `Lt` and `Gt`
    (TaintTolerationComparisonOperators, or the stored spec uses them)."""


_LENIENT: Final = PodOptions()
_CURRENT: ContextVar[PodOptions] = ContextVar("pod_validation_options", default=_LENIENT)


def pod_options_for(gates: Gates, old_spec: Any) -> PodOptions:
    """The options of a write whose stored pod spec is `old_spec` (None on create)."""
    policy_in_use = lookup(old_spec, "securityContext.seLinuxChangePolicy") is not None
    return PodOptions(
        only_recursive_selinux_change_policy=not gates.enabled("SELinuxMount") and not policy_in_use,
        allow_container_restart_rules=gates.enabled("ContainerRestartRules") or restart_rules_in_use(old_spec),
        allow_restart_all_containers=(
            gates.enabled("RestartAllContainersOnContainerExits") or restart_all_containers_in_use(old_spec)
        ),
        allow_taint_toleration_comparison_operators=(
            gates.enabled("TaintTolerationComparisonOperators") or _comparison_tolerations_in_use(old_spec)
        ),
    )


def _comparison_tolerations_in_use(spec: Any) -> bool:
    """Upstream's `taintTolerationComparisonOperatorsInUse`."""
    return any(lookup(toleration, "operator") in ("Lt", "Gt") for toleration in items(lookup(spec, "tolerations")))


def restart_rules_in_use(spec: Any) -> bool:
    """Upstream's `containerRestartRulesInUse`: a regular container with a policy, or an init container
    with rules or a policy other than the sidecar's `Always`."""
    for container in items(lookup(spec, "initContainers")):
        if lookup(container, "restartPolicy") not in (None, "Always") or items(lookup(container, "restartPolicyRules")):
            return True
    return any(lookup(container, "restartPolicy") is not None for container in items(lookup(spec, "containers")))


def restart_all_containers_in_use(spec: Any) -> bool:
    """Upstream's `restartAllContainersActionInUse`: a rule taking that action, or a sidecar with rules."""
    for kind in ("containers", "initContainers"):
        for container in items(lookup(spec, kind)):
            rules = items(lookup(container, "restartPolicyRules"))
            if any(lookup(rule, "action") == "RestartAllContainers" for rule in rules):
                return True
            if kind == "initContainers" and lookup(container, "restartPolicy") == "Always" and rules:
                return True
    return False


def current_pod_options() -> PodOptions:
    """The options of the validation running now (upstream's most lenient outside a strategy's call)."""
    return _CURRENT.get()


class using:
    """Run the enclosed validation with `options`.

    A plain context manager rather than a generator one: every pod spec write enters it, and the
    generator's setup cost more than the validation of a small pod's options.
    """

    __slots__ = ("options", "token")

    def __init__(self, options: PodOptions) -> None:
        self.options = options

    def __enter__(self) -> None:
        self.token = _CURRENT.set(self.options)

    def __exit__(self, *_: object) -> None:
        _CURRENT.reset(self.token)
