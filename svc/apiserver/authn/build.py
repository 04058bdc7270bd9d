"""The server's authenticator union, in upstream's order, built from the options in one place.

Order (upstream `pkg/kubeapiserver/authenticator/config.go`): front proxy first, then client
certificates, then one union of bearer-token authenticators — those of `token_authentication`
(loopback, static token file, legacy and bound service-account tokens, bootstrap tokens), then OIDC /
structured JWT and the token webhook, each taking the API's audiences as upstream wraps them — which
TokenReview asks as well; anonymous last, when nothing named the user and no credential was rejected.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import web
from cryptography import x509

from svc.apiserver.authn.authenticator import Union
from svc.apiserver.authn.loopback import LoopbackToken
from svc.apiserver.authn.request_header import RequestHeaderAuthenticator, RequestHeaderConfig
from svc.apiserver.authn.structured import StructuredJWT
from svc.apiserver.authn.token_authentication import TokenAuthentication, build_token_authentication
from svc.apiserver.authn.token_file import TokenFile
from svc.apiserver.authn.tokens import AudienceAgnostic, CachedSuccesses
from svc.apiserver.authn.webhook_token import WebhookTokenAuthenticator, load_webhook_config
from svc.apiserver.authn.x509 import ClientCertificates
from svc.registry.admission import UserInfo
from svc.registry.store import GenericStore

if TYPE_CHECKING:
    from svc.api.brand import Profile
    from svc.apiserver.options import Options


@dataclass
class Authentication:
    """The union plus what it owns: background reloads to run and clients to close at stop."""

    union: Union
    request_header: RequestHeaderConfig | None = None
    jwt: StructuredJWT | None = None
    config_file: str = ""
    config_data: bytes = b""
    _closers: list[Any] = field(default_factory=list)
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def strip(self, request: web.BaseRequest) -> web.BaseRequest:
        """The request without front-proxy headers, whoever sent them (handlers never see them)."""
        return self.request_header.strip(request) if self.request_header is not None else request

    def start(self) -> None:
        if self.jwt is not None:
            self._tasks.append(asyncio.create_task(self.jwt.prefetch(), name="authn-jwks-prefetch"))
        if self.jwt is not None and self.config_file:
            self._tasks.append(
                asyncio.create_task(self.jwt.watch(self.config_file, self.config_data), name="authn-config-reload")
            )

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for closer in self._closers:
            await closer.close()


def build_tokens(
    options: Options,
    *,
    loopback: LoopbackToken | None,
    profile: Profile,
    store_for: Callable[[str, str], GenericStore],
    writer: UserInfo,
) -> TokenAuthentication:
    """The bearer-token sources of the union (loopback, token file, service-account and bootstrap
    tokens). Blocking, since the quick start may write a signing key: run it off the event loop."""
    sources: list[Any] = [loopback] if loopback is not None else []
    if options.token_auth_file:
        sources.append(TokenFile(options.token_auth_file))
    return build_token_authentication(
        options.authentication,
        profile=profile,
        pki_dir=options.pki_dir,
        store_for=store_for,
        writer=writer,
        sources=sources,
    )


def build_authenticator(
    options: Options,
    *,
    client_cas: list[x509.Certificate],
    tokens: TokenAuthentication,
    profile: Profile,
) -> Authentication:
    external = options.external_authn
    authenticators: list[Any] = []
    request_header = None
    if external.requestheader_client_ca_file:
        request_header = external.request_header
        authenticators.append(RequestHeaderAuthenticator(request_header, external.request_header_cas()))
    parse_uid = options.feature_gates.enabled("AllowParsingUserUIDFromCertAuth")
    authenticators.append(ClientCertificates(client_cas, parse_uid=parse_uid))
    authenticators.append(tokens.union)
    closers: list[Any] = [tokens]
    structured = None
    if external.jwt is not None and (external.jwt.jwt or external.authentication_config_file):
        structured = StructuredJWT(external.jwt, disallowed_issuers=external.disallowed_issuers)
        tokens.union.authenticators.append(CachedSuccesses(AudienceAgnostic(structured, tokens.api_audiences)))
        closers.append(structured)
    if external.webhook_config_file:
        webhook = WebhookTokenAuthenticator(
            load_webhook_config(external.webhook_config_file),
            group=profile.group("authentication.k8s.io"),
            version=external.webhook_version,
            cache_ttl=external.webhook_cache_ttl,
            implicit_audiences=tokens.api_audiences,
        )
        tokens.union.authenticators.append(webhook)
        closers.append(webhook)
    anonymous = external.anonymous
    if anonymous is not None:
        union = Union(authenticators, anonymous=anonymous.enabled, anonymous_paths=anonymous.paths or None)
    else:
        union = Union(authenticators, anonymous=options.anonymous_auth)
    return Authentication(
        union,
        request_header=request_header,
        jwt=structured,
        config_file=external.authentication_config_file,
        config_data=external.jwt_data,
        _closers=closers,
    )
