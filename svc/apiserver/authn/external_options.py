"""Flags of the authenticators that trust something outside the server: OIDC / structured JWT
(`--oidc-*`, `--authentication-config`), the token webhook and the front proxy (`--requestheader-*`).

`from_args` checks everything a running server would trip over later (files readable, the
configuration valid, flags that exclude each other), so a bad setting stops start-up with one line.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

from cryptography import x509

from svc.apiserver.authn import jwt_config
from svc.apiserver.authn.jwt_authenticator import ASYMMETRIC_ALGORITHMS
from svc.apiserver.authn.jwt_config import AuthenticationConfiguration
from svc.apiserver.authn.request_header import RequestHeaderConfig
from svc.apiserver.authn.webhook_token import VERSIONS, load_webhook_config
from svc.apiserver.authn.x509 import load_client_cas
from svc.machinery import field_errors
from svc.machinery.duration import parse_duration

OIDC_FLAGS = (
    "oidc_issuer_url",
    "oidc_client_id",
    "oidc_ca_file",
    "oidc_username_claim",
    "oidc_username_prefix",
    "oidc_groups_claim",
    "oidc_groups_prefix",
    "oidc_signing_algs",
    "oidc_required_claim",
)
DEFAULT_WEBHOOK_VERSION = "v1beta1"
DEFAULT_WEBHOOK_CACHE_TTL = 120.0


@dataclass
class ExternalAuthnOptions:
    authentication_config_file: str = ""
    jwt: AuthenticationConfiguration | None = None
    """The JWT issuers and anonymous settings, from the file or the `--oidc-*` flags."""
    jwt_data: bytes = b""
    """The file's bytes as loaded, so the watcher reloads only on a real change."""
    webhook_config_file: str = ""
    webhook_version: str = DEFAULT_WEBHOOK_VERSION
    webhook_cache_ttl: float = DEFAULT_WEBHOOK_CACHE_TTL
    requestheader_client_ca_file: str = ""
    request_header: RequestHeaderConfig = field(default_factory=RequestHeaderConfig)
    disallowed_issuers: tuple[str, ...] = ()
    """The service-account issuers: a JWT issuer may not claim them (upstream validates it)."""

    @property
    def anonymous(self) -> jwt_config.AnonymousConfig | None:
        return self.jwt.anonymous if self.jwt is not None else None

    def request_header_cas(self) -> list[x509.Certificate]:
        return load_client_cas(self.requestheader_client_ca_file) if self.requestheader_client_ca_file else []


def _list(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add("--authentication-config", help="file with an AuthenticationConfiguration (JWT issuers, anonymous)")
    add("--oidc-issuer-url", help="the URL of the OpenID issuer (https only)")
    add("--oidc-client-id", help="the client ID tokens must be issued to (their audience)")
    add("--oidc-ca-file", help="CA bundle that verifies the OpenID server's certificate")
    add("--oidc-username-claim", help="the claim used as the user name (default sub)")
    add("--oidc-username-prefix", help="user name prefix; default issuer URL + '#' unless the claim is email; '-' none")
    add("--oidc-groups-claim", help="the claim listing the user's groups (string or array of strings)")
    add("--oidc-groups-prefix", help="prefix of group names")
    add("--oidc-signing-algs", type=_list, help="comma-separated accepted signing algorithms (default RS256)")
    add("--oidc-required-claim", action="append", help="key=value a token must carry; repeatable")
    add("--authentication-token-webhook-config-file", help="kubeconfig naming the token review service")
    add("--authentication-token-webhook-version", help="TokenReview version sent to the webhook: v1 or v1beta1")
    add("--authentication-token-webhook-cache-ttl", help="how long webhook answers are cached (default 2m)")
    add("--requestheader-client-ca-file", help="CA of the front proxy's client certificates")
    add("--requestheader-allowed-names", type=_list, help="common names a front proxy may have (empty: any)")
    add("--requestheader-username-headers", type=_list, help="headers naming the user, first non-empty wins")
    add("--requestheader-uid-headers", type=_list, help="headers carrying the user's uid")
    add("--requestheader-group-headers", type=_list, help="headers listing the user's groups")
    add("--requestheader-extra-headers-prefix", type=_list, help="header prefixes carrying extra user attributes")


def from_args(args: argparse.Namespace) -> ExternalAuthnOptions:
    """The options; raises ValueError with upstream's text on a bad or contradictory setting, on one
    line (a CEL compilation error's source excerpt is joined onto it)."""
    try:
        return _from_args(args)
    except ValueError as error:
        raise ValueError(" ".join(line.strip() for line in str(error).splitlines())) from None


def _from_args(args: argparse.Namespace) -> ExternalAuthnOptions:
    options = ExternalAuthnOptions(disallowed_issuers=tuple(getattr(args, "service_account_issuer", None) or ()))
    oidc_set = any(getattr(args, name) is not None for name in OIDC_FLAGS)
    if args.authentication_config:
        if oidc_set:
            raise ValueError("authentication-config file and oidc-* flags are mutually exclusive")
        options.authentication_config_file = args.authentication_config
        options.jwt, options.jwt_data = jwt_config.load(args.authentication_config, options.disallowed_issuers)
        if options.jwt.anonymous is not None and getattr(args, "anonymous_auth", None) is not None:
            raise ValueError(
                str(
                    field_errors.forbidden(
                        "anonymous",
                        "--anonymous-auth flag cannot be set when anonymous field is configured in authentication "
                        "configuration file",
                    )
                )
            )
    elif oidc_set:
        options.jwt = _oidc(args, options.disallowed_issuers)
    if args.authentication_token_webhook_config_file:
        options.webhook_config_file = args.authentication_token_webhook_config_file
        load_webhook_config(options.webhook_config_file)
    if args.authentication_token_webhook_version is not None:
        if args.authentication_token_webhook_version not in VERSIONS:
            raise ValueError(
                f'unsupported webhook token authenticator version "{args.authentication_token_webhook_version}", '
                f"supported versions are {', '.join(VERSIONS)}"
            )
        options.webhook_version = args.authentication_token_webhook_version
    if args.authentication_token_webhook_cache_ttl is not None:
        options.webhook_cache_ttl = parse_duration(args.authentication_token_webhook_cache_ttl)
    options.request_header = RequestHeaderConfig(
        username_headers=tuple(args.requestheader_username_headers or ()),
        uid_headers=tuple(args.requestheader_uid_headers or ()),
        group_headers=tuple(args.requestheader_group_headers or ()),
        extra_prefixes=tuple(args.requestheader_extra_headers_prefix or ()),
        allowed_names=tuple(args.requestheader_allowed_names or ()),
    )
    if args.requestheader_client_ca_file:
        options.requestheader_client_ca_file = args.requestheader_client_ca_file
        options.request_header_cas()
    return options


def _oidc(args: argparse.Namespace, disallowed_issuers: tuple[str, ...]) -> AuthenticationConfiguration:
    if not args.oidc_issuer_url or not args.oidc_client_id:
        raise ValueError("oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set")
    algorithms = tuple(args.oidc_signing_algs or ("RS256",))
    for algorithm in algorithms:
        if algorithm not in ASYMMETRIC_ALGORITHMS:
            raise ValueError(f"oidc-signing-algs: unsupported signing alg: {algorithm}")
    required: dict[str, str] = {}
    for pair in args.oidc_required_claim or ():
        key, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(
                f'invalid argument "{pair}" for "--oidc-required-claim" flag: malformed pair, expect string=string'
            )
        required[key.strip()] = value.strip()
    ca = ""
    if args.oidc_ca_file:
        try:
            ca = Path(args.oidc_ca_file).read_text()
        except OSError as error:
            raise ValueError(f"open {args.oidc_ca_file}: {error.strerror}") from None
    config = jwt_config.from_oidc_flags(
        issuer_url=args.oidc_issuer_url,
        client_id=args.oidc_client_id,
        ca=ca,
        username_claim=args.oidc_username_claim or "sub",
        username_prefix=args.oidc_username_prefix,
        groups_claim=args.oidc_groups_claim or "",
        groups_prefix=args.oidc_groups_prefix or "",
        required_claims=required,
        signing_algorithms=algorithms,
    )
    jwt_config.check(config, disallowed_issuers)
    return config
