"""Building the policy plugins from the server's parts (its stores fill in when storage opens,
so every collaborator here reads them lazily)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from svc.apiserver.admission.matching import Equivalents, RequestMatcher
from svc.apiserver.admission.plugins.policy.mutating import MutatingAdmissionPolicy
from svc.apiserver.admission.plugins.policy.mutating_policy import MutatingPolicy
from svc.apiserver.admission.plugins.policy.objects import Objects
from svc.apiserver.admission.plugins.policy.source import Collection, PolicySource
from svc.apiserver.admission.plugins.policy.validating import ValidatingAdmissionPolicy
from svc.apiserver.admission.plugins.policy.validating_policy import ValidatingPolicy

if TYPE_CHECKING:
    from svc.apiserver.server import Server

ADMISSION_GROUP = "admissionregistration.k8s.io"


def _collection(server: Server, resource: str) -> Collection:
    return Collection(server.stores, server.profile.group(ADMISSION_GROUP), resource)


def _matcher(server: Server) -> RequestMatcher:
    return RequestMatcher(equivalents=Equivalents.following(server.stores), get_namespace=server._get_namespace)


def build_validating_policy(server: Server) -> Any:
    source = PolicySource(
        _collection(server, "validatingadmissionpolicies"),
        _collection(server, "validatingadmissionpolicybindings"),
        ValidatingPolicy,
    )
    return ValidatingAdmissionPolicy(
        source,
        matcher=_matcher(server),
        objects=Objects(server.resources, server.stores),
        authorizer=server.authorizer,
        get_namespace=server._get_namespace,
        metrics=server.metrics.policies,
    )


def build_mutating_policy(server: Server) -> Any:
    source = PolicySource(
        _collection(server, "mutatingadmissionpolicies"),
        _collection(server, "mutatingadmissionpolicybindings"),
        MutatingPolicy,
    )
    return MutatingAdmissionPolicy(
        source,
        matcher=_matcher(server),
        objects=Objects(server.resources, server.stores),
        get_namespace=server._get_namespace,
        authorizer=server.authorizer,
    )
