"""Names and small shapes every resource.k8s.io kind shares, as upstream's `pkg/apis/resource/validation`.

Driver names are CSI driver names; device, request and counter names are DNS labels; pool names are
slash-separated DNS subdomains; attribute and capacity keys are C identifiers, optionally prefixed by
a driver-name domain. Lists are checked as upstream's `validateSlice`/`validateSet`: a list over its
maximum is one TooMany and nothing else (protection against huge objects), a repeated key is a
Duplicate on the item's index.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Hashable
from typing import Any, Final

from svc.api.validation.csi_kinds import csi_driver_name_errors
from svc.api.validation.engine import items, text
from svc.machinery.field_errors import FieldError, duplicate, invalid, not_supported, required, too_long, too_many
from svc.machinery.validation import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_valid_label_value,
    regex_error,
    validate_label_name,
)

POOL_NAME_MAX_LENGTH: Final = 253
DEVICE_MAX_ID_LENGTH: Final = 32
TAINT_EFFECTS: Final = ("NoExecute", "NoSchedule", "None")
TOLERATION_OPERATORS: Final = ("Equal", "Exists")
_C_IDENTIFIER: Final = "[A-Za-z_][A-Za-z0-9_]*"
_C_IDENTIFIER_RE: Final = re.compile(f"^{_C_IDENTIFIER}$")
_C_IDENTIFIER_MESSAGE: Final = regex_error(
    "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric "
    "characters or '_'",
    _C_IDENTIFIER,
    "my_name",
    "MY_NAME",
    "MyName",
)

ItemCheck = Callable[[Any, str], list[FieldError]]


def driver_name_errors(name: str, path: str) -> list[FieldError]:
    return csi_driver_name_errors(name, path)


def dns_label_errors(name: str, path: str) -> list[FieldError]:
    return [invalid(path, name, message) for message in is_dns1123_label(name)]


def dns_subdomain_errors(name: str, path: str) -> list[FieldError]:
    return [invalid(path, name, message) for message in is_dns1123_subdomain(name)]


def pool_name_errors(name: str, path: str) -> list[FieldError]:
    """Upstream's `validatePoolName`: required, at most 253 bytes, each `/`-separated part a DNS subdomain."""
    if not name:
        return [required(path)]
    errors = [too_long(path, POOL_NAME_MAX_LENGTH)] if len(name) > POOL_NAME_MAX_LENGTH else []
    for part in name.split("/"):
        errors += dns_subdomain_errors(part, path)
    return errors


def _c_identifier_errors(name: str, path: str) -> list[FieldError]:
    errors = [too_long(path, DEVICE_MAX_ID_LENGTH)] if len(name) > DEVICE_MAX_ID_LENGTH else []
    if not _C_IDENTIFIER_RE.match(name):
        errors.append(invalid(path, name, _C_IDENTIFIER_MESSAGE))
    return errors


def qualified_name_errors(name: str, path: str) -> list[FieldError]:
    """An attribute or capacity key: `<c identifier>` or `<driver name>/<c identifier>`."""
    parts = name.split("/")
    if len(parts) == 1:
        return _c_identifier_errors(name, path)
    if len(parts) > 2:
        return [invalid(path, name, "must not contain more than one slash")]
    domain, identifier = parts
    errors = driver_name_errors(domain, path) if domain else [invalid(path, "", "the domain must not be empty")]
    if identifier:
        return errors + _c_identifier_errors(identifier, path)
    return [*errors, invalid(path, "", "the name must not be empty")]


def fully_qualified_name_errors(name: str, path: str) -> list[FieldError]:
    """A constraint's attribute: a qualified name that has its domain."""
    errors = qualified_name_errors(name, path)
    if "/" not in name:
        errors.append(invalid(path, name, "a fully qualified name must be a domain and a name separated by a slash"))
    return errors


def label_value_errors(value: str, path: str) -> list[FieldError]:
    return [invalid(path, value, message) for message in is_valid_label_value(value)]


def listed(
    values: Any,
    maximum: int,
    check: ItemCheck,
    path: str,
    key: Callable[[Any], Hashable] | None = None,
) -> list[FieldError]:
    """Upstream's `validateSlice` (no `key`) and `validateSet` (a `key` that must not repeat)."""
    entries = items(values)
    if 0 <= maximum < len(entries):
        return [too_many(path, len(entries), maximum)]
    errors: list[FieldError] = []
    for index, entry in enumerate(entries):
        errors += check(entry, f"{path}[{index}]")
    if key is None:
        return errors
    seen: set[Hashable] = set()
    for index, entry in enumerate(entries):
        value = key(entry)
        if value in seen:
            errors.append(duplicate(f"{path}[{index}]", value))
        seen.add(value)
    return errors


def by_name(entry: Any) -> str:
    return text(entry, "name")


def by_value(entry: Any) -> str:
    return entry if isinstance(entry, str) else str(entry)


def uid_errors(uid: str, path: str) -> list[FieldError]:
    """Upstream's `validateUID` (a share ID): a UUID, written in RFC 4122's normalized form."""
    try:
        uuid.UUID(uid)
    except ValueError:
        reason = "invalid UUID format" if len(uid) in (32, 36, 38, 45) else f"invalid UUID length: {len(uid)}"
        return [invalid(path, uid, f"error validating uid: {reason}")]
    if len(uid) != 36 or uid != uid.lower():
        detail = (
            "uid must be in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase "
            "hexadecimal characters"
        )
        return [invalid(path, uid, detail)]
    return []


def toleration_errors(toleration: Any, path: str) -> list[FieldError]:
    """Upstream's `validateDeviceToleration`."""
    key, operator, value, effect = (text(toleration, name) for name in ("key", "operator", "value", "effect"))
    errors = validate_label_name(key, f"{path}.key") if key else []
    if operator == "Exists":
        if value:
            errors.append(invalid(f"{path}.value", value, "must be empty for operator `Exists`"))
    elif operator == "Equal":
        errors += label_value_errors(value, f"{path}.value")
    elif not operator:
        errors.append(required(f"{path}.operator"))
    else:
        errors.append(not_supported(f"{path}.operator", operator, TOLERATION_OPERATORS))
    if effect and effect not in TAINT_EFFECTS:
        errors.append(not_supported(f"{path}.effect", effect, TAINT_EFFECTS))
    return errors


def taint_errors(taint: Any, path: str) -> list[FieldError]:
    """Upstream's `validateDeviceTaint` for a new or changed taint."""
    errors = validate_label_name(text(taint, "key"), f"{path}.key")
    value, effect = text(taint, "value"), text(taint, "effect")
    if value:
        errors += label_value_errors(value, f"{path}.value")
    if not effect:
        errors.append(required(f"{path}.effect"))
    elif effect not in TAINT_EFFECTS:
        errors.append(not_supported(f"{path}.effect", effect, TAINT_EFFECTS))
    return errors
