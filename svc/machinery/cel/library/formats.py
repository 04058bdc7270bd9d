"""The `format` library: named string formats (`format.dns1123Label()`, `format.named('uuid')`)
whose `validate(s)` gives `optional.none()` for a valid string, else the list of upstream's errors.

The Kubernetes name formats reuse the server's own validators (`svc.machinery.validation`), so the
messages are the ones object validation reports.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from datetime import date
from typing import Any, Final

from svc.machinery import validation
from svc.machinery.cel.conversions import parse_timestamp
from svc.machinery.cel.library.urls import request_uri_error
from svc.machinery.cel.values import NONE, CelError, CelType, NoSuchOverload, Optional, register_type

FORMAT_TYPE: Final = CelType("kubernetes.NamedFormat")
_UUID: Final = re.compile(r"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}")

Validator = Callable[[str], list[str]]


class Format:
    __slots__ = ("name", "validator")
    cel_type = FORMAT_TYPE

    def __init__(self, name: str, validator: Validator) -> None:
        self.name, self.validator = name, validator


register_type(Format, FORMAT_TYPE)


def _uri(text: str) -> list[str]:
    error = request_uri_error(text)
    return [error] if error else []


def _check(message: str, valid: Callable[[str], object]) -> Validator:
    def validate(text: str) -> list[str]:
        try:
            valid(text)
        except (ValueError, CelError, binascii.Error):
            return [message]
        return []

    return validate


def _uuid(text: str) -> None:
    if not _UUID.fullmatch(text):
        raise ValueError(text)


def _base64(text: str) -> None:
    base64.b64decode(text, validate=True)


def _date(text: str) -> None:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        raise ValueError(text)
    date.fromisoformat(text)


FORMATS: Final[dict[str, Format]] = {
    "dns1123Label": Format("DNS1123Label", lambda s: validation.name_is_dns_label(s, False)),
    "dns1123Subdomain": Format("DNS1123Subdomain", lambda s: validation.name_is_dns_subdomain(s, False)),
    "dns1035Label": Format("DNS1035Label", lambda s: validation.name_is_dns1035_label(s, False)),
    "qualifiedName": Format("QualifiedName", validation.is_qualified_name),
    "dns1123LabelPrefix": Format("DNS1123LabelPrefix", lambda s: validation.name_is_dns_label(s, True)),
    "dns1123SubdomainPrefix": Format("DNS1123SubdomainPrefix", lambda s: validation.name_is_dns_subdomain(s, True)),
    "dns1035LabelPrefix": Format("DNS1035LabelPrefix", lambda s: validation.name_is_dns1035_label(s, True)),
    "labelValue": Format("LabelValue", validation.is_valid_label_value),
    "uri": Format("URI", _uri),
    "uuid": Format("uuid", _check("does not match the UUID format", _uuid)),
    "byte": Format("byte", _check("invalid base64", _base64)),
    "date": Format("date", _check("invalid date", _date)),
    "datetime": Format("datetime", _check("invalid datetime", parse_timestamp)),
}


def named(name: Any) -> Optional:
    if type(name) is not str:
        raise NoSuchOverload("format.named")
    found = FORMATS.get(name)
    return NONE if found is None else Optional(found)


def validate(fmt: Any, text: Any) -> Optional:
    if type(fmt) is not Format or type(text) is not str:
        raise NoSuchOverload("validate")
    errors = fmt.validator(text)
    return Optional(errors) if errors else NONE


def _constant(fmt: Format) -> Callable[[], Format]:
    return lambda: fmt


FUNCTIONS: Final[dict[str, Callable[..., Any]]] = {
    "format.named": named,
    "validate": validate,
    **{f"format.{name}": _constant(fmt) for name, fmt in FORMATS.items()},
}
