"""Per-kind validation of the built-in types, as upstream's `pkg/apis/<group>/validation` (release 1.36).

`rules_for` gives a kind's `KindRules` (or None for kinds checked only by the generic metadata rules);
the strategy module wires them into a kind's `validate` and `validate_update`.
"""

from __future__ import annotations

import dataclasses

from svc.api.brand import Profile
from svc.api.validation import (
    admission_policies,
    admission_webhooks,
    apiextensions,
    certificates,
    core,
    csi_kinds,
    discovery_and_events,
    dra,
    endpoints_and_nodes,
    flowcontrol,
    pod_certificates,
    pod_updates,
    pods,
    rbac,
    runtime_classes,
    service_ranges,
    small_groups,
    status_core,
    status_workloads,
    storage,
    trust_bundles,
    volumes,
    workloads,
)
from svc.api.validation.engine import KindRules, UpdateCheck
from svc.machinery.validation import GENERIC_FINALIZERS

_RULES: dict[tuple[str, str], KindRules] = {
    ("", "Pod"): pod_updates.POD,
    ("", "PodTemplate"): pods.POD_TEMPLATE,
    **core.RULES,
    **workloads.RULES,
    **storage.RULES,
    **endpoints_and_nodes.RULES,
    **small_groups.RULES,
    **discovery_and_events.RULES,
    **admission_webhooks.RULES,
    **admission_policies.RULES,
    **flowcontrol.RULES,
    **volumes.RULES,
    **certificates.RULES,
    **apiextensions.RULES,
    **service_ranges.RULES,
    **trust_bundles.RULES,
    **csi_kinds.RULES,
    **runtime_classes.RULES,
    **dra.RULES,
}


_STATUS = {**status_core.STATUS, **status_workloads.STATUS}
for _identity, _table in _STATUS.items():
    _RULES[_identity] = dataclasses.replace(_RULES[_identity], status=_table)
# A node's status strategy validates the whole update, as its main strategy does.
_NODE = _RULES[("", "Node")]
_RULES[("", "Node")] = dataclasses.replace(
    _NODE, status=(UpdateCheck(lambda new, old, _: _NODE.validate_update(new, old)), status_core.NODE_RESOURCES)
)


def rules_for(group: str, kind: str, profile: Profile) -> KindRules | None:
    """The rules of a built-in kind (by upstream group) on a brand profile, or None when it has none."""
    if (group, kind) == ("", "Namespace"):
        rules = core.namespace_rules(GENERIC_FINALIZERS | {profile.namespace_finalizer})
        return dataclasses.replace(rules, status=status_core.NAMESPACE_STATUS)
    if group == rbac.UPSTREAM_GROUP:
        return rbac.rules(profile).get((group, kind))
    if (group, kind) == ("certificates.k8s.io", "PodCertificateRequest"):
        return pod_certificates.rules(profile)
    return _RULES.get((group, kind))
