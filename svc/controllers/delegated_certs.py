"""Client-certificate and front-proxy authentication of the daemon's secure port, as upstream's
delegated authentication does them: `--client-ca-file` makes a client certificate's CommonName the
user, `--requestheader-client-ca-file` (with `--requestheader-allowed-names`) trusts a proxy naming
the user in the `--requestheader-*` headers. A CA not given on the command line is looked up in the
`extension-apiserver-authentication` ConfigMap of the system namespace through
`--authentication-kubeconfig` (with the ConfigMap's header lists), unless
`--authentication-skip-lookup`; a failed lookup stops start-up unless
`--authentication-tolerate-lookup-failure`. The lookup at start is done here; `delegated_ca_follower`
keeps the CAs current afterwards. The certificate checks are the API server's own (`svc.apiserver.authn`).
"""

from __future__ import annotations

import argparse
import json
import logging
from dataclasses import dataclass, field
from typing import Any

from cryptography import x509

from svc.apiserver.authn.extension_configmap import NAME as CONFIGMAP
from svc.apiserver.authn.request_header import RequestHeaderAuthenticator, RequestHeaderConfig
from svc.apiserver.authn.x509 import ClientCertificates, load_client_cas
from svc.apiserver.feature_gates import FeatureGates
from svc.client.aio import ApiError, AsyncRestClient
from svc.machinery.gotext import parse_bool

log = logging.getLogger(__name__)

UID_GATE = "RemoteRequestHeaderUID"


class LookupFailed(Exception):
    """The in-cluster lookup failed and `--authentication-tolerate-lookup-failure` is off."""


@dataclass
class CertificateOptions:
    client_ca_file: str = ""
    requestheader_client_ca_file: str = ""
    request_header: RequestHeaderConfig = field(
        default_factory=lambda: RequestHeaderConfig(
            username_headers=("x-remote-user",),
            group_headers=("x-remote-group",),
            extra_prefixes=("x-remote-extra-",),
        )
    )
    skip_lookup: bool = False
    tolerate_lookup_failure: bool = False


def _list(text: str) -> list[str]:
    """A string-slice flag: empty text is the empty list, an empty item is kept (and refused later)."""
    return [item.strip() for item in text.split(",")] if text else []


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add("--client-ca-file", default="", help="client certificates signed by this CA authenticate as their CommonName")
    add("--requestheader-client-ca-file", default="", help="CA of the front proxy's client certificates")
    add(
        "--requestheader-allowed-names",
        type=_list,
        default=[],
        help="common names a front proxy may have (empty: any signed by the CA)",
    )
    add(
        "--requestheader-username-headers",
        type=_list,
        default=["x-remote-user"],
        help="headers naming the user, first non-empty wins (default [x-remote-user])",
    )
    add("--requestheader-uid-headers", type=_list, default=[], help="headers carrying the user's uid")
    add(
        "--requestheader-group-headers",
        type=_list,
        default=["x-remote-group"],
        help="headers listing the user's groups (default [x-remote-group])",
    )
    add(
        "--requestheader-extra-headers-prefix",
        type=_list,
        default=["x-remote-extra-"],
        help="header prefixes carrying extra user attributes (default [x-remote-extra-])",
    )
    for name, what in (
        ("--authentication-skip-lookup", "do not look missing CAs up in the cluster"),
        ("--authentication-tolerate-lookup-failure", "start even when that lookup fails (requests may be anonymous)"),
    ):
        add(name, type=parse_bool, nargs="?", const=True, default=False, help=what)


def from_args(args: argparse.Namespace, gates: FeatureGates) -> CertificateOptions:
    """The options; ValueError with upstream's text when a header list has an empty entry, a CA file
    cannot be read, or uid headers are asked for with their gate off."""
    lists = {
        "requestheader-username-headers": args.requestheader_username_headers,
        "requestheader-uid-headers": args.requestheader_uid_headers,
        "requestheader-group-headers": args.requestheader_group_headers,
        "requestheader-extra-headers-prefix": args.requestheader_extra_headers_prefix,
        "requestheader-allowed-names": args.requestheader_allowed_names,
    }
    for name, values in lists.items():
        if any(not value for value in values):
            raise ValueError(f'empty value in "{name}"')
    if args.requestheader_uid_headers and not gates.enabled(UID_GATE):
        raise ValueError(f'--requestheader-uid-headers requires the "{UID_GATE}" feature to be enabled')
    for path in (args.client_ca_file, args.requestheader_client_ca_file):
        if path:
            load_client_cas(path)
    return CertificateOptions(
        client_ca_file=args.client_ca_file,
        requestheader_client_ca_file=args.requestheader_client_ca_file,
        request_header=RequestHeaderConfig(
            username_headers=tuple(args.requestheader_username_headers),
            uid_headers=tuple(args.requestheader_uid_headers),
            group_headers=tuple(args.requestheader_group_headers),
            extra_prefixes=tuple(args.requestheader_extra_headers_prefix),
            allowed_names=tuple(args.requestheader_allowed_names),
        ),
        skip_lookup=args.authentication_skip_lookup,
        tolerate_lookup_failure=args.authentication_tolerate_lookup_failure,
    )


@dataclass
class Authorities:
    """What certificate authentication trusts once the lookup is done."""

    client_cas: list[x509.Certificate] = field(default_factory=list)
    request_header: RequestHeaderConfig | None = None
    request_header_cas: list[x509.Certificate] = field(default_factory=list)

    def authenticators(self) -> list[Any]:
        """Upstream's order: the front proxy, then client certificates."""
        found: list[Any] = []
        if self.request_header is not None and self.request_header_cas:
            found.append(RequestHeaderAuthenticator(self.request_header, self.request_header_cas))
        if self.client_cas:
            found.append(ClientCertificates(self.client_cas))
        return found


def _pem(text: str) -> list[x509.Certificate]:
    try:
        return x509.load_pem_x509_certificates(text.encode())
    except ValueError:
        return []


def _json_list(data: dict[str, str], key: str) -> tuple[str, ...]:
    try:
        values = json.loads(data.get(key) or "[]")
    except ValueError:
        return ()
    return tuple(str(value) for value in values) if isinstance(values, list) else ()


def from_flags(options: CertificateOptions) -> Authorities:
    """The CAs the flags name, read now (ClientCAError when a file no longer reads)."""
    found = Authorities()
    if options.client_ca_file:
        found.client_cas = load_client_cas(options.client_ca_file)
    if options.requestheader_client_ca_file:
        found.request_header = options.request_header
        found.request_header_cas = load_client_cas(options.requestheader_client_ca_file)
    return found


def _lookup_wanted(options: CertificateOptions) -> bool:
    """Some CA is left to the cluster's ConfigMap."""
    return not options.skip_lookup and not (options.client_ca_file and options.requestheader_client_ca_file)


def looks_up(options: CertificateOptions, client: AsyncRestClient | None) -> bool:
    """Whether some CA is to come from the cluster's ConfigMap, read through `client`."""
    return client is not None and _lookup_wanted(options)


def with_configmap(options: CertificateOptions, flagged: Authorities, data: dict[str, str]) -> Authorities:
    """`flagged` completed with what the ConfigMap's `data` holds for the CAs no flag names."""
    found = Authorities(flagged.client_cas, flagged.request_header, flagged.request_header_cas)
    if not options.client_ca_file:
        found.client_cas = _pem(data.get("client-ca-file", ""))
    if not options.requestheader_client_ca_file and (cas := _pem(data.get("requestheader-client-ca-file", ""))):
        found.request_header_cas = cas
        found.request_header = RequestHeaderConfig(
            username_headers=_json_list(data, "requestheader-username-headers"),
            uid_headers=_json_list(data, "requestheader-uid-headers"),
            group_headers=_json_list(data, "requestheader-group-headers"),
            extra_prefixes=_json_list(data, "requestheader-extra-headers-prefix"),
            allowed_names=_json_list(data, "requestheader-allowed-names"),
        )
    return found


async def lookup(options: CertificateOptions, client: AsyncRestClient | None, namespace: str) -> dict[str, str]:
    """The ConfigMap's data when the CAs are to be looked up (empty when it does not exist or no
    lookup is due); LookupFailed (upstream's text) when the lookup fails and that is not tolerated."""
    if not _lookup_wanted(options):
        return {}
    if client is None:
        log.warning(
            "No authentication-kubeconfig provided in order to lookup missing CAs in configmap/%s in %s, "
            "so client certificate authentication won't work.",
            CONFIGMAP,
            namespace,
        )
        return {}
    try:
        configmap = await client.get(f"/api/v1/namespaces/{namespace}/configmaps/{CONFIGMAP}")
    except ApiError as error:
        if error.code == 404:
            return {}
        return _lookup_failed(options, str(error))
    except (ConnectionError, TimeoutError, OSError) as error:
        return _lookup_failed(options, str(error))
    return configmap.get("data") or {}


async def resolve(options: CertificateOptions, client: AsyncRestClient | None, namespace: str) -> Authorities:
    """The CAs of the flags, completed from the cluster's ConfigMap; LookupFailed (upstream's text)
    when the lookup fails and failures are not tolerated."""
    flagged = from_flags(options)
    return with_configmap(options, flagged, await lookup(options, client, namespace))


def _lookup_failed(options: CertificateOptions, why: str) -> dict[str, str]:
    if not options.tolerate_lookup_failure:
        raise LookupFailed(f"unable to load configmap based request-header-client-ca-file: {why}")
    log.warning("Error looking up in-cluster authentication configuration: %s", why)
    log.warning("Continuing without authentication configuration. This may treat all requests as anonymous.")
    log.warning(
        "To require authentication configuration lookup to succeed, set --authentication-tolerate-lookup-failure=false"
    )
    return {}
