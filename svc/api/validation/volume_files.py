"""Volumes that write files into the pod (secret, configMap, downwardAPI, projected), as upstream's
`validateSecretVolumeSource`, `validateConfigMapVolumeSource`, `validateDownwardAPIVolumeSource` and
`validateProjectedVolumeSource`: file paths relative and without `..`, modes within 0777, each
projected source of one kind, no two projected files on one path.

Upstream reports some errors at paths of its own making, kept here: a downward API file's at the
volume source (`downwardAPI.path`, not the item's), a token's path at the projection
(`projected.path`), a duplicate path at the projection with the source's name as value.
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.engine import items, lookup, text
from svc.machinery.field_errors import FieldError, forbidden, invalid, required

FILE_MODE: Final = "must be a number between 0 and 0777 (octal), both inclusive"
_TEN_MINUTES: Final = 600
_MAX_EXPIRATION: Final = 1 << 32
_PROJECTED_KINDS: Final = ("secret", "configMap", "downwardAPI", "serviceAccountToken", "clusterTrustBundle")


def _mode(node: Any, key: str, path: str) -> list[FieldError]:
    mode = lookup(node, key)
    if isinstance(mode, int) and not isinstance(mode, bool) and not 0 <= mode <= 0o777:
        return [invalid(f"{path}.{key}", mode, FILE_MODE)]
    return []


LOCAL_PATH_DETAILS: Final = ("must be a relative path", "must not contain '..'", "must not start with '..'")


def local_path_errors(value: str, path: str) -> list[FieldError]:
    """Upstream's `ValidateLocalNonReservedPath`: relative, no `..` element, not starting with `..`."""
    relative, no_backsteps, no_dots = LOCAL_PATH_DETAILS
    errors = [invalid(path, value, relative)] if value.startswith("/") else []
    if ".." in value.split("/"):
        errors.append(invalid(path, value, no_backsteps))
    elif value.startswith(".."):
        errors.append(invalid(path, value, no_dots))
    return errors


def _key_to_path(item: Any, path: str) -> list[FieldError]:
    errors = [] if text(item, "key") else [required(f"{path}.key")]
    file_path = text(item, "path")
    if not file_path:
        errors.append(required(f"{path}.path"))
    return errors + local_path_errors(file_path, f"{path}.path") + _mode(item, "mode", path)


def _keyed_items(source: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for index, item in enumerate(items(lookup(source, "items"))):
        errors += _key_to_path(item, f"{path}.items[{index}]")
    return errors


def _downward_file(item: Any, path: str) -> list[FieldError]:
    """Upstream's `validateDownwardAPIVolumeFile` (which field a reference may name is left to the kubelet here)."""
    file_path = text(item, "path")
    errors = [] if file_path else [required(f"{path}.path")]
    errors += local_path_errors(file_path, f"{path}.path")
    field_ref, resource_ref = lookup(item, "fieldRef"), lookup(item, "resourceFieldRef")
    if field_ref is not None and resource_ref is not None:
        errors.append(invalid(path, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"))
    elif field_ref is None and resource_ref is None:
        errors.append(required(path, "one of fieldRef and resourceFieldRef is required"))
    return errors + _mode(item, "mode", path)


def secret_volume_errors(volume: Any, path: str) -> list[FieldError]:
    source, where = lookup(volume, "secret"), f"{path}.secret"
    errors = [] if text(source, "secretName") else [required(f"{where}.secretName")]
    return errors + _mode(source, "defaultMode", where) + _keyed_items(source, where)


def config_map_volume_errors(volume: Any, path: str) -> list[FieldError]:
    source, where = lookup(volume, "configMap"), f"{path}.configMap"
    errors = [] if text(source, "name") else [required(f"{where}.name")]
    return errors + _mode(source, "defaultMode", where) + _keyed_items(source, where)


def downward_api_volume_errors(volume: Any, path: str) -> list[FieldError]:
    source, where = lookup(volume, "downwardAPI"), f"{path}.downwardAPI"
    errors = _mode(source, "defaultMode", where)
    for item in items(lookup(source, "items")):
        errors += _downward_file(item, where)
    return errors


def _token(token: Any, path: str, where: str) -> list[FieldError]:
    errors: list[FieldError] = []
    seconds = lookup(token, "expirationSeconds")
    if isinstance(seconds, int) and seconds < _TEN_MINUTES:
        detail = "may not specify a duration less than 10 minutes"
        errors.append(invalid(f"{where}.expirationSeconds", seconds, detail))
    if isinstance(seconds, int) and seconds > _MAX_EXPIRATION:
        detail = "may not specify a duration larger than 2^32 seconds"
        errors.append(invalid(f"{where}.expirationSeconds", seconds, detail))
    token_path = text(token, "path")
    if not token_path:
        return [*errors, required(f"{path}.path")]
    return errors + local_path_errors(token_path, f"{path}.path")


def _trust_bundle(bundle: Any, where: str) -> list[FieldError]:
    errors: list[FieldError] = []
    name, signer = lookup(bundle, "name"), lookup(bundle, "signerName")
    if name is not None and signer is not None:
        errors.append(invalid(where, bundle, "only one of name and signerName may be used"))
    elif name is None and signer is None:
        errors.append(required(where, "either name or signerName must be specified"))
    bundle_path = text(bundle, "path")
    if not bundle_path:
        errors.append(required(f"{where}.path"))
    return errors + local_path_errors(bundle_path, f"{where}.path")


def _claim_path(paths: set[str], value: str, path: str, shown: Any) -> list[FieldError]:
    if value in paths:
        return [invalid(path, shown, "conflicting duplicate paths")]
    paths.add(value)
    return []


def projected_volume_errors(volume: Any, path: str) -> list[FieldError]:
    projection, where = lookup(volume, "projected"), f"{path}.projected"
    errors = _mode(projection, "defaultMode", where)
    paths: set[str] = set()
    for index, source in enumerate(items(lookup(projection, "sources"))):
        source_path = f"{where}.sources[{index}]"
        for kind in ("secret", "configMap"):
            keyed = lookup(source, kind)
            if keyed is None:
                continue
            kind_path = f"{source_path}.{kind}"
            errors += [] if text(keyed, "name") else [required(f"{kind_path}.name")]
            for item_index, item in enumerate(items(lookup(keyed, "items"))):
                errors += _key_to_path(item, f"{kind_path}.items[{item_index}]")
                if text(item, "path"):
                    errors += _claim_path(paths, text(item, "path"), where, text(keyed, "name"))
        downward = lookup(source, "downwardAPI")
        for item in items(lookup(downward, "items")):
            errors += _downward_file(item, f"{source_path}.downwardAPI")
            if text(item, "path"):
                errors += _claim_path(paths, text(item, "path"), where, text(item, "path"))
        token = lookup(source, "serviceAccountToken")
        if token is not None:
            errors += _token(token, where, f"{source_path}.serviceAccountToken")
        bundle = lookup(source, "clusterTrustBundle")
        if bundle is not None:
            errors += _trust_bundle(bundle, f"{source_path}.clusterTrustBundle")
            errors += _claim_path(paths, text(bundle, "path"), where, text(bundle, "path"))
        if sum(lookup(source, kind) is not None for kind in _PROJECTED_KINDS) > 1:
            errors.append(forbidden(source_path, "may not specify more than 1 volume type per source"))
    return errors
