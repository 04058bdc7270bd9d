"""The security settings upstream's `validatePodSpecSecurityContext` and `ValidateSecurityContext` check
beyond user and group ids: sysctls, seccomp and AppArmor profiles, proc mount type and the policy enums.
"""

from __future__ import annotations

import re
from typing import Any, Final

from svc.api.validation.engine import go_struct, items, join, lookup, text
from svc.api.validation.gates import current_pod_options
from svc.machinery.field_errors import FieldError, duplicate, forbidden, invalid, not_supported, required, too_long

SYSCTL_MAX: Final = 253
_SYSCTL_SEGMENT: Final = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_SYSCTL_PATTERN: Final = f"^({_SYSCTL_SEGMENT}[\\./])*{_SYSCTL_SEGMENT}$"
_SYSCTL_RE: Final = re.compile(_SYSCTL_PATTERN)
_SYSCTL_DETAIL: Final = f"must have at most {SYSCTL_MAX} characters and match regex {_SYSCTL_PATTERN}"
_IPC_PREFIXES: Final = ("kernel.shm", "kernel.msg", "fs.mqueue.")
PROFILE_TYPES: Final = ("Localhost", "RuntimeDefault", "Unconfined")
PROC_MOUNT_TYPES: Final = ("Default", "Unmasked")
FS_GROUP_CHANGE_POLICIES: Final = ("Always", "OnRootMismatch")
SUPPLEMENTAL_GROUPS_POLICIES: Final = ("Merge", "Strict")
SELINUX_CHANGE_POLICIES: Final = ("MountOption", "Recursive")
RECURSIVE_ONLY: Final = ("Recursive",)
_MAX_LOCALHOST_PROFILE: Final = 4095


def local_descending_path_errors(target: str, path: str) -> list[FieldError]:
    """Upstream's `validateLocalDescendingPath`: relative, and never stepping up with `..`."""
    errors = [invalid(path, target, "must be a relative path")] if target.startswith("/") else []
    if ".." in target.replace("\\", "/").split("/"):
        errors.append(invalid(path, target, "must not contain '..'"))
    return errors


def seccomp_profile_errors(context: Any, base: str) -> list[FieldError]:
    """Upstream's `validateSeccompProfileField` for `<context>.seccompProfile`."""
    profile = lookup(context, "seccompProfile")
    if type(profile) is not dict:
        return []
    path = join(base, "seccompProfile")
    kind, localhost = text(profile, "type"), profile.get("localhostProfile")
    errors: list[FieldError] = []
    if not kind:
        errors.append(required(f"{path}.type", "type is required when seccompProfile is set"))
    elif kind not in PROFILE_TYPES:
        errors.append(not_supported(f"{path}.type", kind, PROFILE_TYPES))
    if kind == "Localhost":
        if localhost is None:
            errors.append(required(f"{path}.localhostProfile", "must be set when seccomp type is Localhost"))
        elif isinstance(localhost, str):
            errors += local_descending_path_errors(localhost, f"{path}.localhostProfile")
    elif localhost is not None:
        shown = go_struct(profile, ("type", "localhostProfile"), {"type": ""})
        errors.append(invalid(f"{path}.localhostProfile", shown, "can only be set when seccomp type is Localhost"))
    return errors


def app_armor_profile_errors(context: Any, base: str) -> list[FieldError]:
    """Upstream's `ValidateAppArmorProfileField` for `<context>.appArmorProfile`."""
    profile = lookup(context, "appArmorProfile")
    if type(profile) is not dict:
        return []
    path = join(base, "appArmorProfile")
    kind, localhost = text(profile, "type"), profile.get("localhostProfile")
    where = f"{path}.localhostProfile"
    if kind == "Localhost":
        if not isinstance(localhost, str):
            return [required(where, "must be set when AppArmor type is Localhost")]
        errors: list[FieldError] = []
        if localhost.strip() != localhost:
            errors.append(invalid(where, localhost, "must not be padded with whitespace"))
        elif not localhost:
            errors.append(required(where, "must be set when AppArmor type is Localhost"))
        if len(localhost.encode()) > _MAX_LOCALHOST_PROFILE:
            errors.append(too_long(where, _MAX_LOCALHOST_PROFILE))
        return errors
    if kind in ("RuntimeDefault", "Unconfined"):
        return (
            [invalid(where, localhost, "can only be set when AppArmor type is Localhost")]
            if localhost is not None
            else []
        )
    if not kind:
        return [required(f"{path}.type", "type is required when appArmorProfile is set")]
    return [not_supported(f"{path}.type", kind, PROFILE_TYPES)]


def _sysctl_namespace(name: str) -> str:
    """Upstream's `sysctl.GetNamespace`: which host namespace a namespaced sysctl belongs to."""
    if name == "kernel.sem" or name.startswith(_IPC_PREFIXES):
        return "ipc"
    return "net" if name.startswith("net.") else ""


def _sysctls(spec: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, sysctl in enumerate(items(lookup(spec, "securityContext.sysctls"))):
        where = f"{path}[{index}].name"
        name = text(sysctl, "name")
        if not name:
            errors.append(required(where))
        elif len(name) > SYSCTL_MAX or not _SYSCTL_RE.match(name):
            errors.append(invalid(where, name, _SYSCTL_DETAIL))
        elif name in seen:
            errors.append(duplicate(where, name))
        namespace = _sysctl_namespace(name)
        if namespace == "net" and lookup(spec, "hostNetwork") is True:
            errors.append(invalid(where, name, "may not be specified when 'hostNetwork' is true"))
        elif namespace == "ipc" and lookup(spec, "hostIPC") is True:
            errors.append(invalid(where, name, "may not be specified when 'hostIPC' is true"))
        seen.add(name)
    return errors


def _policy(context: Any, base: str, key: str, values: tuple[str, ...]) -> list[FieldError]:
    value = lookup(context, key)
    return [not_supported(join(base, key), value, values)] if value is not None and value not in values else []


def pod_security_errors(spec: Any, base: str) -> list[FieldError]:
    """The pod security context's rules after its ids (which its table checks): they need the spec's host flags."""
    context = lookup(spec, "securityContext")
    shared_pid = lookup(spec, "shareProcessNamespace") is True and lookup(spec, "hostPID") is True
    if type(context) is not dict or (not context and not shared_pid):
        return []
    path = join(base, "securityContext")
    errors: list[FieldError] = []
    if shared_pid:
        detail = "ShareProcessNamespace and HostPID cannot both be enabled"
        errors.append(invalid(f"{path}.shareProcessNamespace", True, detail))
    errors += _sysctls(spec, f"{path}.sysctls")
    errors += _policy(context, path, "fsGroupChangePolicy", FS_GROUP_CHANGE_POLICIES)
    errors += seccomp_profile_errors(context, path)
    errors += app_armor_profile_errors(context, path)
    errors += _policy(context, path, "supplementalGroupsPolicy", SUPPLEMENTAL_GROUPS_POLICIES)
    only_recursive = current_pod_options().only_recursive_selinux_change_policy
    policies = RECURSIVE_ONLY if only_recursive else SELINUX_CHANGE_POLICIES
    return errors + _policy(context, path, "seLinuxChangePolicy", policies)


def proc_mount_errors(context: Any, base: str) -> list[FieldError]:
    """Upstream's `ValidateProcMountType`."""
    return _policy(context, base, "procMount", PROC_MOUNT_TYPES)


def host_users_errors(spec: Any, base: str) -> list[FieldError]:
    """Upstream's `validateHostUsers`: a pod in its own user namespace shares no other namespace with the host.

    Upstream names two of the paths with capitals (`HostPID`, `HostIPC`); so does this.
    """
    if lookup(spec, "hostUsers") is not False:
        return []
    detail = "when `pod.Spec.HostUsers` is false"
    flags = (("hostNetwork", "hostNetwork"), ("hostPID", "HostPID"), ("hostIPC", "HostIPC"))
    return [forbidden(join(base, shown), detail) for key, shown in flags if lookup(spec, key) is True]


def unmasked_proc_mount_errors(container: Any, base: str, *, host_users: bool) -> list[FieldError]:
    """An unmasked /proc is only offered to containers in their own user namespace (`hostUsers: false`)."""
    context = container.get("securityContext") if type(container) is dict else None
    if not host_users or type(context) is not dict or context.get("procMount") != "Unmasked":
        return []
    return [invalid(f"{base}.securityContext.procMount", "Unmasked", "`hostUsers` must be false to use `Unmasked`")]
