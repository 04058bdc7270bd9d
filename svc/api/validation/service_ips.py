"""A Service's linked address fields, as upstream's `ValidateServiceClusterIPsRelatedFields` and the
upgrade/downgrade rules of `ValidateServiceUpdate`.

`clusterIP` and `clusterIPs` agree (the first of the list is the single one), `clusterIPs` holds at most
one address per family (or a lone `None`), `ipFamilies` are known and unique, the policy is one of three,
and each address is of the family listed at its index. On update the primary address and family never
change; a secondary one may be added, or released only by saying `SingleStack`. ExternalName services
have none of these fields. The allocator runs the same related-fields check before it allocates, as
upstream's does, so a bad request is refused before any address is taken.
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.addresses import ip_errors
from svc.api.validation.engine import items, lookup, mapping, text
from svc.machinery.field_errors import FieldError, duplicate, forbidden, invalid, not_supported, required

FAMILIES: Final = ("IPv4", "IPv6")
POLICIES: Final = ("PreferDualStack", "RequireDualStack", "SingleStack")
_CHANGED: Final = "may not change once set"


def _headless(spec: Any) -> bool:
    return items(lookup(spec, "clusterIPs")) == ["None"]


def family_of(ip: str) -> str:
    return "IPv6" if ":" in ip else "IPv4"


def external_name_errors(spec: Any) -> list[FieldError]:
    """An ExternalName service has no cluster IPs, families or family policy."""
    errors: list[FieldError] = []
    if items(lookup(spec, "clusterIPs")):
        errors.append(forbidden("spec.clusterIPs", "may not be set for ExternalName services"))
    if items(lookup(spec, "ipFamilies")):
        errors.append(forbidden("spec.ipFamilies", "may not be set for ExternalName services"))
    if lookup(spec, "ipFamilyPolicy") is not None:
        errors.append(forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"))
    return errors


def _single_and_list(spec: Any, ips: list[Any]) -> list[FieldError]:
    single = text(spec, "clusterIP")
    if single:
        if not ips:
            return [required("spec.clusterIPs")]
        if ips[0] != single:
            return [invalid("spec.clusterIPs", ips, "first value must match `clusterIP`")]
    elif ips:
        return [invalid("spec.clusterIPs", ips, "must be empty when `clusterIP` is not specified")]
    return []


def cluster_ips_related_errors(spec: Any) -> list[FieldError]:
    """Upstream's `ValidateServiceClusterIPsRelatedFields` (nothing for ExternalName services)."""
    if lookup(spec, "type") == "ExternalName":
        return []
    ips = items(lookup(spec, "clusterIPs"))
    errors = _single_and_list(spec, ips)
    seen: set[Any] = set()
    families = items(lookup(spec, "ipFamilies"))
    for index, family in enumerate(families):
        if family not in FAMILIES:
            errors.append(not_supported(f"spec.ipFamilies[{index}]", family, FAMILIES))
        if family in seen:
            errors.append(duplicate(f"spec.ipFamilies[{index}]", family))
        seen.add(family)
    policy = lookup(spec, "ipFamilyPolicy")
    if policy is not None and policy not in POLICIES:
        errors.append(not_supported("spec.ipFamilyPolicy", policy, POLICIES))
    bad_ips = False
    for index, ip in enumerate(ips):
        if index == 0 and ip == "None":
            if len(ips) > 1:
                bad_ips = True
                errors.append(invalid("spec.clusterIPs", ips, "'None' must be the first and only value"))
            continue
        messages = ip_errors(ip if isinstance(ip, str) else "")
        bad_ips = bad_ips or bool(messages)
        errors += [invalid(f"spec.clusterIPs[{index}]", ip, message) for message in messages]
    if len(ips) > 2:
        errors.append(invalid("spec.clusterIPs", ips, "may only hold up to 2 values"))
    if bad_ips:
        return errors
    if len(ips) > 1 and len({family_of(ip) for ip in ips}) != len(ips):
        errors.append(invalid("spec.clusterIPs", ips, "may specify no more than one IP for each IP family"))
    if not _headless(spec) and ips and families:
        for index, (ip, family) in enumerate(zip(ips, families, strict=False)):
            if family in FAMILIES and family_of(ip) != family:
                detail = f"expected an {family} value as indicated by `ipFamilies[{index}]`"
                errors.append(invalid(f"spec.clusterIPs[{index}]", ip, detail))
    return errors


def _upgrade_downgrade_ips(spec: Any, old_spec: Any) -> list[FieldError]:
    if _headless(spec) and _headless(old_spec):
        return []
    ips, old_ips = items(lookup(spec, "clusterIPs")), items(lookup(old_spec, "clusterIPs"))
    if len(ips) == len(old_ips):
        return [invalid(f"spec.clusterIPs[{i}]", ips, _CHANGED) for i, ip in enumerate(old_ips) if ip != ips[i]]
    errors: list[FieldError] = []
    if len(old_ips) > len(ips):
        if not ips:
            errors.append(invalid("spec.clusterIPs[0]", ips, "primary clusterIP can not be unset"))
        elif ips[0] != old_ips[0]:
            errors.append(invalid("spec.clusterIPs[0]", ips, _CHANGED))
        if len(ips) == 1 and lookup(spec, "ipFamilyPolicy") != "SingleStack":
            detail = "must be set to 'SingleStack' when releasing the secondary clusterIP"
            errors.append(invalid("spec.ipFamilyPolicy", lookup(spec, "ipFamilyPolicy"), detail))
    elif old_ips and ips[0] != old_ips[0]:
        errors.append(invalid("spec.clusterIPs[0]", ips, _CHANGED))
    return errors


def _upgrade_downgrade_families(spec: Any, old_spec: Any) -> list[FieldError]:
    if _headless(spec) or _headless(old_spec):
        return []
    families, old_families = items(lookup(spec, "ipFamilies")), items(lookup(old_spec, "ipFamilies"))
    ips = items(lookup(spec, "clusterIPs"))
    if len(families) == len(old_families):
        changed = sum(1 for i, family in enumerate(old_families) if family != families[i])
        return [invalid("spec.ipFamilies[0]", families, _CHANGED)] * changed
    errors: list[FieldError] = []
    if len(old_families) > len(families):
        if not ips:
            errors.append(invalid("spec.ipFamilies[0]", families, "primary ipFamily can not be unset"))
        if families and families[0] != old_families[0]:
            errors.append(invalid("spec.ipFamilies[0]", ips, _CHANGED))
        if len(families) == 1 and lookup(spec, "ipFamilyPolicy") != "SingleStack":
            detail = "must be set to 'SingleStack' when releasing the secondary ipFamily"
            errors.append(invalid("spec.ipFamilyPolicy", lookup(spec, "ipFamilyPolicy"), detail))
    elif old_families and families and families[0] != old_families[0]:
        errors.append(invalid("spec.ipFamilies[0]", ips, _CHANGED))
    return errors


def upgrade_downgrade_errors(new: Any, old: Any, _: str) -> list[FieldError]:
    """Upstream's `validateUpgradeDowngradeClusterIPs` and `validateUpgradeDowngradeIPFamilies`."""
    spec, old_spec = mapping(new, "spec"), mapping(old, "spec")
    if "ExternalName" in (spec.get("type"), old_spec.get("type")):
        return []
    return _upgrade_downgrade_ips(spec, old_spec) + _upgrade_downgrade_families(spec, old_spec)
