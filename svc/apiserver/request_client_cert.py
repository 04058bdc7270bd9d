"""Ask TLS clients for a certificate without verifying it in the handshake, as Go's
`tls.RequestClientCert` does for upstream.

Upstream completes the handshake whatever certificate the client sends; the x509 authenticator then
verifies it and a bad one gets a 401 `Unauthorized` Status. Python's `ssl` has no verify callback,
and with `CERT_OPTIONAL` OpenSSL aborts the handshake on a certificate that does not verify. So this
module installs an OpenSSL verify callback that accepts every chain on the context's `SSL_CTX`,
through ctypes and the libssl the `ssl` module itself is linked against. Only handshakes pay for it
(one call per certificate in the chain); the request path is untouched, with asyncio's and uvloop's
TLS transports alike.

Where the callback cannot be installed safely (another Python implementation, OpenSSL linked in
without exported symbols, a context layout that does not check out), the context keeps verifying
in the handshake: a bad certificate then fails the handshake instead of getting a 401, which is less
faithful but never less strict, since the authenticator verifies every certificate either way.
"""

from __future__ import annotations

import ctypes
import logging
import platform
import ssl

log = logging.getLogger(__name__)

_SSL_VERIFY_PEER = 0x01
_VERIFY_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_void_p)


def _accept_any_chain(preverify_ok: int, store_context: int | None) -> int:
    return 1


_ACCEPT_ANY_CHAIN = _VERIFY_CALLBACK(_accept_any_chain)


def _libssl() -> ctypes.CDLL | None:
    """The OpenSSL functions as the `ssl` module sees them (its extension's dependencies), or None."""
    if platform.python_implementation() != "CPython":
        return None
    try:
        library = ctypes.CDLL(getattr(ssl._ssl, "__file__", None))  # type: ignore[attr-defined]
        library.SSL_CTX_set_verify.argtypes = [ctypes.c_void_p, ctypes.c_int, _VERIFY_CALLBACK]
        library.SSL_CTX_set_verify.restype = None
        library.SSL_CTX_get_verify_mode.argtypes = [ctypes.c_void_p]
        library.SSL_CTX_get_verify_mode.restype = ctypes.c_int
        library.SSL_CTX_get_options.argtypes = [ctypes.c_void_p]
        library.SSL_CTX_get_options.restype = ctypes.c_uint64
    except (OSError, AttributeError):
        return None
    return library


_LIBSSL = _libssl()


def _ssl_ctx_pointer(context: ssl.SSLContext, library: ctypes.CDLL) -> int | None:
    """CPython's context object starts with the object header, then its `SSL_CTX *`. The pointer is
    used only when OpenSSL reads the same options and verify mode from it as the context reports."""
    pointer = ctypes.c_void_p.from_address(id(context) + object.__basicsize__).value
    if not pointer:
        return None
    if library.SSL_CTX_get_options(pointer) != int(context.options):
        return None
    if library.SSL_CTX_get_verify_mode(pointer) != _SSL_VERIFY_PEER:
        return None
    return pointer


def request_client_certificate(context: ssl.SSLContext) -> bool:
    """Make `context` (a server context) request a client certificate and accept it unverified.

    Returns False when the callback could not be installed; the context then verifies client
    certificates in the handshake (plain `CERT_OPTIONAL`).
    """
    context.verify_mode = ssl.CERT_OPTIONAL
    if _LIBSSL is None:
        log.warning("client certificates are verified in the TLS handshake: OpenSSL is not reachable through ctypes")
        return False
    pointer = _ssl_ctx_pointer(context, _LIBSSL)
    if pointer is None:
        log.warning("client certificates are verified in the TLS handshake: unrecognised SSL context layout")
        return False
    _LIBSSL.SSL_CTX_set_verify(pointer, _SSL_VERIFY_PEER, _ACCEPT_ANY_CHAIN)
    return True
