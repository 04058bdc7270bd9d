"""Admission webhooks and admission policies (admissionregistration.k8s.io/v1).

Webhooks fail closed, match equivalent versions, select everything and time out after 10 s; mutating
ones are not re-invoked. Policies fail closed and their match resources default like a webhook's.
Every rule spans all scopes, and a service reference points at port 443.
"""

from __future__ import annotations

from typing import Final

from svc.api.defaults.walk import Obj, child, entries, fill_nil

WEBHOOK_TIMEOUT_SECONDS: Final = 10
SERVICE_PORT: Final = 443


def service_port(obj: Obj | None) -> None:
    """The port of the service `obj` refers to: a webhook's client config, a CRD conversion webhook's,
    an APIService's spec."""
    service = child(obj, "service")
    if service is not None:
        fill_nil(service, "port", SERVICE_PORT)


def _rules(obj: Obj, key: str) -> None:
    for rule in entries(obj, key):
        fill_nil(rule, "scope", "*")


def _selectors(obj: Obj) -> None:
    fill_nil(obj, "matchPolicy", "Equivalent")
    fill_nil(obj, "namespaceSelector", {})
    fill_nil(obj, "objectSelector", {})


def _webhook(webhook: Obj) -> None:
    fill_nil(webhook, "failurePolicy", "Fail")
    _selectors(webhook)
    fill_nil(webhook, "timeoutSeconds", WEBHOOK_TIMEOUT_SECONDS)
    _rules(webhook, "rules")
    service_port(child(webhook, "clientConfig"))


def validating_webhook_configuration(obj: Obj) -> None:
    for webhook in entries(obj, "webhooks"):
        _webhook(webhook)


def mutating_webhook_configuration(obj: Obj) -> None:
    for webhook in entries(obj, "webhooks"):
        _webhook(webhook)
        fill_nil(webhook, "reinvocationPolicy", "Never")


def _match_resources(match: Obj | None) -> None:
    if match is not None:
        _selectors(match)
        _rules(match, "resourceRules")
        _rules(match, "excludeResourceRules")


def admission_policy(obj: Obj) -> None:
    """ValidatingAdmissionPolicy and MutatingAdmissionPolicy alike."""
    spec = child(obj, "spec")
    if spec is not None:
        fill_nil(spec, "failurePolicy", "Fail")
        _match_resources(child(spec, "matchConstraints"))


def admission_policy_binding(obj: Obj) -> None:
    """ValidatingAdmissionPolicyBinding and MutatingAdmissionPolicyBinding alike."""
    _match_resources(child(child(obj, "spec"), "matchResources"))
