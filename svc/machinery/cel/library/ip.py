"""The `ip` and `cidr` libraries (`net.IP`, `net.CIDR`) on Python's `ipaddress`.

As upstream: zones and IPv4-mapped IPv6 addresses are refused, `string()` gives the canonical
form, and `containsIP`/`containsCIDR` accept either parsed values or strings.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from typing import Any, Final

from svc.machinery.cel.values import CelError, CelType, NoSuchOverload, register_type

IP_TYPE: Final = CelType("net.IP")
CIDR_TYPE: Final = CelType("net.CIDR")
Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Interface | ipaddress.IPv6Interface


class IP:
    __slots__ = ("address",)
    cel_type = IP_TYPE

    def __init__(self, address: Address) -> None:
        self.address = address

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IP) and other.address == self.address

    def __hash__(self) -> int:
        return hash(self.address)

    def cel_string(self) -> str:
        return str(self.address)


class CIDR:
    __slots__ = ("interface",)
    cel_type = CIDR_TYPE

    def __init__(self, interface: Network) -> None:
        self.interface = interface

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CIDR) and other.interface == self.interface

    def __hash__(self) -> int:
        return hash(self.interface)

    def cel_string(self) -> str:
        return str(self.interface)


register_type(IP, IP_TYPE)
register_type(CIDR, CIDR_TYPE)


def _parse_address(text: str) -> Address:
    if "%" in text:
        raise CelError("IP Address with zone value is not allowed")
    try:
        address = ipaddress.ip_address(text)
    except ValueError as err:
        raise CelError(f"IP Address '{text}' parse error during conversion from string: {err}") from err
    if address.version == 6 and address.ipv4_mapped is not None:
        raise CelError("IPv4-mapped IPv6 address is not allowed")
    return address


def _parse_network(text: str) -> Network:
    address, slash, prefix = text.partition("/")
    if not slash or not prefix.isdigit():
        raise CelError(f"network address parse error during conversion from string: invalid CIDR {text!r}")
    _parse_address(address)
    try:
        return ipaddress.ip_interface(text)
    except ValueError as err:
        raise CelError(f"network address parse error during conversion from string: {err}") from err


def to_ip(value: Any) -> IP:
    if type(value) is CIDR:
        return IP(value.interface.ip)
    if type(value) is not str:
        raise NoSuchOverload("ip")
    return IP(_parse_address(value))


def is_ip(value: Any) -> bool:
    if type(value) is not str:
        raise NoSuchOverload("isIP")
    try:
        _parse_address(value)
    except CelError:
        return False
    return True


def is_canonical(value: Any) -> bool:
    if type(value) is not str:
        raise NoSuchOverload("ip.isCanonical")
    return str(_parse_address(value)) == value


def _ip(name: str, value: Any) -> Address:
    if type(value) is not IP:
        raise NoSuchOverload(name)
    return value.address


def family(value: Any) -> int:
    return _ip("family", value).version


def is_global_unicast(value: Any) -> bool:
    """Go's `IsGlobalUnicast`: not unspecified, loopback, multicast, link-local or broadcast."""
    address = _ip("isGlobalUnicast", value)
    if address.version == 4 and address == ipaddress.IPv4Address("255.255.255.255"):
        return False
    return not (address.is_unspecified or address.is_loopback or address.is_multicast or address.is_link_local)


def is_link_local_multicast(value: Any) -> bool:
    address = _ip("isLinkLocalMulticast", value)
    if address.version == 4:
        return address in ipaddress.IPv4Network("224.0.0.0/24")
    return address in ipaddress.IPv6Network("ff02::/16")


def to_cidr(value: Any) -> CIDR:
    if type(value) is not str:
        raise NoSuchOverload("cidr")
    return CIDR(_parse_network(value))


def is_cidr(value: Any) -> bool:
    if type(value) is not str:
        raise NoSuchOverload("isCIDR")
    try:
        _parse_network(value)
    except CelError:
        return False
    return True


def _cidr(name: str, value: Any) -> Network:
    if type(value) is not CIDR:
        raise NoSuchOverload(name)
    return value.interface


def contains_ip(value: Any, other: Any) -> bool:
    network = _cidr("containsIP", value).network
    address = _parse_address(other) if type(other) is str else _ip("containsIP", other)
    return address.version == network.version and address in network


def contains_cidr(value: Any, other: Any) -> bool:
    network = _cidr("containsCIDR", value).network
    inner = (_parse_network(other) if type(other) is str else _cidr("containsCIDR", other)).network
    return inner.version == network.version and inner.subnet_of(network)


def masked(value: Any) -> CIDR:
    network = _cidr("masked", value).network
    return CIDR(ipaddress.ip_interface(str(network)))


def prefix_length(value: Any) -> int:
    return _cidr("prefixLength", value).network.prefixlen


FUNCTIONS: Final[dict[str, Callable[..., Any]]] = {
    "ip": to_ip,
    "isIP": is_ip,
    "ip.isCanonical": is_canonical,
    "family": family,
    "isUnspecified": lambda v: _ip("isUnspecified", v).is_unspecified,
    "isLoopback": lambda v: _ip("isLoopback", v).is_loopback,
    "isLinkLocalMulticast": is_link_local_multicast,
    "isLinkLocalUnicast": lambda v: _ip("isLinkLocalUnicast", v).is_link_local,
    "isGlobalUnicast": is_global_unicast,
    "cidr": to_cidr,
    "isCIDR": is_cidr,
    "containsIP": contains_ip,
    "containsCIDR": contains_cidr,
    "masked": masked,
    "prefixLength": prefix_length,
}
