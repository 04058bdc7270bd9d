"""IP address checks with upstream's texts (`IsValidIPForLegacyField` with strict validation on, and
`ValidateNonSpecialIP`), for the address fields of Endpoints, Services and Nodes.

Go parses IPv4 octets with leading zeros ("sloppily") and then refuses them in strict mode with a
message of their own; Python's parser refuses them outright, so the sloppy form is recognised here.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Collection
from typing import Final

from svc.machinery.field_errors import FieldError
from svc.machinery.gotext import quote

_SLOPPY_IPV4: Final = re.compile(r"[0-9]{1,3}(\.[0-9]{1,3}){3}")
_LINK_LOCAL_MULTICAST_V4: Final = ipaddress.ip_network("224.0.0.0/24")
_LINK_LOCAL_MULTICAST_V6: Final = ipaddress.ip_network("ff02::/16")
INVALID_IP: Final = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _sloppy_ipv4(value: str) -> Address | None:
    if not _SLOPPY_IPV4.fullmatch(value):
        return None
    octets = [int(part) for part in value.split(".")]
    return ipaddress.IPv4Address(".".join(map(str, octets))) if all(octet < 256 for octet in octets) else None


def parse_ip(value: str) -> Address | None:
    """The address Go's sloppy parser reads from `value`, or None (zones and CIDRs are not addresses)."""
    if "%" in value:
        return None
    try:
        return ipaddress.ip_address(value)
    except ValueError:
        return _sloppy_ipv4(value)


def ip_errors(value: str, accepted: Collection[str] = ()) -> list[str]:
    """Upstream's `IsValidIPForLegacyField(..., strictValidation=true, validOldIPs)` messages: an address
    in `accepted` (the stored object already lists it) is checked as leniently as when it was written."""
    address = parse_ip(value)
    if address is None:
        return [INVALID_IP]
    if value in accepted:
        return []
    errors = []
    try:
        ipaddress.ip_address(value)
    except ValueError:
        errors.append("must not have leading 0s")
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        errors.append("must not be an IPv4-mapped IPv6 address")
    return errors


def special_ip_errors(value: str) -> list[str]:
    """Upstream's `ValidateNonSpecialIP`: endpoints and external IPs may not be local-only addresses."""
    address = parse_ip(value)
    if address is None:
        return ["must be a valid IP address"]
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    errors = []
    if address.is_unspecified:
        errors.append(f"may not be unspecified ({value})")
    if address.is_loopback:
        errors.append("may not be in the loopback range (127.0.0.0/8, ::1/128)")
    if address.is_link_local:
        errors.append("may not be in the link-local range (169.254.0.0/16, fe80::/10)")
    multicast = _LINK_LOCAL_MULTICAST_V4 if address.version == 4 else _LINK_LOCAL_MULTICAST_V6
    if address in multicast:
        errors.append("may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)")
    return errors


INVALID_CIDR: Final = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"


def cidr_errors(value: str) -> list[str]:
    """Upstream's `IsValidCIDR`: a subnet in canonical form, without leading zeros or host bits."""
    address_text, slash, length = value.partition("/")
    address = parse_ip(address_text)
    if not slash or address is None or not length.isdigit() or int(length) > address.max_prefixlen:
        return [INVALID_CIDR]
    if ip_errors(address_text) or (len(length) > 1 and length.startswith("0")):
        return ["must not have leading 0s in IP or prefix length"]
    network = ipaddress.ip_network(f"{address}/{int(length)}", strict=False)
    if network.network_address != address:
        return ["must not have bits set beyond the prefix length"]
    return [] if str(network) == value else [f"must be in canonical form ({quote(str(network))})"]


INVALID_INTERFACE_ADDRESS: Final = "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)"


def interface_address_errors(value: str) -> list[str]:
    """Upstream's `IsValidInterfaceAddress`: an address with its prefix length ("192.168.1.5/24"), in
    the canonical form Go prints it in (an IPv4-mapped address is written as IPv4)."""
    address_text, slash, length = value.partition("/")
    address = parse_ip(address_text)
    if not slash or address is None or not length.isdigit() or int(length) > address.max_prefixlen:
        return [INVALID_INTERFACE_ADDRESS]
    prefix = int(length)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
        if prefix > 32:
            prefix -= 96
    canonical = f"{address}/{prefix}"
    return [] if canonical == value else [f"must be in canonical form ({quote(canonical)})"]


# What strict validation (StrictIPCIDRValidation, on since 1.34) adds to the legacy IP and CIDR checks.
_STRICT_ONLY: Final = frozenset(
    {
        "must not have leading 0s",
        "must not be an IPv4-mapped IPv6 address",
        "must not have leading 0s in IP or prefix length",
        "must not have an IPv4-mapped IPv6 address",
        "must not have bits set beyond the prefix length",
    }
)
_INDEX: Final = re.compile(r"\[\d+\]")


def kept_address(error: FieldError) -> tuple[str, str] | None:
    """Upstream checks an address the stored object already lists in the same field as it was
    accepted then (`validOldIPs`, `validOldCIDRs`): the key of a strict-only error, by field (list
    positions aside) and value."""
    if error.detail not in _STRICT_ONLY or not isinstance(error.bad_value, str):
        return None
    return _INDEX.sub("[]", error.field), error.bad_value
