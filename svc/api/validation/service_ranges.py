"""ServiceCIDR and IPAddress (networking.k8s.io), as upstream's `pkg/apis/networking/validation`.

An IPAddress is named by its address in canonical form (so its name is not a DNS subdomain: the
strategy checks the name with `ip_address_name_errors`); a ServiceCIDR holds one or two CIDRs, one per
IP family, and may only grow from one to two (single to dual stack) on update.
"""

from __future__ import annotations

import ipaddress
from typing import Any, Final

from svc.api.validation.addresses import cidr_errors
from svc.api.validation.engine import Check, Immutable, KindRules, UpdateCheck, go_struct, items, lookup, mapping, text
from svc.machinery.field_errors import FieldError, invalid, required
from svc.machinery.gotext import quote
from svc.machinery.validation import is_dns1123_subdomain, is_valid_path_segment_name

_ONE_PER_FAMILY: Final = "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64"
_IMMUTABLE: Final = "field is immutable"


def ip_address_name_errors(name: str, _prefix: bool) -> list[str]:
    """Upstream's `ValidateIPAddressName`: Go's `netip.ParseAddr` must read it, and print it back unchanged."""
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return [f"ParseAddr({quote(name)}): unable to parse IP"]
    return [] if str(address) == name else ["must be a canonical format IP address"]


def _is_ipv6_cidr(value: str) -> bool:
    return ":" in value


def _service_cidr(obj: Any, _: str) -> list[FieldError]:
    cidrs = items(lookup(obj, "spec.cidrs"))
    if not cidrs:
        return [required("spec.cidrs", "at least one CIDR required")]
    if len(cidrs) > 2:
        return [
            invalid("spec.cidrs", go_struct(mapping(obj, "spec"), ("cidrs=CIDRs",)), "may only hold up to 2 values")
        ]
    errors: list[FieldError] = []
    for index, cidr in enumerate(cidrs):
        errors += [invalid(f"spec.cidrs[{index}]", cidr, message) for message in cidr_errors(str(cidr))]
    if len(cidrs) == 2 and _is_ipv6_cidr(str(cidrs[0])) == _is_ipv6_cidr(str(cidrs[1])):
        errors.append(invalid("spec.cidrs", cidrs, _ONE_PER_FAMILY))
    return errors


def _service_cidr_update(new: Any, old: Any, _: str) -> list[FieldError]:
    """Existing CIDRs never change; one CIDR may gain a second of the other family."""
    new_cidrs, old_cidrs = items(lookup(new, "spec.cidrs")), items(lookup(old, "spec.cidrs"))
    if len(new_cidrs) == len(old_cidrs) or (len(old_cidrs) == 1 and len(new_cidrs) == 2):
        return [
            invalid(f"spec.cidrs[{index}]", new_cidrs[index], _IMMUTABLE)
            for index, cidr in enumerate(old_cidrs)
            if new_cidrs[index] != cidr
        ]
    return [invalid("spec.cidrs", new_cidrs, _IMMUTABLE)]


SERVICE_CIDR = KindRules(create=(Check(_service_cidr),), update=(UpdateCheck(_service_cidr_update),))


def _segment(ref: dict[str, Any], key: str, path: str, *, optional: bool) -> list[FieldError]:
    value = text(ref, key)
    if not value:
        return [] if optional else [required(f"{path}.{key}")]
    return [invalid(f"{path}.{key}", value, message) for message in is_valid_path_segment_name(value)]


def _parent_ref(obj: Any, _: str) -> list[FieldError]:
    ref = lookup(obj, "spec.parentRef")
    if type(ref) is not dict:
        return [required("spec.parentRef")]
    path = "spec.parentRef"
    group = text(ref, "group")
    errors = [invalid(f"{path}.group", group, message) for message in is_dns1123_subdomain(group)] if group else []
    errors += _segment(ref, "resource", path, optional=False)
    errors += _segment(ref, "namespace", path, optional=True)
    errors += _segment(ref, "name", path, optional=False)
    return errors


_PARENT_MEMBERS: Final = ("group", "resource", "namespace", "name")


def _render_parent(ref: Any) -> Any:
    return go_struct(ref, _PARENT_MEMBERS, zero=dict.fromkeys(_PARENT_MEMBERS, ""))


IP_ADDRESS = KindRules(
    create=(Check(_parent_ref),),
    update=(Immutable("spec.parentRef", render=_render_parent),),
)

RULES: Final[dict[tuple[str, str], KindRules]] = {
    ("networking.k8s.io", "ServiceCIDR"): SERVICE_CIDR,
    ("networking.k8s.io", "IPAddress"): IP_ADDRESS,
}
