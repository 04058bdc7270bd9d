"""The pull policy upstream gives a container or image volume that names none.

`Always` when the image reference's tag is `latest`, `IfNotPresent` otherwise. A reference without
tag and digest means `latest`; a digest alone means no tag; a reference that does not parse (empty,
upper-case repository, bad digest) gets `IfNotPresent`, since upstream ignores the parse error there.
The grammar is the one of github.com/distribution/reference (`ParseNormalizedNamed`). Written by
hand: the Python packages that parse image references (the Docker SDK's) are looser than upstream's
grammar, and the policy must follow upstream's verdict exactly.
"""

from __future__ import annotations

import re
from typing import Final

ALWAYS: Final = "Always"
IF_NOT_PRESENT: Final = "IfNotPresent"

_DEFAULT_DOMAIN: Final = "docker.io"
_LEGACY_DOMAIN: Final = "index.docker.io"
_MAX_NAME_LENGTH: Final = 255
_DIGEST_LENGTHS: Final = {"sha256": 64, "sha384": 96, "sha512": 128}

_ALPHANUMERIC = r"[a-z0-9]+"
_SEPARATOR = r"(?:[._]|__|[-]+)"
_PATH_COMPONENT = rf"{_ALPHANUMERIC}(?:{_SEPARATOR}{_ALPHANUMERIC})*"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_HOST = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[a-fA-F0-9:]+\])"
_NAME = rf"(?:{_HOST}(?::[0-9]+)?/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
_REFERENCE: Final = re.compile(rf"({_NAME})(?::({_TAG}))?(?:@({_DIGEST}))?")
_IDENTIFIER: Final = re.compile(r"[a-f0-9]{64}")


def _split_domain(reference: str) -> tuple[str, str]:
    """Domain and remainder as upstream normalises them (`nginx` is `docker.io/library/nginx`); the
    first path element is a domain only if it looks like a host."""
    first, slash, rest = reference.partition("/")
    if not slash or (not any(c in first for c in ".:") and first != "localhost" and first == first.lower()):
        domain, remainder = _DEFAULT_DOMAIN, reference
    else:
        domain, remainder = (_DEFAULT_DOMAIN if first == _LEGACY_DOMAIN else first), rest
    if domain == _DEFAULT_DOMAIN and "/" not in remainder:
        remainder = f"library/{remainder}"
    return domain, remainder


def _digest_is_valid(digest: str) -> bool:
    algorithm, _, encoded = digest.partition(":")
    length = _DIGEST_LENGTHS.get(algorithm)
    return length is not None and re.fullmatch(rf"[a-f0-9]{{{length}}}", encoded) is not None


def image_tag(reference: str) -> str | None:
    """The tag upstream reads from an image reference (`latest` when it has neither tag nor digest),
    "" for a digest-only reference, or None when the reference does not parse."""
    if _IDENTIFIER.fullmatch(reference):
        return None
    domain, remainder = _split_domain(reference)
    repository = remainder.partition(":")[0]
    if repository != repository.lower():
        return None
    match = _REFERENCE.fullmatch(f"{domain}/{remainder}")
    if match is None or len(match.group(1)) > _MAX_NAME_LENGTH:
        return None
    tag, digest = match.group(2) or "", match.group(3) or ""
    if digest and not _digest_is_valid(digest):
        return None
    return tag if tag or digest else "latest"


def pull_policy(reference: str) -> str:
    return ALWAYS if image_tag(reference) == "latest" else IF_NOT_PRESENT
