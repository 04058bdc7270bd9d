"""Service-account issuer discovery: `/.well-known/openid-configuration` and `/openid/v1/jwks`.

An external verifier (a cloud's identity federation, Vault, ...) reads the OpenID provider metadata
of the first issuer and the key set, then checks our tokens without calling us. As upstream, both are
served only when that issuer is an https URL; the key-set address defaults to this server's external
address and can be overridden by `--service-account-jwks-uri`. Who may read them is RBAC's call (the
bootstrap `system:service-account-issuer-discovery` role, bound to all service accounts).
"""

from __future__ import annotations

from urllib.parse import urlsplit

import orjson

from svc.apiserver.authn.service_account_keys import PublicKey

DISCOVERY_PATH = "/.well-known/openid-configuration"
JWKS_PATH = "/openid/v1/jwks"
DISCOVERY_CONTENT_TYPE = "application/json"
JWKS_CONTENT_TYPE = "application/jwk-set+json"
CACHE_CONTROL = "public, max-age=3600"


def serves_discovery(issuer: str) -> bool:
    parts = urlsplit(issuer)
    return parts.scheme == "https" and bool(parts.netloc) and not parts.query and not parts.fragment


def discovery_document(issuer: str, jwks_uri: str, external_address: str, keys: list[PublicKey]) -> bytes:
    document = {
        "issuer": issuer,
        "jwks_uri": jwks_uri or f"https://{external_address}{JWKS_PATH}",
        "response_types_supported": ["id_token"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": sorted({key.alg for key in keys}),
    }
    return orjson.dumps(document)


def key_set(keys: list[PublicKey]) -> bytes:
    return orjson.dumps({"keys": [key.jwk() for key in keys]})
