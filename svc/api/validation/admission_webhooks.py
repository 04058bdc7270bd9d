"""Validating and MutatingWebhookConfiguration, as `pkg/apis/admissionregistration/validation` checks them
on create: fully qualified and unique webhook names, exactly one of url or service, rules, enums for the
policies, side effects that are safe for dry runs, a recognised AdmissionReview version, and
matchConditions (at most 64, qualified unique names, expressions that compile in the environment the
webhook plugins evaluate them in).
"""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import urlsplit

from svc.api.validation.engine import Check, KindRules, items, lookup
from svc.machinery.cel import CelError, environment
from svc.machinery.field_errors import FieldError, duplicate, invalid, not_supported, required, too_many
from svc.machinery.labels import validate_label_selector
from svc.machinery.validation import is_dns1035_label, is_dns1123_subdomain, is_qualified_name

REVIEW_VERSIONS: Final = ("v1", "v1beta1")
_FAILURE_POLICIES: Final = ("Fail", "Ignore")
_MATCH_POLICIES: Final = ("Equivalent", "Exact")
_SIDE_EFFECTS: Final = ("None", "NoneOnDryRun")
_OPERATIONS: Final = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
_SCOPES: Final = ("*", "Cluster", "Namespaced")
_REINVOCATION: Final = ("IfNeeded", "Never")
_URL_FORM: Final = "; desired format: https://host[/path]"
MATCH_CONDITION_VARIABLES: Final = frozenset(
    {"object", "oldObject", "request", "params", "authorizer", "authorizer.requestResource"}
)
_MAX_MATCH_CONDITIONS: Final = 64


def match_condition_errors(conditions: list[Any], path: str) -> list[FieldError]:
    """Upstream's validateMatchConditions: count, names, and expressions that compile."""
    errors: list[FieldError] = []
    if len(conditions) > _MAX_MATCH_CONDITIONS:
        errors.append(too_many(path, len(conditions), _MAX_MATCH_CONDITIONS))
    names: set[str] = set()
    for index, condition in enumerate(conditions):
        where = f"{path}[{index}]"
        expression = str(lookup(condition, "expression") or "").strip()
        if not expression:
            errors.append(required(f"{where}.expression", ""))
        else:
            try:
                environment(MATCH_CONDITION_VARIABLES).compile(expression)
            except CelError as error:
                errors.append(invalid(f"{where}.expression", expression, f"compilation failed: {error}"))
        name = str(lookup(condition, "name") or "")
        if not name:
            errors.append(required(f"{where}.name", ""))
            continue
        errors += [invalid(f"{where}.name", name, message) for message in is_qualified_name(name)]
        if name in names:
            errors.append(duplicate(f"{where}.name", name))
        names.add(name)
    return errors


def _fully_qualified_name(name: str, path: str) -> list[FieldError]:
    """Upstream's `IsFullyQualifiedName`: a DNS subdomain of at least three labels."""
    if not name:
        return [required(path)]
    errors = [invalid(path, name, message) for message in is_dns1123_subdomain(name)]
    if len(name.split(".")) < 3:
        errors.append(invalid(path, name, "should be a domain with at least three segments separated by dots"))
    return errors


def _url(value: str, path: str) -> list[FieldError]:
    try:
        url = urlsplit(value)
    except ValueError as error:
        return [required(path, f"url must be a valid URL: {error}{_URL_FORM}")]
    errors: list[FieldError] = []
    if url.scheme != "https":
        errors.append(invalid(path, url.scheme, f"'https' is the only allowed URL scheme{_URL_FORM}"))
    if not url.netloc:
        errors.append(invalid(path, url.netloc, f"host must be specified{_URL_FORM}"))
    if "@" in url.netloc:
        errors.append(invalid(path, url.netloc.rpartition("@")[0], "user information is not permitted in the URL"))
    if url.fragment:
        errors.append(invalid(path, url.fragment, "fragments are not permitted in the URL"))
    if url.query:
        errors.append(invalid(path, url.query, "query parameters are not permitted in the URL"))
    return errors


def _service(service: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if not lookup(service, "name"):
        errors.append(required(f"{path}.name", "service name is required"))
    if not lookup(service, "namespace"):
        errors.append(required(f"{path}.namespace", "service namespace is required"))
    port = lookup(service, "port")
    if isinstance(port, int) and not 1 <= port <= 65535:
        errors.append(invalid(f"{path}.port", port, "port is not valid: must be between 1 and 65535, inclusive"))
    url_path = lookup(service, "path")
    if not isinstance(url_path, str) or url_path in ("", "/"):
        return errors
    where = f"{path}.path"
    if url_path == "//":
        return [*errors, invalid(where, url_path, "segment[0] may not be empty")]
    if not url_path.startswith("/"):
        errors.append(invalid(where, url_path, "must start with a '/'"))
    for index, segment in enumerate(url_path[1:].removesuffix("/").split("/")):
        if not segment:
            errors.append(invalid(where, url_path, f"segment[{index}] may not be empty"))
            continue
        errors += [invalid(where, url_path, f"segment[{index}]: {m}") for m in is_dns1123_subdomain(segment)]
    return errors


def _client_config(hook: Any, path: str) -> list[FieldError]:
    url, service = lookup(hook, "clientConfig.url"), lookup(hook, "clientConfig.service")
    if (url is None) == (service is None):
        return [required(f"{path}.clientConfig", "exactly one of url or service is required")]
    if url is not None:
        return _url(str(url), f"{path}.clientConfig.url")
    return _service(service, f"{path}.clientConfig.service")


def _wildcard_with_others(values: list[Any], path: str, what: str) -> list[FieldError]:
    if len(values) > 1 and "*" in values:
        return [invalid(path, values, f"if '*' is present, must not specify other {what}")]
    return []


def _resources(resources: list[Any], path: str) -> list[FieldError]:
    errors = [] if resources else [required(path)]
    for index, resource in enumerate(resources):
        if resource == "":
            errors.append(required(f"{path}[{index}]"))
    if len(resources) > 1 and "*" in resources:
        errors.append(
            invalid(path, resources, "if '*' is present, must not specify other resources without subresources")
        )
    return errors


def rule_errors(rule: Any, path: str) -> list[FieldError]:
    """Upstream's `validateRuleWithOperations` (operations, groups, versions, resources, scope)."""
    operations = items(lookup(rule, "operations"))
    errors = [] if operations else [required(f"{path}.operations")]
    errors += _wildcard_with_others(operations, f"{path}.operations", "operations")
    for index, operation in enumerate(operations):
        if operation not in _OPERATIONS:
            errors.append(not_supported(f"{path}.operations[{index}]", operation, _OPERATIONS))
    groups, versions = items(lookup(rule, "apiGroups")), items(lookup(rule, "apiVersions"))
    if not groups:
        errors.append(required(f"{path}.apiGroups"))
    errors += _wildcard_with_others(groups, f"{path}.apiGroups", "API groups")
    if not versions:
        errors.append(required(f"{path}.apiVersions"))
    errors += _wildcard_with_others(versions, f"{path}.apiVersions", "API versions")
    errors += [required(f"{path}.apiVersions[{i}]") for i, version in enumerate(versions) if version == ""]
    errors += _resources(items(lookup(rule, "resources")), f"{path}.resources")
    scope = lookup(rule, "scope")
    if scope is not None and scope not in _SCOPES:
        errors.append(not_supported(f"{path}.scope", scope, _SCOPES))
    return errors


def _enum(hook: Any, key: str, values: tuple[str, ...], path: str) -> list[FieldError]:
    value = lookup(hook, key)
    return [not_supported(f"{path}.{key}", value, values)] if value is not None and value not in values else []


def _review_versions(versions: list[Any], path: str) -> list[FieldError]:
    if not versions:
        return [required(path, f"must specify one of {', '.join(REVIEW_VERSIONS)}")]
    errors: list[FieldError] = []
    seen: set[Any] = set()
    for index, version in enumerate(versions):
        if version in seen:
            errors.append(invalid(f"{path}[{index}]", version, "duplicate version"))
            continue
        seen.add(version)
        errors += [invalid(f"{path}[{index}]", version, message) for message in is_dns1035_label(str(version))]
    if not any(version in REVIEW_VERSIONS for version in versions):
        errors.append(invalid(path, versions, f"must include at least one of {', '.join(REVIEW_VERSIONS)}"))
    return errors


def _webhook(hook: Any, path: str, *, mutating: bool) -> list[FieldError]:
    errors = _fully_qualified_name(str(lookup(hook, "name") or ""), f"{path}.name")
    for index, rule in enumerate(items(lookup(hook, "rules"))):
        errors += rule_errors(rule, f"{path}.rules[{index}]")
    errors += _enum(hook, "failurePolicy", _FAILURE_POLICIES, path)
    errors += _enum(hook, "matchPolicy", _MATCH_POLICIES, path)
    if lookup(hook, "sideEffects") is None:
        errors.append(required(f"{path}.sideEffects", f"must specify one of {', '.join(_SIDE_EFFECTS)}"))
    errors += _enum(hook, "sideEffects", _SIDE_EFFECTS, path)
    timeout = lookup(hook, "timeoutSeconds")
    if isinstance(timeout, int) and not 1 <= timeout <= 30:
        errors.append(invalid(f"{path}.timeoutSeconds", timeout, "the timeout value must be between 1 and 30 seconds"))
    for key in ("namespaceSelector", "objectSelector"):
        if lookup(hook, key) is not None:
            errors += validate_label_selector(lookup(hook, key), f"{path}.{key}")
    errors += match_condition_errors(items(lookup(hook, "matchConditions")), f"{path}.matchConditions")
    if mutating:
        errors += _enum(hook, "reinvocationPolicy", _REINVOCATION, path)
    return errors + _client_config(hook, path)


def _configuration(*, mutating: bool) -> Check:
    def check(obj: Any, _: str) -> list[FieldError]:
        errors: list[FieldError] = []
        names: set[str] = set()
        for index, hook in enumerate(items(lookup(obj, "webhooks"))):
            path = f"webhooks[{index}]"
            errors += _webhook(hook, path, mutating=mutating)
            errors += _review_versions(
                items(lookup(hook, "admissionReviewVersions")), f"{path}.admissionReviewVersions"
            )
            name = lookup(hook, "name")
            if isinstance(name, str) and name:
                if name in names:
                    errors.append(duplicate(f"{path}.name", name))
                names.add(name)
        return errors

    return Check(check)


RULES: Final[dict[tuple[str, str], KindRules]] = {
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): KindRules(
        create=(_configuration(mutating=False),)
    ),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): KindRules(
        create=(_configuration(mutating=True),)
    ),
}
