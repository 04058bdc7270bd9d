"""The error of an external token signer, apart from its gRPC client: the TokenRequest handler catches
it on every server, the client (and gRPC with it) loads only when a signer is configured."""

from __future__ import annotations


class SignerError(Exception):
    """A failed call or a malformed answer, in upstream's wording."""
