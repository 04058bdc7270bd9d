"""The TLS side of calls to extension servers: roots from the APIService's `caBundle` (or no
verification with `insecureSkipTLSVerify`), the `--proxy-client-cert-file` identity, one pooled session.

The client certificate is what tells the extension server that the front-proxy headers it receives
(`X-Remote-User`, ...) come from the API server; without it an extension server would ignore them.
"""

from __future__ import annotations

import functools
import ssl

import aiohttp

from svc.apiserver.aggregator.options import AggregatorOptions


class TransportError(Exception):
    """A TLS configuration that cannot be used (an unparsable caBundle)."""


class Transport:
    def __init__(self, options: AggregatorOptions) -> None:
        self.options = options
        self._session: aiohttp.ClientSession | None = None

    @functools.lru_cache(maxsize=64)  # noqa: B019 - one Transport per server, bounded by the APIServices
    def ssl_context(self, ca_bundle: bytes, insecure: bool) -> ssl.SSLContext:
        if insecure:
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        elif ca_bundle:
            try:
                context = ssl.create_default_context(cadata=ca_bundle.decode("ascii"))
            except (ssl.SSLError, UnicodeDecodeError, ValueError):
                raise TransportError("unable to load root certificates: unable to parse bytes as PEM block") from None
        else:
            context = ssl.create_default_context()
        if self.options.proxy_client_cert_file:
            context.load_cert_chain(self.options.proxy_client_cert_file, self.options.proxy_client_key_file)
        context.set_alpn_protocols(["http/1.1"])
        return context

    def session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=0),
                skip_auto_headers=("User-Agent", "Accept-Encoding", "Content-Type"),
                auto_decompress=False,
                timeout=aiohttp.ClientTimeout(total=None, sock_connect=10),
            )
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
