"""`--encryption-provider-config`: the EncryptionConfiguration file, read and validated as upstream.

The file (`apiserver.config.<brand>/v1`, YAML or JSON) lists resources and, per resource list, the
providers in order. Every problem is reported as upstream's field errors in one line, so a bad file
stops the server at start and a bad new file on reload is refused as a whole.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import yaml

from svc.api.brand import Profile
from svc.machinery import field_errors as fe
from svc.machinery.duration import parse_duration

KIND = "EncryptionConfiguration"
PROVIDERS = ("kms", "aesgcm", "aescbc", "secretbox", "identity")
AES_KEY_SIZES = (16, 24, 32)
SECRETBOX_KEY_SIZES = (32,)
DEFAULT_KMS_TIMEOUT = 3.0
_NON_REST = ("apiserveripinfo", "serviceipallocations", "servicenodeportallocations")
_KMS_V1 = (
    "KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead. "
    "Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature."
)


@dataclass(frozen=True)
class Key:
    name: str
    secret: bytes


@dataclass(frozen=True)
class Kms:
    name: str
    endpoint: str
    timeout: float


@dataclass(frozen=True)
class Provider:
    type: str
    keys: tuple[Key, ...] = ()
    kms: Kms | None = None


@dataclass(frozen=True)
class ResourceConfig:
    resources: tuple[str, ...]
    providers: tuple[Provider, ...]


def load_encryption_config(path: str, profile: Profile) -> tuple[tuple[ResourceConfig, ...], bytes]:
    """The resource lists of the file and its bytes, or ValueError in one line."""
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except OSError as error:
        raise ValueError(f"error opening encryption provider configuration file {path!r}: {error}") from None
    return parse_encryption_config(data, profile, path), data


def parse_encryption_config(data: bytes, profile: Profile, path: str = "") -> tuple[ResourceConfig, ...]:
    where = f"error while parsing encryption provider configuration file {json.dumps(path)}"
    try:
        document = yaml.safe_load(data)
    except yaml.YAMLError as error:
        raise ValueError(f"{where}: {error}".replace("\n", " ")) from None
    if not isinstance(document, dict):
        raise ValueError(f"{where}: not a YAML or JSON object")
    api_version, kind = document.get("apiVersion"), document.get("kind")
    expected = f"{profile.group('apiserver.config.k8s.io')}/v1"
    if kind != KIND or api_version != expected:
        raise ValueError(
            f'{where}: no kind "{kind}" is registered for version "{api_version}" (expected {KIND} in {expected})'
        )
    errors: list[fe.FieldError] = []
    configs = _resources(document.get("resources"), profile, errors)
    if errors:
        raise ValueError(f"{where}: {fe.aggregate_message(errors)}")
    return tuple(configs)


def parse_group_resource(text: str) -> tuple[str, str]:
    """(group, resource) of `resource.group` (upstream's ParseGroupResource: the first dot splits)."""
    resource, _, group = text.partition(".")
    return group, resource


def _resources(items: Any, profile: Profile, errors: list[fe.FieldError]) -> list[ResourceConfig]:
    if not items or not isinstance(items, list):
        errors.append(fe.required("resources", "at least one resources is required"))
        return []
    configs = []
    kms_names: set[str] = set()
    for index, item in enumerate(items):
        path = f"resources[{index}]"
        item = item if isinstance(item, dict) else {}
        resources = [str(name) for name in item.get("resources") or []]
        if not resources:
            errors.append(fe.required(f"{path}.resources", f"at least one {path}.resources is required"))
        errors.extend(_overlap(resources, f"{path}.resources"))
        errors.extend(_names(resources, f"{path}.resources", profile))
        providers = item.get("providers") or []
        if not providers:
            errors.append(fe.required(f"{path}.providers", f"at least one {path}.providers is required"))
        parsed = [_provider(entry, f"{path}.providers[{j}]", kms_names, errors) for j, entry in enumerate(providers)]
        configs.append(ResourceConfig(tuple(resources), tuple(p for p in parsed if p is not None)))
    return configs


def _overlap(resources: list[str], path: str) -> list[fe.FieldError]:
    parsed = [parse_group_resource(name) for name in resources]
    duplicate = overlap = False
    for i, (group1, resource1) in enumerate(parsed):
        for j, (group2, resource2) in enumerate(parsed):
            if i == j:
                continue
            if (group1, resource1) == (group2, resource2):
                duplicate = True
            elif (group1, resource1) == ("*", "*") or (group1 == group2 and "*" in (resource1, resource2)):
                overlap = True
    errors = []
    if duplicate:
        errors.append(fe.invalid(path, resources, "the same resource cannot be specified multiple times"))
    if overlap:
        errors.append(
            fe.invalid(
                path,
                resources,
                "using overlapping resources such as 'secrets' and '*.' in the same resource list is not "
                "allowed as they will be masked",
            )
        )
    return errors


def _names(resources: list[str], path: str, profile: Profile) -> list[fe.FieldError]:
    events = profile.group("events.k8s.io")
    errors = []
    for index, name in enumerate(resources):
        at = f"{path}[{index}]"
        group, resource = parse_group_resource(name)
        if name.lower() != name:
            errors.append(fe.invalid(at, name, "resource name should not contain capital letters"))
        elif name == "*":
            errors.append(
                fe.invalid(
                    at,
                    name,
                    "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources",
                )
            )
        elif name in _NON_REST:
            errors.append(fe.invalid(at, name, "resources which do not have REST API/s cannot be encrypted"))
        elif group == events:
            errors.append(
                fe.invalid(
                    at,
                    name,
                    f"'*.{events}' objects are stored using the 'events' API group in etcd. "
                    "Use 'events' instead in the config file",
                )
            )
        elif group == "extensions":
            errors.append(fe.invalid(at, name, "'extensions' group has been removed and cannot be used for encryption"))
        elif group == "*" and resource != "*":
            errors.append(fe.invalid(at, name, "encrypting the same resource across groups is not supported"))
    return errors


def _provider(entry: Any, path: str, kms_names: set[str], errors: list[fe.FieldError]) -> Provider | None:
    entry = entry if isinstance(entry, dict) else {}
    present = [name for name in PROVIDERS if entry.get(name) is not None]
    if not present:
        errors.append(
            fe.invalid(
                path,
                fe.Rendered(json.dumps(entry, separators=(",", ":"), default=str)),
                "provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity",
            )
        )
        return None
    if len(present) > 1:
        errors.append(
            fe.invalid(
                path,
                fe.Rendered(json.dumps(entry, separators=(",", ":"), default=str)),
                "more than one provider specified in a single element, should split into different list elements",
            )
        )
        return None
    (kind,) = present
    body = entry[kind] if isinstance(entry[kind], dict) else {}
    if kind == "identity":
        return Provider("identity")
    if kind == "kms":
        kms = _kms(body, f"{path}.kms", kms_names, errors)
        return Provider("kms", kms=kms) if kms is not None else None
    sizes = SECRETBOX_KEY_SIZES if kind == "secretbox" else AES_KEY_SIZES
    keys = _keys(body.get("keys"), f"{path}.{kind}.keys", sizes, errors)
    return Provider(kind, keys=keys)


def _keys(items: Any, path: str, sizes: tuple[int, ...], errors: list[fe.FieldError]) -> tuple[Key, ...]:
    if not items or not isinstance(items, list):
        errors.append(fe.required(path, "at least one keys is required"))
        return ()
    keys = []
    for index, item in enumerate(items):
        at = f"{path}[{index}]"
        item = item if isinstance(item, dict) else {}
        name, secret = str(item.get("name") or ""), str(item.get("secret") or "")
        if not name:
            errors.append(fe.required(f"{at}.name", "name is a mandatory field for a key"))
        if not secret:
            errors.append(fe.required(f"{at}.secret", "secret is a mandatory field for a key"))
            continue
        try:
            raw = base64.b64decode(secret, validate=True)
        except (binascii.Error, ValueError):
            errors.append(fe.invalid(f"{at}.secret", "REDACTED", "secrets must be base64 encoded"))
            continue
        if len(raw) not in sizes:
            expected = "[" + " ".join(str(size) for size in sizes) + "]"
            errors.append(
                fe.invalid(
                    f"{at}.secret",
                    "REDACTED",
                    f"secret is not of the expected length, got {len(raw)}, expected one of {expected}",
                )
            )
            continue
        keys.append(Key(name, raw))
    return tuple(keys)


def _kms(body: dict[str, Any], path: str, names: set[str], errors: list[fe.FieldError]) -> Kms | None:
    before = len(errors)
    name = str(body.get("name") or "")
    api_version = str(body.get("apiVersion") or "v1")
    if not name:
        errors.append(fe.required(f"{path}.name", "name is a mandatory field for a provider"))
    if ":" in name and api_version != "v1":
        errors.append(fe.invalid(f"{path}.name", name, f"invalid KMS provider name {name}, must not contain ':'"))
    if name in names:
        errors.append(fe.invalid(f"{path}.name", name, f"duplicate KMS provider name {name}, names must be unique"))
    names.add(name)
    timeout = DEFAULT_KMS_TIMEOUT
    if body.get("timeout") is not None:
        try:
            timeout = parse_duration(str(body["timeout"]))
        except ValueError as error:
            errors.append(fe.invalid(f"{path}.timeout", str(body["timeout"]), str(error)))
        else:
            if timeout <= 0:
                errors.append(fe.invalid(f"{path}.timeout", str(body["timeout"]), "timeout should be a positive value"))
    endpoint = str(body.get("endpoint") or "")
    if not endpoint:
        errors.append(fe.invalid(f"{path}.endpoint", "", "endpoint is a mandatory field for a kms"))
    elif urlparse(endpoint).scheme != "unix":
        scheme = urlparse(endpoint).scheme
        errors.append(
            fe.invalid(
                f"{path}.endpoint",
                endpoint,
                f"unsupported scheme {json.dumps(scheme)} for KMS provider, only unix is supported",
            )
        )
    if api_version != "v1" and body.get("cachesize") is not None:
        errors.append(fe.invalid(f"{path}.cachesize", body["cachesize"], "cachesize is not supported in v2"))
    if api_version not in ("v1", "v2"):
        errors.append(
            fe.invalid(
                f"{path}.apiVersion",
                api_version,
                "unsupported apiVersion apiVersion for KMS provider, only v1 and v2 are supported",
            )
        )
    elif api_version == "v1":
        errors.append(fe.invalid(f"{path}.apiVersion", api_version, _KMS_V1))
    if len(errors) > before:
        return None
    return Kms(name, endpoint, timeout)
