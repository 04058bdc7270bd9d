"""Flags of service-account tokens and bootstrap tokens (spec 2, 5.3), parsed into `AuthenticationOptions`.

Key files are read while the flags are parsed, so a missing file or a key that is not PEM RSA/ECDSA
stops the process with one line (exit 2) instead of failing the first request. Without any key flag
the server signs with a key it generates in its PKI directory (the quick start).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from svc.apiserver.authn.service_account_keys import (
    KeyFileError,
    PrivateKey,
    PublicKey,
    load_private_key,
    load_public_keys,
)
from svc.machinery.flag_types import flag_bool, flag_duration

MIN_MAX_EXPIRATION = 3600.0
MAX_MAX_EXPIRATION = float(1 << 32)


@dataclass
class AuthenticationOptions:
    service_account_issuers: list[str] = field(default_factory=list)  # empty: the profile's default
    service_account_signing_key_file: str = ""
    service_account_key_files: list[str] = field(default_factory=list)
    api_audiences: list[str] = field(default_factory=list)  # empty: the issuers
    service_account_max_token_expiration: float = 0.0  # seconds; 0: no maximum
    service_account_extend_token_expiration: bool = True
    service_account_lookup: bool = True
    service_account_jwks_uri: str = ""
    service_account_signing_endpoint: str = ""
    enable_bootstrap_token_auth: bool = False
    signing_key: PrivateKey | None = None
    verification_keys: list[PublicKey] = field(default_factory=list)

    @property
    def issues_tokens(self) -> bool:
        """Whether TokenRequest is served: with a signing key or an external signer, or in the quick
        start (no key flags)."""
        return (
            bool(self.service_account_signing_key_file)
            or bool(self.service_account_signing_endpoint)
            or not self.service_account_key_files
        )


def _list(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add(
        "--service-account-issuer",
        action="append",
        help="issuer of service-account tokens (iss claim); repeatable: the first signs, all are accepted",
    )
    add("--service-account-signing-key-file", help="PEM private key (RSA or ECDSA) that signs service-account tokens")
    add(
        "--service-account-key-file",
        action="append",
        help="PEM file of keys (RSA or ECDSA, public or private) that verify service-account tokens; repeatable",
    )
    add("--api-audiences", type=_list, action="append", help="audiences of the API (default: the issuers)")
    add("--service-account-max-token-expiration", type=flag_duration, help="maximum validity of a requested token")
    add(
        "--service-account-extend-token-expiration",
        type=flag_bool,
        nargs="?",
        const=True,
        help="extend admission-injected token lifetimes up to a year (default true)",
    )
    add(
        "--service-account-lookup",
        type=flag_bool,
        nargs="?",
        const=True,
        help="check that the objects a token names still exist (default true)",
    )
    add("--service-account-jwks-uri", help="key-set URL to publish in the discovery document")
    add(
        "--service-account-signing-endpoint",
        help="unix socket of an external JWT signer (ExternalJWTSigner v1); exclusive with the key file flags",
    )
    add(
        "--enable-bootstrap-token-auth",
        type=flag_bool,
        nargs="?",
        const=True,
        help="accept bootstrap tokens from Secrets in the system namespace (default false)",
    )


def _check_issuer(issuer: str) -> None:
    if ":" in issuer:
        parts = urlsplit(issuer)
        if not parts.scheme or (parts.scheme in ("http", "https") and not parts.netloc):
            raise ValueError(f"service-account-issuer \"{issuer}\" contained a ':' but was not a valid URL")


def from_args(args: Any, *, tls_private_key_file: str = "") -> AuthenticationOptions:
    """The options of parsed flags; raises ValueError (one line) on bad values or unreadable keys."""
    options = AuthenticationOptions()
    issuers: list[str] = args.service_account_issuer or []
    for index, issuer in enumerate(issuers):
        if not issuer:
            raise ValueError("service-account-issuer should not be an empty string")
        if issuer in issuers[:index]:
            raise ValueError(f'service-account-issuer "{issuer}" is already specified')
        _check_issuer(issuer)
    options.service_account_issuers = issuers
    options.api_audiences = [item for group in args.api_audiences or () for item in group]
    if args.service_account_max_token_expiration is not None:
        maximum = args.service_account_max_token_expiration
        if not MIN_MAX_EXPIRATION <= maximum <= MAX_MAX_EXPIRATION:
            raise ValueError("the service-account-max-token-expiration must be between 1 hour and 2^32 seconds")
        options.service_account_max_token_expiration = maximum
    for name in ("service_account_extend_token_expiration", "service_account_lookup", "enable_bootstrap_token_auth"):
        value = getattr(args, name)
        if value is not None:
            setattr(options, name, value)
    if args.service_account_jwks_uri:
        parts = urlsplit(args.service_account_jwks_uri)
        if parts.scheme != "https" or not parts.netloc:
            raise ValueError("service-account-jwks-uri requires https scheme")
        options.service_account_jwks_uri = args.service_account_jwks_uri
    options.service_account_signing_key_file = args.service_account_signing_key_file or ""
    options.service_account_key_files = args.service_account_key_file or []
    options.service_account_signing_endpoint = args.service_account_signing_endpoint or ""
    if options.service_account_signing_endpoint and (
        options.service_account_signing_key_file or options.service_account_key_files
    ):
        raise ValueError(
            "can't set `--service-account-signing-key-file` and/or `--service-account-key-file` with "
            "`--service-account-signing-endpoint` (They are mutually exclusive)"
        )
    if options.service_account_signing_key_file and not options.service_account_key_files:
        raise ValueError("service-account-key-file is a required flag when service-account-signing-key-file is given")
    try:
        if options.service_account_signing_key_file:
            options.signing_key = load_private_key(options.service_account_signing_key_file)
        key_files = options.service_account_key_files or (
            [tls_private_key_file] if tls_private_key_file and not options.service_account_signing_endpoint else []
        )
        options.verification_keys = [key for path in key_files for key in load_public_keys(path)]
    except KeyFileError as error:
        raise ValueError(str(error)) from None
    return options
