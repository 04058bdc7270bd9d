"""The string formats a CRD schema may name, checked as upstream's OpenAPI validator checks them.

Upstream (kube-openapi's strfmt registry) knows these names; a value that does not parse is an
`InvalidType` error naming the format. Unknown formats validate nothing, as upstream. `int32`,
`int64`, `float`, `double` and `password` constrain nothing on strings.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from collections.abc import Callable
from datetime import date
from typing import Final

from svc.machinery.cel.conversions import parse_timestamp
from svc.machinery.cel.openapi_duration import parse_openapi_duration
from svc.machinery.cel.values import CelError

Check = Callable[[str], bool]

_UUID: Final = r"[0-9a-f]{8}-?[0-9a-f]{4}-?{v}[0-9a-f]{3}-?[89ab]?[0-9a-f]{3,4}-?[0-9a-f]{12}"


def _matches(pattern: str, flags: int = 0) -> Check:
    compiled = re.compile(pattern, flags)
    return lambda value: compiled.fullmatch(value) is not None


def _ip(version: int) -> Check:
    def check(value: str) -> bool:
        try:
            return ipaddress.ip_address(value).version == version
        except ValueError:
            return False

    return check


def _cidr(value: str) -> bool:
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        return False
    return "/" in value


def _byte(value: str) -> bool:
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _date(value: str) -> bool:
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return len(value) == 10


def _parses(parse: Callable[[str], object]) -> Check:
    def check(value: str) -> bool:
        try:
            parse(value)
        except (CelError, ValueError):
            return False
        return True

    return check


def _hostname(value: str) -> bool:
    if not value or len(value) > 255:
        return False
    labels = value.removesuffix(".").split(".")
    label = re.compile(r"[a-zA-Z0-9\u00a1-\uffff]([a-zA-Z0-9\u00a1-\uffff-]{0,61}[a-zA-Z0-9\u00a1-\uffff])?")
    return all(label.fullmatch(part) for part in labels)


def _uuid(version: str) -> Check:
    return _matches(_UUID.replace("{v}", version), re.IGNORECASE)


CHECKS: Final[dict[str, Check]] = {
    "bsonobjectid": _matches(r"[0-9a-fA-F]{24}"),
    "uri": _matches(r"[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]*"),
    "email": _matches(r"[^@\s]+@[^@\s]+"),
    "hostname": _hostname,
    "ipv4": _ip(4),
    "ipv6": _ip(6),
    "cidr": _cidr,
    "mac": _matches(r"([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}|([0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}"),
    "uuid": _uuid("[0-9a-f]"),
    "uuid3": _uuid("3"),
    "uuid4": _uuid("4"),
    "uuid5": _uuid("5"),
    "isbn": _matches(r"(\d{9}[\dXx]|\d{13})"),
    "isbn10": _matches(r"\d{9}[\dXx]"),
    "isbn13": _matches(r"\d{13}"),
    "creditcard": _matches(r"\d{13,19}"),
    "ssn": _matches(r"\d{3}[- ]?\d{2}[- ]?\d{4}"),
    "hexcolor": _matches(r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})"),
    "rgbcolor": _matches(r"rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\)"),
    "byte": _byte,
    "date": _date,
    "date-time": _parses(parse_timestamp),
    "datetime": _parses(parse_timestamp),
    "duration": _parses(parse_openapi_duration),
}


def format_check(name: str) -> Check | None:
    """The check of format `name`, or None when the format constrains nothing."""
    return CHECKS.get(name)
