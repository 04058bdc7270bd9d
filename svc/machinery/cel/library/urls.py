"""The `urls` library: `url()`, `isURL()` and the `URL` accessors.

Go's `url.ParseRequestURI` decides validity: an absolute URI or an absolute path, with a valid
port when a host is given. The accessors return the pieces Go's `url.URL` does.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable
from typing import Any, Final

from svc.machinery.cel.values import CelError, CelType, NoSuchOverload, register_type

URL_TYPE: Final = CelType("kubernetes.URL")
_SCHEME: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")


class URL:
    """A parsed URL; equal when the text is."""

    __slots__ = ("parts", "text")
    cel_type = URL_TYPE

    def __init__(self, text: str) -> None:
        self.text = text
        self.parts = urllib.parse.urlsplit(text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, URL) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def cel_string(self) -> str:
        return self.text


register_type(URL, URL_TYPE)


def request_uri_error(text: str) -> str | None:
    """Why Go's `url.ParseRequestURI` refuses `text`, or None when it accepts it."""
    if not text:
        return f'parse "{text}": empty url'
    scheme, colon, rest = text.partition(":")
    if text.startswith("/"):
        return None
    if not colon or not _SCHEME.fullmatch(scheme):
        return f'parse "{text}": invalid URI for request'
    if rest.startswith("//"):
        authority = rest[2:].split("/", 1)[0].split("?", 1)[0]
        host = authority.rsplit("@", 1)[-1]
        port = host.rsplit("]", 1)[-1].partition(":")[2] if host.startswith("[") else host.partition(":")[2]
        if ":" in host and not host.startswith("[") and not port.isdigit() and port != "":
            return f'parse "{text}": invalid port ":{host.rsplit(":", 1)[-1]}" after host'
        if port and not port.isdigit():
            return f'parse "{text}": invalid port ":{port}" after host'
        return None
    return None  # with a scheme, a rootless rest is an opaque URL (Go accepts `https:://x`)


def to_url(text: Any) -> URL:
    if type(text) is not str:
        raise NoSuchOverload("url")
    error = request_uri_error(text)
    if error is not None:
        raise CelError(f"URL parse error during conversion from string: {error}")
    return URL(text)


def is_url(text: Any) -> bool:
    if type(text) is not str:
        raise NoSuchOverload("isURL")
    return request_uri_error(text) is None


def _url(name: str, value: Any) -> URL:
    if type(value) is not URL:
        raise NoSuchOverload(name)
    return value


def get_scheme(value: Any) -> str:
    return _url("getScheme", value).parts.scheme


def get_host(value: Any) -> str:
    return _url("getHost", value).parts.netloc.rsplit("@", 1)[-1]


def get_hostname(value: Any) -> str:
    host = get_host(value)
    if host.startswith("["):
        return host[1 : host.index("]")]
    return host.partition(":")[0]


def get_port(value: Any) -> str:
    host = get_host(value)
    tail = host[host.index("]") + 1 :] if host.startswith("[") else host
    return tail.partition(":")[2]


def get_escaped_path(value: Any) -> str:
    return urllib.parse.quote(urllib.parse.unquote(_url("getEscapedPath", value).parts.path), safe="/:@!$&'()*+,;=-._~")


def get_query(value: Any) -> dict[str, list[str]]:
    return urllib.parse.parse_qs(_url("getQuery", value).parts.query, keep_blank_values=True)


FUNCTIONS: Final[dict[str, Callable[..., Any]]] = {
    "url": to_url,
    "isURL": is_url,
    "getScheme": get_scheme,
    "getHost": get_host,
    "getHostname": get_hostname,
    "getPort": get_port,
    "getEscapedPath": get_escaped_path,
    "getQuery": get_query,
}
