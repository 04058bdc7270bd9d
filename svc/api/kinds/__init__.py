"""Per-kind strategies: the generic defaults plus a module for each kind with rules of its own."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

from svc.api.brand import Profile
from svc.api.kinds import (
    api_services,
    certificates,
    config_maps,
    custom_resource_definitions,
    device_taint_rules,
    disabled_fields,
    jobs,
    namespaces,
    optional_status,
    pod_options,
    pods,
    privileged,
    rbac,
    resource_claims,
    secrets,
    services,
    simple_fields,
)
from svc.api.resources import Resource
from svc.api.strategy import NameValidator, Strategy
from svc.api.validation import rules_for
from svc.api.validation.gates import UPSTREAM_DEFAULTS, Gates
from svc.api.validation.service_ranges import ip_address_name_errors
from svc.api.validation.trust_bundles import any_name

# Kinds whose upstream strategy accepts a PUT of a missing object as a create.
_CREATE_ON_UPDATE = frozenset(
    {
        ("", "Endpoints"),
        ("", "Event"),
        ("", "LimitRange"),
        ("events.k8s.io", "Event"),
        ("coordination.k8s.io", "Lease"),
        ("node.k8s.io", "RuntimeClass"),
        ("rbac.authorization.k8s.io", "Role"),
        ("rbac.authorization.k8s.io", "RoleBinding"),
        ("rbac.authorization.k8s.io", "ClusterRole"),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    }
)

# Kinds whose upstream strategy sets metadata.generation and bumps it on a change of the desired state.
_GENERATION = frozenset(
    {
        ("", "Pod"),
        ("", "ReplicationController"),
        ("apps", "Deployment"),
        ("apps", "ReplicaSet"),
        ("apps", "StatefulSet"),
        ("apps", "DaemonSet"),
        ("batch", "Job"),
        ("batch", "CronJob"),
        ("autoscaling", "HorizontalPodAutoscaler"),
        ("policy", "PodDisruptionBudget"),
        ("networking.k8s.io", "NetworkPolicy"),
        ("networking.k8s.io", "Ingress"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"),
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"),
        ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
        ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
        ("resource.k8s.io", "DeviceClass"),
        ("resource.k8s.io", "ResourceClaim"),
    }
)

# Kinds whose names are not DNS subdomains: an IPAddress is named by its address; a ClusterTrustBundle's
# name depends on its signer, so its rules check it.
_NAME_VALIDATORS: dict[tuple[str, str], NameValidator] = {
    ("networking.k8s.io", "IPAddress"): ip_address_name_errors,
    ("certificates.k8s.io", "ClusterTrustBundle"): any_name,
}

_SPECIAL: dict[tuple[str, str], Callable[[Strategy], Strategy]] = {
    ("", "Namespace"): namespaces.strategy,
    ("apiregistration.k8s.io", "APIService"): api_services.strategy,
    ("", "Service"): services.strategy,
    ("", "Secret"): secrets.strategy,
    ("", "ConfigMap"): config_maps.strategy,
    ("resource.k8s.io", "ResourceClaim"): resource_claims.strategy,
    ("resource.k8s.io", "DeviceTaintRule"): device_taint_rules.strategy,
    ("batch", "Job"): jobs.strategy,
    ("certificates.k8s.io", "CertificateSigningRequest"): certificates.strategy,
    ("apiextensions.k8s.io", "CustomResourceDefinition"): custom_resource_definitions.strategy,
    ("rbac.authorization.k8s.io", "Role"): rbac.strategy,
    ("rbac.authorization.k8s.io", "RoleBinding"): rbac.strategy,
    ("rbac.authorization.k8s.io", "ClusterRole"): rbac.strategy,
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): rbac.strategy,
    ("resource.k8s.io", "ResourcePoolStatusRequest"): optional_status.strategy,
}

# Kinds whose own rules read the server's feature gates.
_GATED_SPECIAL: dict[tuple[str, str], Callable[[Strategy, Gates], Strategy]] = {
    ("", "Pod"): pods.strategy,
}

# Kinds whose rules run after the fields of disabled features are dropped, as upstream orders them.
_AFTER_DROPPING: dict[tuple[str, str], Callable[[Strategy, Gates], Strategy]] = {
    ("resource.k8s.io", "ResourceClaim"): resource_claims.with_deallocated_devices_dropped,
}


def strategy_for(
    resource: Resource, profile: Profile, *, allow_privileged: bool = False, gates: Gates = UPSTREAM_DEFAULTS
) -> Strategy:
    """The kind's strategy; `gates` is what its validation may read of the server's feature gates."""
    identity = (resource.upstream_group, resource.kind)
    base = Strategy(
        resource=resource,
        profile=profile,
        allow_create_on_update=identity in _CREATE_ON_UPDATE,
        tracks_generation=identity in _GENERATION,
    )
    name_validator = _NAME_VALIDATORS.get(identity)
    if name_validator is not None:
        base = dataclasses.replace(base, name_validator=name_validator)
    fields = simple_fields.FIELDS.get(identity)
    if fields:
        base = simple_fields.with_fields(base, fields)
    rules = rules_for(*identity, profile)
    if rules is not None:
        base = dataclasses.replace(base, validate=rules.validate, validate_update=rules.validate_update)
        if rules.status:
            base = dataclasses.replace(base, subresource_validators={"status": rules.validate_status_update})
    spec_path = privileged.POD_SPEC_PATHS.get(identity)
    if spec_path is not None:
        base = pod_options.with_pod_options(base, spec_path, gates)
    if spec_path is not None and not allow_privileged:
        base = privileged.refuse_privileged(base, spec_path)
    gated = _GATED_SPECIAL.get(identity)
    special = functools.partial(gated, gates=gates) if gated else _SPECIAL.get(identity)
    strategy = special(base) if special else dataclasses.replace(base)
    strategy = disabled_fields.with_disabled_fields_dropped(strategy, identity, spec_path, gates)
    after = _AFTER_DROPPING.get(identity)
    return after(strategy, gates) if after else strategy
