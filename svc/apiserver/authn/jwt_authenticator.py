"""One JWT issuer of the authentication configuration: verify a token, then map its claims to a user.

Verification follows upstream's (go-oidc): the signature with one of the provider's keys and an
allowed algorithm, `iss`, an `aud` matching one of the configured audiences, `exp` (required, no
leeway) and `nbf` (five minutes of clock skew allowed). Then the claim validation rules, the claim
mappings (claim + prefix, or CEL over `claims`) and the user validation rules (CEL over `user`).
A claim used as the username named `email` needs `email_verified` to be true when present, as upstream.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import jwt

from svc.apiserver.authn.authenticator import AuthenticationError
from svc.apiserver.authn.jwks import KeySetError, ProviderKeys
from svc.apiserver.authn.jwt_config import CLAIMS_ENV, USER_ENV, ClaimOrExpression, JWTAuthenticatorConfig
from svc.machinery import wallclock
from svc.machinery.cel import CelError, Program
from svc.registry.admission import UserInfo

ASYMMETRIC_ALGORITHMS = ("RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512")
NOT_BEFORE_SKEW = 300.0
CEL_COST_LIMIT = 1_000_000


class JWTAuthenticator:
    def __init__(
        self,
        config: JWTAuthenticatorConfig,
        keys: ProviderKeys,
        *,
        algorithms: tuple[str, ...] | None = None,
        clock: Callable[[], float] = wallclock.now,
    ) -> None:
        self.config = config
        self.keys = keys
        self._algorithms = frozenset(algorithms or ASYMMETRIC_ALGORITHMS)
        self._clock = clock
        self._audiences = frozenset(config.issuer.audiences)
        mappings = config.claim_mappings
        self._username = _program(mappings.username)
        self._groups = _program(mappings.groups)
        self._uid = _program(mappings.uid)
        self._extra = [(m.key, CLAIMS_ENV.compile(m.value_expression)) for m in mappings.extra]
        self._claim_rules = [
            (rule, CLAIMS_ENV.compile(rule.expression) if rule.expression else None)
            for rule in config.claim_validation_rules
        ]
        self._user_rules = [(rule, USER_ENV.compile(rule.expression)) for rule in config.user_validation_rules]

    async def authenticate_token(self, token: str, header: Mapping[str, Any]) -> UserInfo:
        claims = await self._verify(token, header)
        for rule, program in self._claim_rules:
            _check_claim_rule(rule.claim, rule.required_value, rule.message, program, claims)
        user = self._map(claims)
        activation = {"user": _user_value(user)}
        for user_rule, user_program in self._user_rules:
            if _evaluate(user_program, activation) is not True:
                raise AuthenticationError(f"oidc: error evaluating user info validation rule: {user_rule.message}")
        return user

    async def _verify(self, token: str, header: Mapping[str, Any]) -> dict[str, Any]:
        algorithm = header.get("alg")
        if not isinstance(algorithm, str) or algorithm not in self._algorithms:
            raise AuthenticationError(
                f"oidc: verify token: oidc: id token signed with unsupported algorithm {algorithm}"
            )
        kid = header.get("kid")
        try:
            keys = await self.keys.key_for(kid if isinstance(kid, str) else None)
        except KeySetError as error:
            raise AuthenticationError(str(error)) from None
        if not keys:
            raise AuthenticationError("oidc: verify token: failed to verify signature: no key matches the key id")
        claims: dict[str, Any] | None = None
        for key in keys:
            try:
                claims = jwt.decode(
                    token,
                    key.key,
                    algorithms=[algorithm],
                    options={"verify_aud": False, "verify_iss": False, "verify_nbf": False, "verify_exp": False},
                )
                break
            except (jwt.PyJWTError, ValueError, TypeError):
                continue
        if claims is None:
            raise AuthenticationError("oidc: verify token: failed to verify signature")
        self._check_registered(claims)
        return claims

    def _check_registered(self, claims: dict[str, Any]) -> None:
        if claims.get("iss") != self.config.issuer.url:
            raise AuthenticationError("oidc: verify token: oidc: id token issued by a different provider")
        audience = claims.get("aud")
        audiences = [audience] if isinstance(audience, str) else audience if isinstance(audience, list) else []
        if not self._audiences.intersection(a for a in audiences if isinstance(a, str)):
            raise AuthenticationError(f"oidc: verify token: oidc: expected audience in {sorted(self._audiences)}")
        now = self._clock()
        expiry = claims.get("exp")
        if not _is_number(expiry) or now > expiry:
            raise AuthenticationError("oidc: verify token: oidc: token is expired")
        not_before = claims.get("nbf")
        if _is_number(not_before) and now + NOT_BEFORE_SKEW < not_before:
            raise AuthenticationError("oidc: verify token: oidc: current time before the nbf (not before) time")

    def _map(self, claims: dict[str, Any]) -> UserInfo:
        mappings = self.config.claim_mappings
        activation = {"claims": claims}
        if self._username is not None:
            username = _evaluate(self._username, activation)
            if not isinstance(username, str):
                raise AuthenticationError("oidc: error evaluating username claim expression: result is not a string")
            if not username:
                raise AuthenticationError("oidc: empty username via CEL expression is not allowed")
        else:
            username = _string_claim(claims, mappings.username.claim)
            if mappings.username.claim == "email":
                _check_email_verified(claims)
            username = (mappings.username.prefix or "") + username
        groups: tuple[str, ...] = ()
        if self._groups is not None:
            groups = _strings(_evaluate(self._groups, activation), "groups")
        elif mappings.groups.claim and mappings.groups.claim in claims:
            prefix = mappings.groups.prefix or ""
            groups = tuple(prefix + g for g in _strings(claims[mappings.groups.claim], "groups"))
        uid = ""
        if self._uid is not None:
            uid = _evaluate(self._uid, activation)
            if not isinstance(uid, str):
                raise AuthenticationError("oidc: error evaluating uid claim expression: result is not a string")
        elif mappings.uid.claim:
            uid = _string_claim(claims, mappings.uid.claim)
        extra: dict[str, tuple[str, ...]] = {}
        for key, program in self._extra:
            values = tuple(v for v in _strings(_evaluate(program, activation), f"extra[{key}]") if v)
            if values:
                extra[key] = values
        return UserInfo(username, uid, groups, extra)


def _program(mapping: ClaimOrExpression) -> Program | None:
    return CLAIMS_ENV.compile(mapping.expression) if mapping.expression else None


def _evaluate(program: Program, activation: Mapping[str, Any]) -> Any:
    try:
        return program.evaluate(activation, cost_limit=CEL_COST_LIMIT)
    except CelError as error:
        raise AuthenticationError(f"oidc: error evaluating expression {program.expression!r}: {error}") from None


def _check_claim_rule(claim: str, required: str, message: str, program: Program | None, claims: dict[str, Any]) -> None:
    if program is None:
        value = claims.get(claim)
        if value is None:
            raise AuthenticationError(f"oidc: required claim {claim} not present in ID token")
        if value != required:
            raise AuthenticationError(
                f"oidc: required claim {claim} value does not match. Got = {value}, want = {required}"
            )
        return
    if _evaluate(program, {"claims": claims}) is not True:
        raise AuthenticationError(f"oidc: error evaluating claim validation expression: {message}")


def _string_claim(claims: dict[str, Any], name: str) -> str:
    if name not in claims:
        raise AuthenticationError(f"oidc: parse username claims {name!r}: claim not present")
    value = claims[name]
    if not isinstance(value, str):
        raise AuthenticationError(f"oidc: parse claim {name}: not a string")
    return value


def _check_email_verified(claims: dict[str, Any]) -> None:
    if "email_verified" not in claims:
        return
    if claims["email_verified"] is not True:
        raise AuthenticationError("oidc: email not verified")


def _strings(value: Any, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise AuthenticationError(f"oidc: {what}: expected a string or an array of strings")


def _user_value(user: UserInfo) -> dict[str, Any]:
    return {
        "username": user.name,
        "uid": user.uid,
        "groups": list(user.groups),
        "extra": {key: list(values) for key, values in user.extra.items()},
    }


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
