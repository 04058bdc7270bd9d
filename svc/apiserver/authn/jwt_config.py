"""AuthenticationConfiguration (`--authentication-config`): decoding and validation, as upstream.

The file is read strictly (an unknown field is an error, as upstream's strict decoder has it) into
frozen dataclasses, then validated with upstream's field paths and texts; CEL expressions are compiled
during validation, so a file that starts the server never fails to compile later. The `--oidc-*`
flags are turned into the same structure (`from_oidc_flags`), so one JWT authenticator serves both.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml
from cryptography import x509

from svc.machinery import field_errors
from svc.machinery.cel import CelError, Environment
from svc.machinery.cel.parser import parse_with_positions
from svc.machinery.field_errors import FieldError
from svc.machinery.validation import is_dns1123_subdomain

GROUP = "apiserver.config.k8s.io"
VERSIONS = ("v1", "v1beta1", "v1alpha1")
KIND = "AuthenticationConfiguration"
MAX_JWT_AUTHENTICATORS = 64
MATCH_ANY = "MatchAny"

CLAIMS_ENV = Environment(["claims"])
USER_ENV = Environment(["user"])


class ConfigError(ValueError):
    pass


@dataclass(frozen=True)
class ClaimOrExpression:
    claim: str = ""
    prefix: str | None = None
    expression: str = ""


@dataclass(frozen=True)
class ClaimValidationRule:
    claim: str = ""
    required_value: str = ""
    expression: str = ""
    message: str = ""


@dataclass(frozen=True)
class ExtraMapping:
    key: str
    value_expression: str


@dataclass(frozen=True)
class UserValidationRule:
    expression: str
    message: str = ""


@dataclass(frozen=True)
class Issuer:
    url: str = ""
    discovery_url: str = ""
    audiences: tuple[str, ...] = ()
    audience_match_policy: str = ""
    certificate_authority: str = ""


@dataclass(frozen=True)
class ClaimMappings:
    username: ClaimOrExpression = ClaimOrExpression()
    groups: ClaimOrExpression = ClaimOrExpression()
    uid: ClaimOrExpression = ClaimOrExpression()
    extra: tuple[ExtraMapping, ...] = ()


@dataclass(frozen=True)
class JWTAuthenticatorConfig:
    issuer: Issuer
    claim_validation_rules: tuple[ClaimValidationRule, ...] = ()
    claim_mappings: ClaimMappings = ClaimMappings()
    user_validation_rules: tuple[UserValidationRule, ...] = ()


@dataclass(frozen=True)
class AnonymousConfig:
    enabled: bool = False
    paths: tuple[str, ...] = ()


@dataclass(frozen=True)
class AuthenticationConfiguration:
    jwt: tuple[JWTAuthenticatorConfig, ...] = ()
    anonymous: AnonymousConfig | None = None
    signing_algorithms: tuple[str, ...] | None = field(default=None, compare=False)
    """None: every algorithm PyJWT verifies (the file); the flags restrict it (`--oidc-signing-algs`)."""


# ---- decoding -------------------------------------------------------------------------------------


class _Reader:
    """Strict reading of one mapping: known keys only, each of the expected JSON type."""

    def __init__(self, data: Any, path: str, known: Iterable[str]) -> None:
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise ConfigError(f"{path or 'config'}: expected an object, got {type(data).__name__}")
        unknown = [key for key in data if key not in set(known)]
        if unknown:
            name = f"{path}.{unknown[0]}" if path else str(unknown[0])
            raise ConfigError(f'strict decoding error: unknown field "{name}"')
        self.data = data
        self.path = path

    def _where(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def string(self, key: str) -> str:
        value = self.data.get(key)
        if value is None:
            return ""
        if not isinstance(value, str):
            raise ConfigError(f"{self._where(key)}: expected a string, got {_json_type(value)}")
        return value

    def optional_string(self, key: str) -> str | None:
        return self.string(key) if self.data.get(key) is not None else None

    def boolean(self, key: str) -> bool:
        value = self.data.get(key, False)
        if not isinstance(value, bool):
            raise ConfigError(f"{self._where(key)}: expected a boolean, got {_json_type(value)}")
        return value

    def items(self, key: str) -> list[tuple[str, Any]]:
        value = self.data.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise ConfigError(f"{self._where(key)}: expected an array, got {_json_type(value)}")
        return [(f"{self._where(key)}[{index}]", item) for index, item in enumerate(value)]

    def strings(self, key: str) -> tuple[str, ...]:
        result = []
        for where, item in self.items(key):
            if not isinstance(item, str):
                raise ConfigError(f"{where}: expected a string, got {_json_type(item)}")
            result.append(item)
        return tuple(result)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "string" if isinstance(value, str) else "null"


def _claim_or_expression(data: Any, path: str) -> ClaimOrExpression:
    reader = _Reader(data, path, ("claim", "prefix", "expression"))
    return ClaimOrExpression(reader.string("claim"), reader.optional_string("prefix"), reader.string("expression"))


def _jwt(data: Any, path: str) -> JWTAuthenticatorConfig:
    reader = _Reader(data, path, ("issuer", "claimValidationRules", "claimMappings", "userValidationRules"))
    issuer = _Reader(
        reader.data.get("issuer"),
        f"{path}.issuer",
        ("url", "discoveryURL", "audiences", "audienceMatchPolicy", "certificateAuthority", "egressSelectorType"),
    )
    rules = []
    for where, item in reader.items("claimValidationRules"):
        rule = _Reader(item, where, ("claim", "requiredValue", "expression", "message"))
        rules.append(
            ClaimValidationRule(
                rule.string("claim"), rule.string("requiredValue"), rule.string("expression"), rule.string("message")
            )
        )
    mappings = _Reader(
        reader.data.get("claimMappings"), f"{path}.claimMappings", ("username", "groups", "uid", "extra")
    )
    uid = _Reader(mappings.data.get("uid"), f"{path}.claimMappings.uid", ("claim", "expression"))
    extra = []
    for where, item in mappings.items("extra"):
        entry = _Reader(item, where, ("key", "valueExpression"))
        extra.append(ExtraMapping(entry.string("key"), entry.string("valueExpression")))
    user_rules = []
    for where, item in reader.items("userValidationRules"):
        rule = _Reader(item, where, ("expression", "message"))
        user_rules.append(UserValidationRule(rule.string("expression"), rule.string("message")))
    return JWTAuthenticatorConfig(
        issuer=Issuer(
            url=issuer.string("url"),
            discovery_url=issuer.string("discoveryURL"),
            audiences=issuer.strings("audiences"),
            audience_match_policy=issuer.string("audienceMatchPolicy"),
            certificate_authority=issuer.string("certificateAuthority"),
        ),
        claim_validation_rules=tuple(rules),
        claim_mappings=ClaimMappings(
            username=_claim_or_expression(mappings.data.get("username"), f"{path}.claimMappings.username"),
            groups=_claim_or_expression(mappings.data.get("groups"), f"{path}.claimMappings.groups"),
            uid=ClaimOrExpression(claim=uid.string("claim"), expression=uid.string("expression")),
            extra=tuple(extra),
        ),
        user_validation_rules=tuple(user_rules),
    )


def decode(data: bytes) -> AuthenticationConfiguration:
    """The configuration in a file's bytes (YAML or JSON); raises ConfigError as upstream's decoder."""
    if not data.strip():
        raise ConfigError("empty config data")
    try:
        document = yaml.safe_load(data)
    except yaml.YAMLError as error:
        raise ConfigError(f"error converting YAML to JSON: {error}") from None
    if not isinstance(document, dict):
        raise ConfigError("couldn't get version/kind; json parse error: not an object")
    api_version, kind = document.get("apiVersion"), document.get("kind")
    if not kind:
        raise ConfigError("Object 'Kind' is missing in the configuration")
    group, _, version = str(api_version or "").rpartition("/")
    if group != GROUP or version not in VERSIONS or kind != KIND:
        raise ConfigError(f'no kind "{kind}" is registered for version "{api_version}" in scheme')
    reader = _Reader(document, "", ("apiVersion", "kind", "jwt", "anonymous"))
    jwt = tuple(_jwt(item, where) for where, item in reader.items("jwt"))
    anonymous = None
    if reader.data.get("anonymous") is not None:
        section = _Reader(reader.data["anonymous"], "anonymous", ("enabled", "conditions"))
        paths = tuple(_Reader(item, where, ("path",)).string("path") for where, item in section.items("conditions"))
        anonymous = AnonymousConfig(section.boolean("enabled"), paths)
    return AuthenticationConfiguration(jwt=jwt, anonymous=anonymous)


def load(path: str, disallowed_issuers: Iterable[str] = ()) -> tuple[AuthenticationConfiguration, bytes]:
    """The decoded and validated file and its bytes; raises ValueError with upstream's start-up text."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise ValueError(
            f'failed to load authentication configuration from file "{path}": open {path}: {error.strerror}'
        ) from None
    try:
        config = decode(data)
    except ConfigError as error:
        raise ValueError(f'failed to load authentication configuration from file "{path}": {error}') from None
    check(config, disallowed_issuers)
    return config, data


def check(config: AuthenticationConfiguration, disallowed_issuers: Iterable[str] = ()) -> None:
    errors = validate(config, disallowed_issuers)
    if errors:
        raise ValueError(f"invalid authentication configuration: {field_errors.aggregate_message(errors)}")


def from_oidc_flags(
    *,
    issuer_url: str,
    client_id: str,
    ca: str,
    username_claim: str,
    username_prefix: str | None,
    groups_claim: str,
    groups_prefix: str,
    required_claims: dict[str, str],
    signing_algorithms: tuple[str, ...],
) -> AuthenticationConfiguration:
    """The one JWT authenticator the `--oidc-*` flags describe, with upstream's legacy prefixing: a
    claim other than `email` is prefixed with the issuer URL and `#` unless a prefix is given, and
    `-` means no prefix."""
    prefix = username_prefix or ""
    if not username_prefix and username_claim != "email":
        prefix = issuer_url + "#"
    if username_prefix == "-":
        prefix = ""
    return AuthenticationConfiguration(
        jwt=(
            JWTAuthenticatorConfig(
                issuer=Issuer(url=issuer_url, audiences=(client_id,), certificate_authority=ca),
                claim_validation_rules=tuple(
                    ClaimValidationRule(claim=claim, required_value=value) for claim, value in required_claims.items()
                ),
                claim_mappings=ClaimMappings(
                    username=ClaimOrExpression(claim=username_claim, prefix=prefix),
                    groups=ClaimOrExpression(claim=groups_claim, prefix=groups_prefix)
                    if groups_claim
                    else ClaimOrExpression(),
                ),
            ),
        ),
        signing_algorithms=signing_algorithms,
    )


# ---- validation -----------------------------------------------------------------------------------


def validate(config: AuthenticationConfiguration, disallowed_issuers: Iterable[str] = ()) -> list[FieldError]:
    if len(config.jwt) > MAX_JWT_AUTHENTICATORS:
        return [field_errors.too_many("jwt", len(config.jwt), MAX_JWT_AUTHENTICATORS)]
    disallowed = sorted(set(disallowed_issuers))
    errors: list[FieldError] = []
    seen_issuers: set[str] = set()
    seen_discovery: set[str] = set()
    for index, authenticator in enumerate(config.jwt):
        path = f"jwt[{index}]"
        errors += _validate_jwt(authenticator, path, disallowed)
        if authenticator.issuer.url in seen_issuers:
            errors.append(field_errors.duplicate(f"{path}.issuer.url", authenticator.issuer.url))
        seen_issuers.add(authenticator.issuer.url)
        if authenticator.issuer.discovery_url:
            if authenticator.issuer.discovery_url in seen_discovery:
                errors.append(field_errors.duplicate(f"{path}.issuer.discoveryURL", authenticator.issuer.discovery_url))
            seen_discovery.add(authenticator.issuer.discovery_url)
    if config.anonymous is not None:
        errors += _validate_anonymous(config.anonymous)
    return errors


def _validate_anonymous(anonymous: AnonymousConfig) -> list[FieldError]:
    errors = []
    if not anonymous.enabled and anonymous.paths:
        errors.append(
            field_errors.invalid(
                "anonymous.conditions",
                [{"path": path} for path in anonymous.paths],
                "enabled should be set to true when conditions are defined",
            )
        )
    seen: set[str] = set()
    for index, path in enumerate(anonymous.paths):
        if not path:
            errors.append(field_errors.required(f"anonymous.conditions[{index}].path", ""))
        elif path in seen:
            errors.append(field_errors.duplicate(f"anonymous.conditions[{index}].path", path))
        seen.add(path)
    return errors


def _validate_jwt(authenticator: JWTAuthenticatorConfig, path: str, disallowed: list[str]) -> list[FieldError]:
    issuer = authenticator.issuer
    errors: list[FieldError] = []
    if not issuer.url:
        errors.append(field_errors.required(f"{path}.issuer.url"))
    else:
        errors += _validate_url(issuer.url, f"{path}.issuer.url", disallowed)
    if issuer.discovery_url:
        if issuer.url and issuer.url.rstrip("/") == issuer.discovery_url.rstrip("/"):
            errors.append(
                field_errors.invalid(
                    f"{path}.issuer.discoveryURL", issuer.discovery_url, "discoveryURL must be different from URL"
                )
            )
        errors += _validate_url(issuer.discovery_url, f"{path}.issuer.discoveryURL", [])
    errors += _validate_audiences(issuer, f"{path}.issuer")
    if issuer.certificate_authority:
        try:
            if not x509.load_pem_x509_certificates(issuer.certificate_authority.encode()):
                raise ValueError
        except ValueError:
            errors.append(
                field_errors.invalid(
                    f"{path}.issuer.certificateAuthority",
                    "<omitted>",
                    "data does not contain any valid RSA or ECDSA certificates",
                )
            )
    uses_email_verified = False
    seen_claims: set[str] = set()
    seen_expressions: set[str] = set()
    for index, rule in enumerate(authenticator.claim_validation_rules):
        where = f"{path}.claimValidationRules[{index}]"
        if rule.claim and rule.expression:
            errors.append(field_errors.invalid(where, rule.claim, "claim and expression can't both be set"))
        elif not rule.claim and not rule.expression:
            errors.append(field_errors.required(where, "claim or expression is required"))
        elif rule.claim:
            if rule.message:
                errors.append(
                    field_errors.invalid(f"{where}.message", rule.message, "may not be specified when claim is set")
                )
            if rule.claim in seen_claims:
                errors.append(field_errors.duplicate(f"{where}.claim", rule.claim))
            seen_claims.add(rule.claim)
        else:
            if rule.required_value:
                errors.append(
                    field_errors.invalid(
                        f"{where}.requiredValue", rule.required_value, "may not be specified when expression is set"
                    )
                )
            if rule.expression in seen_expressions:
                errors.append(field_errors.duplicate(f"{where}.expression", rule.expression))
                continue
            seen_expressions.add(rule.expression)
            errors += _compile(CLAIMS_ENV, rule.expression, f"{where}.expression")
            uses_email_verified |= _selects(rule.expression, "claims", "email_verified")
    mappings = authenticator.claim_mappings
    errors += _validate_prefixed(mappings.username, f"{path}.claimMappings.username", required=True)
    errors += _validate_prefixed(mappings.groups, f"{path}.claimMappings.groups", required=False)
    if mappings.uid.claim and mappings.uid.expression:
        errors.append(field_errors.invalid(f"{path}.claimMappings.uid", "", "claim and expression can't both be set"))
    elif mappings.uid.expression:
        errors += _compile(CLAIMS_ENV, mappings.uid.expression, f"{path}.claimMappings.uid.expression")
    errors += _validate_extra(mappings.extra, f"{path}.claimMappings.extra")
    username = mappings.username.expression
    uses_email_verified |= _selects(username, "claims", "email_verified") or any(
        _selects(extra.value_expression, "claims", "email_verified") for extra in mappings.extra
    )
    if username and _selects(username, "claims", "email") and not uses_email_verified:
        errors.append(
            field_errors.invalid(
                f"{path}.claimMappings.username.expression",
                username,
                "claims.email_verified must be used in claimMappings.username.expression or "
                "claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email "
                "is used in claimMappings.username.expression",
            )
        )
    seen_user_rules: set[str] = set()
    for index, user_rule in enumerate(authenticator.user_validation_rules):
        where = f"{path}.userValidationRules[{index}].expression"
        if not user_rule.expression:
            errors.append(field_errors.required(where))
            continue
        if user_rule.expression in seen_user_rules:
            errors.append(field_errors.duplicate(where, user_rule.expression))
            continue
        seen_user_rules.add(user_rule.expression)
        errors += _compile(USER_ENV, user_rule.expression, where)
    return errors


def _validate_url(url: str, path: str, disallowed: list[str]) -> list[FieldError]:
    errors = []
    if url in disallowed:
        errors.append(
            field_errors.invalid(path, url, f"URL must not overlap with disallowed issuers: [{' '.join(disallowed)}]")
        )
    try:
        parts = urlsplit(url)
    except ValueError as error:
        return [*errors, field_errors.invalid(path, url, str(error))]
    if parts.scheme != "https":
        errors.append(field_errors.invalid(path, url, "URL scheme must be https"))
    if parts.username is not None or parts.password is not None:
        errors.append(field_errors.invalid(path, url, "URL must not contain a username or password"))
    if parts.query:
        errors.append(field_errors.invalid(path, url, "URL must not contain a query"))
    if parts.fragment:
        errors.append(field_errors.invalid(path, url, "URL must not contain a fragment"))
    return errors


def _validate_audiences(issuer: Issuer, path: str) -> list[FieldError]:
    where = f"{path}.audiences"
    if not issuer.audiences:
        return [field_errors.required(where, f"at least one {where} is required")]
    errors = []
    seen: set[str] = set()
    for index, audience in enumerate(issuer.audiences):
        if not audience:
            errors.append(field_errors.required(f"{where}[{index}]"))
        if audience in seen:
            errors.append(field_errors.duplicate(f"{where}[{index}]", audience))
        seen.add(audience)
    policy = issuer.audience_match_policy
    if len(issuer.audiences) > 1 and policy != MATCH_ANY:
        errors.append(
            field_errors.invalid(
                f"{path}.audienceMatchPolicy", policy, "audienceMatchPolicy must be MatchAny for multiple audiences"
            )
        )
    if len(issuer.audiences) == 1 and policy and policy != MATCH_ANY:
        errors.append(
            field_errors.invalid(
                f"{path}.audienceMatchPolicy",
                policy,
                "audienceMatchPolicy must be empty or MatchAny for single audience",
            )
        )
    return errors


def _validate_prefixed(mapping: ClaimOrExpression, path: str, *, required: bool) -> list[FieldError]:
    if mapping.claim and mapping.expression:
        return [field_errors.invalid(path, "", "claim and expression can't both be set")]
    if not mapping.claim and not mapping.expression:
        return [field_errors.required(path, "claim or expression is required")] if required else []
    if mapping.expression:
        errors = []
        if mapping.prefix is not None:
            errors.append(
                field_errors.invalid(f"{path}.prefix", mapping.prefix, "may not be specified when expression is set")
            )
        return errors + _compile(CLAIMS_ENV, mapping.expression, f"{path}.expression")
    if mapping.prefix is None:
        return [
            field_errors.required(
                f"{path}.prefix",
                "prefix is required when claim is set. It can be set to an empty string to disable prefixing",
            )
        ]
    return []


_RESERVED_DOMAINS = re.compile(r"^(.*\.)?(kubernetes\.io|k8s\.io)$")


def _validate_extra(extra: tuple[ExtraMapping, ...], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, mapping in enumerate(extra):
        where = f"{path}[{index}]"
        errors += _domain_prefixed_path(mapping.key, f"{where}.key")
        if mapping.key != mapping.key.lower():
            errors.append(field_errors.invalid(f"{where}.key", mapping.key, "must be lowercase"))
        if _RESERVED_DOMAINS.match(mapping.key.partition("/")[0] if "/" in mapping.key else ""):
            errors.append(
                field_errors.invalid(
                    f"{where}.key",
                    mapping.key,
                    "k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use",
                )
            )
        if mapping.key in seen:
            errors.append(field_errors.duplicate(f"{where}.key", mapping.key))
            continue
        seen.add(mapping.key)
        if not mapping.value_expression:
            errors.append(field_errors.required(f"{where}.valueExpression"))
            continue
        errors += _compile(CLAIMS_ENV, mapping.value_expression, f"{where}.valueExpression")
    return errors


def _domain_prefixed_path(key: str, path: str) -> list[FieldError]:
    if not key:
        return [field_errors.required(path)]
    domain, sep, rest = key.partition("/")
    if not sep or not rest:
        return [field_errors.invalid(path, key, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    return [field_errors.invalid(path, domain, message) for message in is_dns1123_subdomain(domain)]


def _compile(env: Environment, expression: str, path: str) -> list[FieldError]:
    try:
        env.compile(expression)
    except CelError as error:
        return [field_errors.invalid(path, expression, f"compilation failed: {error}")]
    return []


def _selects(expression: str, operand: str, name: str) -> bool:
    """Whether the expression selects `operand.name` (upstream checks the AST, not the text)."""
    if not expression:
        return False
    try:
        root = parse_with_positions(expression).root
    except CelError:
        return False
    return _has_select(root, operand, name)


def _has_select(node: Any, operand: str, name: str) -> bool:
    if isinstance(node, tuple) and len(node) >= 3 and node[:3] == ("select", ("ident", operand), name):
        return True
    if isinstance(node, tuple | list):
        return any(_has_select(child, operand, name) for child in node)
    return False
