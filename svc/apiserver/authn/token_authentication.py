"""Bearer-token authentication assembled from options: one place that knows every token source.

`build_token_authentication` returns what the rest of the server needs of tokens: the union that
authenticates requests (and TokenReviews), the signer TokenRequest uses, the API's audiences and the
key set issuer discovery publishes. The sources come in upstream's order: the loopback token, the
static token file, legacy service-account tokens, bound service-account tokens, bootstrap tokens, then
the external ones (OIDC/JWT issuers, webhook) the caller passes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from svc.api.brand import Profile
from svc.apiserver.authn.bootstrap_tokens import BootstrapTokens
from svc.apiserver.authn.legacy_tokens import LegacyTokens
from svc.apiserver.authn.object_lookup import ObjectLookup
from svc.apiserver.authn.options import AuthenticationOptions
from svc.apiserver.authn.service_account_jwt import Signer, Verifier
from svc.apiserver.authn.service_account_keys import PublicKey, ensure_signing_key, load_private_key
from svc.apiserver.authn.service_account_tokens import EXTENDED_EXPIRATION, ServiceAccountTokens
from svc.apiserver.authn.tokens import AudienceAgnostic, TokenAuthenticator, TokenUnion, UserTokens
from svc.registry.admission import UserInfo
from svc.registry.store import GenericStore

if TYPE_CHECKING:
    from svc.apiserver.authn.external_signer import ExternalSigner


@dataclass
class TokenAuthentication:
    union: TokenUnion
    issuers: list[str]
    api_audiences: tuple[str, ...]
    signer: Signer | ExternalSigner | None
    keys: list[PublicKey]  # published at /openid/v1/jwks
    options: AuthenticationOptions
    verifier: Verifier
    max_extended_expiration: float = EXTENDED_EXPIRATION
    closers: list[Any] = field(default_factory=list)

    async def start(self) -> None:
        """Connect the external signer, when one is configured; raises ValueError (one line) when it
        cannot serve, as upstream refuses to start."""
        endpoint = self.options.service_account_signing_endpoint
        if not endpoint:
            return
        # imported here: the signer's client loads gRPC and Protobuf, a tenth of a second at every start
        from svc.apiserver.authn.external_signer import ExternalSigner

        signer = ExternalSigner(self.issuers[0], endpoint, self._external_keys)
        await signer.start()
        self.closers.append(signer)
        options = self.options
        options.service_account_max_token_expiration, self.max_extended_expiration = signer.check_expirations(
            options.service_account_max_token_expiration
        )
        self.verifier.refresh = signer.refresh_for_unknown_key
        self.signer = signer

    def _external_keys(self, every: list[PublicKey], published: list[PublicKey]) -> None:
        self.verifier.replace(every)
        self.keys = published

    async def close(self) -> None:
        for closer in self.closers:
            await closer.close()


def default_issuer(profile: Profile) -> str:
    """The quick start's issuer: the in-cluster URL of the API, as kubeadm configures it."""
    return f"https://{profile.default_service}.default.svc.cluster.local"


def build_token_authentication(
    options: AuthenticationOptions,
    *,
    profile: Profile,
    pki_dir: Path,
    store_for: Callable[[str, str], GenericStore],
    writer: UserInfo,
    sources: list[UserTokens],
    external: Sequence[TokenAuthenticator] = (),
) -> TokenAuthentication:
    """Blocking (the quick start may write a key): run it off the event loop. `sources` are the
    audience-agnostic token sources that come first (loopback, token file); `external` the token
    authenticators that come last (OIDC/JWT issuers, then the webhook, in upstream's order)."""
    issuers = options.service_account_issuers or [default_issuer(profile)]
    audiences = tuple(options.api_audiences or issuers)
    signing_key = options.signing_key
    keys = list(options.verification_keys)
    if signing_key is None and not options.service_account_key_files and not options.service_account_signing_endpoint:
        signing_key = load_private_key(str(ensure_signing_key(pki_dir)))
        keys.append(signing_key.public)
    verifier = Verifier(keys)
    objects = ObjectLookup(store_for)
    legacy = LegacyTokens(
        profile=profile,
        verifier=verifier,
        implicit_audiences=audiences,
        lookup=options.service_account_lookup,
        objects=objects,
        store_for=store_for,
        writer=writer,
    )
    authenticators: list[TokenAuthenticator] = [AudienceAgnostic(source, audiences) for source in sources]
    authenticators.append(legacy)
    authenticators.append(
        ServiceAccountTokens(
            profile=profile, issuers=issuers, verifier=verifier, implicit_audiences=audiences, lookup=objects
        )
    )
    if options.enable_bootstrap_token_auth:
        authenticators.append(AudienceAgnostic(BootstrapTokens(profile, objects), audiences))
    authenticators.extend(external)
    return TokenAuthentication(
        union=TokenUnion(authenticators, audiences),
        issuers=issuers,
        api_audiences=audiences,
        signer=Signer(issuers[0], signing_key) if signing_key is not None else None,
        keys=verifier.keys,
        options=options,
        verifier=verifier,
        closers=[legacy],
    )
