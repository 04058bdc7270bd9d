"""The JWT issuers of `--authentication-config` (or of the `--oidc-*` flags) as one authenticator.

A bearer token is routed by its unverified `iss` claim to the issuer configured with that URL; a
token no issuer claims is left to the other authenticators (and fails the request if none takes it).
The configuration file is watched: a changed file that decodes and validates replaces the issuers
(keeping the fetched keys of issuers whose URL, discovery URL and CA did not change); a bad one is
logged and the previous issuers keep serving, as upstream. The `anonymous` section may not change.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from pathlib import Path

import jwt
from aiohttp import web

from svc.apiserver.authn import jwt_config
from svc.apiserver.authn.authenticator import AuthenticationError
from svc.apiserver.authn.jwks import ProviderKeys
from svc.apiserver.authn.jwt_authenticator import JWTAuthenticator
from svc.apiserver.authn.jwt_config import AuthenticationConfiguration
from svc.apiserver.authn.metrics import JWTMetrics
from svc.apiserver.authn.token_file import bearer_token
from svc.machinery import field_errors
from svc.registry.admission import UserInfo

log = logging.getLogger(__name__)

RELOAD_INTERVAL = 1.0
"""Seconds between checks of the configuration file (upstream is notified by the file system)."""


class StructuredJWT:
    def __init__(
        self,
        config: AuthenticationConfiguration,
        *,
        disallowed_issuers: tuple[str, ...] = (),
        metrics: JWTMetrics | None = None,
    ) -> None:
        self.config = config
        self._disallowed_issuers = disallowed_issuers
        self._metrics = metrics
        self._issuers: dict[str, JWTAuthenticator] = {}
        self._install(config)

    def _install(self, config: AuthenticationConfiguration) -> set[ProviderKeys]:
        """Switch to the issuers of `config`; returns the key sets no issuer uses any more."""
        previous = {a.keys.issuer_url: a.keys for a in self._issuers.values()}
        issuers = {}
        retired = set(previous.values())
        for entry in config.jwt:
            issuer = entry.issuer
            keys = previous.get(issuer.url)
            if keys is None or (keys.discovery_url, keys.ca_pem) != (_discovery(issuer), issuer.certificate_authority):
                keys = ProviderKeys(issuer.url, discovery_url=issuer.discovery_url, ca_pem=issuer.certificate_authority)
            retired.discard(keys)
            issuers[issuer.url] = JWTAuthenticator(entry, keys, algorithms=config.signing_algorithms)
        self.config, self._issuers = config, issuers
        return retired

    async def authenticate(self, request: web.BaseRequest) -> UserInfo | None:
        token = bearer_token(request)
        return None if token is None else await self.user_for_token(token)

    async def user_for_token(self, token: str) -> UserInfo | None:
        """The user of a JWT from one of the configured issuers (TokenReview asks this too)."""
        if not self._issuers:
            return None
        try:
            unverified = jwt.decode_complete(token, options={"verify_signature": False})
        except jwt.PyJWTError:
            raise AuthenticationError("invalid bearer token") from None
        header, issuer = unverified["header"], unverified["payload"].get("iss")
        authenticator = self._issuers.get(issuer) if isinstance(issuer, str) else None
        if authenticator is None:
            raise AuthenticationError("invalid bearer token")
        if self._metrics is None:
            return await authenticator.authenticate_token(token, header)
        started, succeeded = time.perf_counter(), False
        try:
            user = await authenticator.authenticate_token(token, header)
            succeeded = True
            return user
        finally:
            self._metrics.observer(authenticator.config.issuer.url)(succeeded, time.perf_counter() - started)

    def reload(self, data: bytes) -> set[ProviderKeys]:
        """Replace the issuers with those of a new file's bytes; raises ValueError when it is bad."""
        try:
            config = jwt_config.decode(data)
        except jwt_config.ConfigError as error:
            raise ValueError(f"failed to load authentication config: {error}") from None
        errors = jwt_config.validate(config, self._disallowed_issuers)
        if config.anonymous != self.config.anonymous:
            errors.append(field_errors.forbidden("anonymous", "changed from initial configuration file"))
        if errors:
            raise ValueError(f"failed to validate authentication config: {field_errors.aggregate_message(errors)}")
        return self._install(config)

    async def watch(self, path: str, data: bytes) -> None:
        """Reload the file whenever its bytes change; a bad version is reported once, not retried."""
        tracked = data
        while True:
            await asyncio.sleep(RELOAD_INTERVAL)
            try:
                current = await asyncio.to_thread(Path(path).read_bytes)
            except OSError as error:
                log.error("failed to read authentication config file: %s", error)
                if self._metrics is not None:
                    self._metrics.reloads.record("failure")
                continue
            if current == tracked:
                continue
            tracked = current
            try:
                retired = self.reload(current)
            except ValueError as error:
                log.error("%s", error)
                if self._metrics is not None:
                    self._metrics.reloads.record("failure")
                continue
            log.info("reloaded authentication config")
            if self._metrics is not None:
                self._metrics.reloads.record("success")
            for keys in retired:
                await keys.close()
            await self.prefetch()

    async def prefetch(self) -> None:
        await asyncio.gather(*(authenticator.keys.prefetch() for authenticator in self._issuers.values()))

    async def close(self) -> None:
        for authenticator in self._issuers.values():
            with contextlib.suppress(Exception):
                await authenticator.keys.close()


def _discovery(issuer: jwt_config.Issuer) -> str:
    return issuer.discovery_url or issuer.url.rstrip("/") + "/.well-known/openid-configuration"
