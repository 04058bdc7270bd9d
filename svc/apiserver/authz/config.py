"""`--authorization-config`: the structured AuthorizationConfiguration file, read and validated.

The file (`apiserver.config.<brand>/v1` or `v1beta1`, YAML or JSON) lists the authorizers in order.
Validation collects every problem as upstream's field errors and reports them in one line, so a bad
file stops the server at start and a bad new file on reload is refused as a whole.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import yaml

from svc.api.brand import Profile
from svc.apiserver.authz.authorizer import Decision
from svc.apiserver.authz.rbac.authorizer import aggregate
from svc.apiserver.authz.webhook import VERSIONS, WebhookSettings
from svc.machinery import field_errors as fe
from svc.machinery.cel.environment import environment
from svc.machinery.cel.values import CelError
from svc.machinery.duration import parse_duration
from svc.machinery.validation import is_dns1123_subdomain

TYPES = ("AlwaysAllow", "AlwaysDeny", "ABAC", "Node", "RBAC", "Webhook")
FAILURE_POLICIES = {"NoOpinion": Decision.NO_OPINION, "Deny": Decision.DENY}
CONNECTION_TYPES = ("InClusterConfig", "KubeConfigFile")
CONFIG_VERSIONS = ("v1", "v1beta1")
MAX_TIMEOUT = 30.0
_MATCH_ENVIRONMENT = environment(frozenset({"request"}))


@dataclass(frozen=True)
class WebhookEntry:
    settings: WebhookSettings
    timeout: float
    connection: str
    kubeconfig_file: str


@dataclass(frozen=True)
class AuthorizerEntry:
    type: str
    name: str
    webhook: WebhookEntry | None = None


def load_authorization_config(path: str, profile: Profile) -> tuple[AuthorizerEntry, ...]:
    """The authorizers of the file, or ValueError with every problem in one line."""
    try:
        with open(path, "rb") as stream:
            document = yaml.safe_load(stream)
    except (OSError, yaml.YAMLError) as error:
        raise ValueError(f'failed to read authorization configuration from "{path}": {error}') from None
    return parse_authorization_config(document, profile)


def parse_authorization_config(document: Any, profile: Profile) -> tuple[AuthorizerEntry, ...]:
    if not isinstance(document, dict):
        raise ValueError("authorization configuration: not a YAML or JSON object")
    group = profile.group("apiserver.config.k8s.io")
    api_version, kind = document.get("apiVersion"), document.get("kind")
    if kind != "AuthorizationConfiguration" or api_version not in {f"{group}/{v}" for v in CONFIG_VERSIONS}:
        raise ValueError(
            f'no kind "{kind}" is registered for version "{api_version}" '
            f"(expected AuthorizationConfiguration in {group}/v1 or {group}/v1beta1)"
        )
    errors: list[fe.FieldError] = []
    entries = _authorizers(document.get("authorizers"), errors)
    if errors:
        raise ValueError(aggregate([str(error) for error in errors]))
    return tuple(entries)


def _authorizers(items: Any, errors: list[fe.FieldError]) -> list[AuthorizerEntry]:
    if not items:
        errors.append(fe.required("authorizers", "at least one authorization mode must be defined"))
        return []
    if not isinstance(items, list):
        errors.append(fe.type_invalid("authorizers", items, "must be a list"))
        return []
    types: set[str] = set()
    names: set[str] = set()
    entries = []
    for index, item in enumerate(items):
        path = f"authorizers[{index}]"
        if not isinstance(item, dict):
            errors.append(fe.type_invalid(path, item, "must be an object"))
            continue
        kind, name = item.get("type") or "", item.get("name") or ""
        if not kind:
            errors.append(fe.required(f"{path}.type"))
        elif kind not in TYPES:
            errors.append(fe.not_supported(f"{path}.type", kind, TYPES))
        elif kind != "Webhook" and kind in types:
            errors.append(fe.duplicate(f"{path}.type", kind))
        types.add(kind)
        if not name:
            errors.append(fe.required(f"{path}.name"))
        elif problems := is_dns1123_subdomain(name):
            errors.append(fe.invalid(f"{path}.name", name, "; ".join(problems)))
        elif name in names:
            errors.append(fe.duplicate(f"{path}.name", name))
        names.add(name)
        webhook = item.get("webhook")
        entry_webhook = None
        if kind == "Webhook":
            if webhook is None:
                errors.append(fe.required(f"{path}.webhook", "required when type=Webhook"))
            else:
                entry_webhook = _webhook(webhook, f"{path}.webhook", name, errors)
        elif webhook is not None:
            errors.append(fe.invalid(f"{path}.webhook", "non-null", "may only be specified when type=Webhook"))
        entries.append(AuthorizerEntry(kind, name, entry_webhook))
    return entries


def _duration(spec: dict[str, Any], key: str, path: str, errors: list[fe.FieldError]) -> float | None:
    text = spec.get(key)
    if text is None or text == "":
        return None
    try:
        return parse_duration(str(text))
    except ValueError as error:
        errors.append(fe.invalid(f"{path}.{key}", text, str(error)))
        return None


def _webhook(spec: Any, path: str, name: str, errors: list[fe.FieldError]) -> WebhookEntry | None:
    if not isinstance(spec, dict):
        errors.append(fe.type_invalid(path, spec, "must be an object"))
        return None
    before = len(errors)
    timeout = _duration(spec, "timeout", path, errors)
    if timeout is None:
        if "timeout" not in spec or spec["timeout"] in (None, ""):
            errors.append(fe.required(f"{path}.timeout"))
    elif not 0 < timeout <= MAX_TIMEOUT:
        errors.append(fe.invalid(f"{path}.timeout", spec["timeout"], "must be > 0s and <= 30s"))
    authorized_ttl = _duration(spec, "authorizedTTL", path, errors)
    unauthorized_ttl = _duration(spec, "unauthorizedTTL", path, errors)
    for key, ttl in (("authorizedTTL", authorized_ttl), ("unauthorizedTTL", unauthorized_ttl)):
        if ttl is not None and ttl <= 0:
            errors.append(fe.invalid(f"{path}.{key}", spec[key], "must be > 0s"))
    version = spec.get("subjectAccessReviewVersion") or ""
    if not version:
        errors.append(fe.required(f"{path}.subjectAccessReviewVersion"))
    elif version not in VERSIONS:
        errors.append(fe.not_supported(f"{path}.subjectAccessReviewVersion", version, VERSIONS))
    conditions = spec.get("matchConditions") or []
    match_version = spec.get("matchConditionSubjectAccessReviewVersion") or ""
    if not match_version:
        if conditions:
            errors.append(fe.required(f"{path}.matchConditionSubjectAccessReviewVersion"))
    elif match_version != "v1":
        errors.append(fe.not_supported(f"{path}.matchConditionSubjectAccessReviewVersion", match_version, ("v1",)))
    policy = spec.get("failurePolicy") or ""
    if not policy:
        errors.append(fe.required(f"{path}.failurePolicy"))
    elif policy not in FAILURE_POLICIES:
        errors.append(fe.not_supported(f"{path}.failurePolicy", policy, tuple(FAILURE_POLICIES)))
    connection, kubeconfig_file = _connection(spec.get("connectionInfo"), f"{path}.connectionInfo", errors)
    programs = _match_conditions(conditions, f"{path}.matchConditions", errors)
    if len(errors) > before:
        return None
    settings = WebhookSettings(
        version=version,
        authorized_ttl=authorized_ttl if authorized_ttl is not None else 300.0,
        unauthorized_ttl=unauthorized_ttl if unauthorized_ttl is not None else 30.0,
        cache_authorized=spec.get("cacheAuthorizedRequests", True) is not False,
        cache_unauthorized=spec.get("cacheUnauthorizedRequests", True) is not False,
        failure_policy=FAILURE_POLICIES[policy],
        match_conditions=programs,
        name=name,
    )
    assert timeout is not None
    return WebhookEntry(settings, timeout, connection, kubeconfig_file)


def _connection(info: Any, path: str, errors: list[fe.FieldError]) -> tuple[str, str]:
    info = info if isinstance(info, dict) else {}
    kind, file = info.get("type") or "", info.get("kubeConfigFile") or ""
    if not kind:
        errors.append(fe.required(f"{path}.type"))
    elif kind not in CONNECTION_TYPES:
        errors.append(fe.not_supported(f"{path}.type", kind, CONNECTION_TYPES))
    elif kind == "KubeConfigFile":
        if not file:
            errors.append(fe.required(f"{path}.kubeConfigFile"))
        elif not os.path.isabs(file):
            errors.append(fe.invalid(f"{path}.kubeConfigFile", file, "must be an absolute path"))
        elif not os.path.isfile(file):
            errors.append(fe.invalid(f"{path}.kubeConfigFile", file, "must be a file"))
    elif file:
        errors.append(fe.invalid(f"{path}.kubeConfigFile", file, "can only be set when type=KubeConfigFile"))
    return kind, file


def _match_conditions(conditions: Any, path: str, errors: list[fe.FieldError]) -> tuple[Any, ...]:
    if not isinstance(conditions, list):
        errors.append(fe.type_invalid(path, conditions, "must be a list"))
        return ()
    seen: set[str] = set()
    programs = []
    for index, condition in enumerate(conditions):
        expression = condition.get("expression") if isinstance(condition, dict) else None
        where = f"{path}[{index}].expression"
        if not expression or not isinstance(expression, str):
            errors.append(fe.required(where))
            continue
        if expression in seen:
            errors.append(fe.duplicate(where, expression))
            continue
        seen.add(expression)
        try:
            programs.append(_MATCH_ENVIRONMENT.compile(expression))
        except CelError as error:
            errors.append(fe.invalid(where, expression, f"compilation failed: {error}"))
    return tuple(programs)
