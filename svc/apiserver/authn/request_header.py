"""Request-header (front proxy) authentication: an authenticating proxy names the user in headers.

The headers are trusted only on a connection whose client certificate chains to
`--requestheader-client-ca-file` and whose CommonName is in `--requestheader-allowed-names` (an empty
list allows any). Without such a certificate this authenticator has no opinion and the headers are
ignored; `strip` removes them from every request before the handlers see it, so they are never
passed on. The user is the first non-empty username header, the uid the first non-empty uid header,
the groups every value of every group header, and the extra values come from headers starting with an
extra prefix, the key lower-cased and percent-decoded, as upstream.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import unquote

from aiohttp import web
from cryptography import x509
from multidict import CIMultiDict

from svc.apiserver.authn.authenticator import AuthenticationError
from svc.apiserver.authn.x509 import ClientCertificates
from svc.registry.admission import UserInfo


@dataclass(frozen=True)
class RequestHeaderConfig:
    username_headers: tuple[str, ...] = ()
    uid_headers: tuple[str, ...] = ()
    group_headers: tuple[str, ...] = ()
    extra_prefixes: tuple[str, ...] = ()
    allowed_names: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return self.username_headers + self.uid_headers + self.group_headers

    def strip(self, request: web.BaseRequest) -> web.BaseRequest:
        """The request without any of the configured headers (the same object when it has none)."""
        headers = request.headers
        names = {name.lower() for name in self.names}
        prefixes = tuple(prefix.lower() for prefix in self.extra_prefixes)
        if not any(key.lower() in names or key.lower().startswith(prefixes) for key in headers):
            return request
        kept = CIMultiDict(
            (key, value)
            for key, value in headers.items()
            if key.lower() not in names and not key.lower().startswith(prefixes)
        )
        return request.clone(headers=kept)


class RequestHeaderAuthenticator:
    def __init__(self, config: RequestHeaderConfig, authorities: list[x509.Certificate]) -> None:
        self.config = config
        self._proxies = ClientCertificates(authorities)
        self._allowed = frozenset(config.allowed_names)

    async def authenticate(self, request: web.BaseRequest) -> UserInfo | None:
        try:
            proxy = await self._proxies.authenticate(request)
        except AuthenticationError:
            return None  # not the proxy's certificate: the headers are not trusted, others decide
        if proxy is None:
            return None
        if self._allowed and proxy.name not in self._allowed:
            raise AuthenticationError(f"x509: subject with cn={proxy.name} is not in the allowed list")
        headers = request.headers
        name = _first(headers, self.config.username_headers)
        if not name:
            return None
        groups = tuple(value for header in self.config.group_headers for value in headers.getall(header, ()) if value)
        extra: dict[str, list[str]] = {}
        for key, value in headers.items():
            lowered = key.lower()
            for prefix in self.config.extra_prefixes:
                if lowered.startswith(prefix.lower()):
                    extra.setdefault(unquote(lowered[len(prefix) :]), []).append(value)
                    break
        uid = _first(headers, self.config.uid_headers)
        return UserInfo(name, uid, groups, {key: tuple(values) for key, values in extra.items()})


def _first(headers: Mapping[str, str], names: tuple[str, ...]) -> str:
    for header in names:
        value = headers.get(header, "")
        if value:
            return value
    return ""
