"""What a Service holds and gives back: its cluster IPs, node ports and health-check node port.

Upstream's service REST storage (`alloc.go`): values the client asks for are checked (in the range, not
taken) and held; missing ones are allocated; an update keeps what the old object held when the client
leaves it out (a PUT without `clusterIP` keeps the IP); a change of type gives back what the new type
does not use; and everything goes back when the Service is deleted or its write fails. IP families
and their policy are settled here too, because they decide which ranges the IPs come from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from svc.api.validation.service_ips import cluster_ips_related_errors, family_of
from svc.machinery import status
from svc.machinery.field_errors import FieldError, aggregate_message, duplicate, forbidden, invalid
from svc.registry.hooks import Finish
from svc.registry.services.cluster_ips import AllocationError, ClusterIPs
from svc.registry.services.node_ports import NodePorts

Obj = dict[str, Any]
_DUAL = ("PreferDualStack", "RequireDualStack")


@dataclass
class _Held:
    ips: list[str] = field(default_factory=list)
    ports: list[int] = field(default_factory=list)


def _type(spec: Obj) -> str:
    return spec.get("type") or "ClusterIP"


def _needs_node_ports(spec: Obj) -> bool:
    kind = _type(spec)
    return kind == "NodePort" or (
        kind == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts", True) is not False
    )


def _needs_health_check_port(spec: Obj) -> bool:
    return _type(spec) == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local"


def held_by(spec: Obj) -> _Held:
    ips = [ip for ip in spec.get("clusterIPs") or [spec.get("clusterIP")] if ip and ip != "None"]
    ports = [port["nodePort"] for port in spec.get("ports") or [] if isinstance(port.get("nodePort"), int)]
    if isinstance(spec.get("healthCheckNodePort"), int) and spec["healthCheckNodePort"]:
        ports.append(spec["healthCheckNodePort"])
    return _Held(ips, ports)


def _carry_over(spec: Obj, old_spec: Obj) -> None:
    """Values the old object held that the new one leaves out stay, where the new type uses them."""
    both_have_ips = "ExternalName" not in (_type(spec), _type(old_spec))
    if both_have_ips and not spec.get("clusterIP") and not spec.get("clusterIPs") and old_spec.get("clusterIPs"):
        spec["clusterIP"], spec["clusterIPs"] = old_spec.get("clusterIP"), list(old_spec["clusterIPs"])
        for name in ("ipFamilies", "ipFamilyPolicy"):
            if not spec.get(name) and old_spec.get(name):
                spec[name] = old_spec[name]
    if _needs_node_ports(spec) and _needs_node_ports(old_spec):
        old_ports = {(port.get("port"), port.get("protocol", "TCP")): port for port in old_spec.get("ports") or []}
        for port in spec.get("ports") or []:
            match = old_ports.get((port.get("port"), port.get("protocol", "TCP"))) or {}
            if not port.get("nodePort") and match.get("nodePort"):
                port["nodePort"] = match["nodePort"]
    both_check_health = _needs_health_check_port(spec) and _needs_health_check_port(old_spec)
    if both_check_health and not spec.get("healthCheckNodePort") and old_spec.get("healthCheckNodePort"):
        spec["healthCheckNodePort"] = old_spec["healthCheckNodePort"]


def _no_cluster_ips(spec: Obj, old_spec: Obj) -> None:
    """A Service turned ExternalName drops the address fields it kept unchanged from before (upstream's
    `dropTypeDependentFields`); any it sets anew, validation refuses."""
    for name in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"):
        if name in spec and spec[name] == old_spec.get(name):
            spec.pop(name)


def _same(spec: Obj, old_spec: Obj, name: str) -> bool:
    return (spec.get(name) or []) == (old_spec.get(name) or [])


def _unchanged_prefer_dual_stack(spec: Obj, old_spec: Obj) -> bool:
    """Upstream's `isMatchingPreferDualStackClusterIPFields`: such a service is left as it is, so a
    cluster turning dual-stack (or back) does not upgrade or downgrade it behind its owner's back."""
    return (
        bool(old_spec)
        and _type(spec) == _type(old_spec)
        and _type(spec) in ("ClusterIP", "NodePort", "LoadBalancer")
        and spec.get("ipFamilyPolicy") == "PreferDualStack"
        and old_spec.get("ipFamilyPolicy", "PreferDualStack") == "PreferDualStack"
        and _same(spec, old_spec, "clusterIPs")
        and _same(spec, old_spec, "ipFamilies")
    )


class ServiceAllocation:
    """The services store's write hooks (svc/registry/hooks.py)."""

    def __init__(self, cluster_ips: ClusterIPs, node_ports: NodePorts, group_kind: str) -> None:
        self.cluster_ips = cluster_ips
        self.node_ports = node_ports
        self._group_kind = group_kind
        self._families = tuple("IPv4" if network.version == 4 else "IPv6" for network in cluster_ips.cidrs)

    async def begin_create(self, namespace: str, obj: Obj, *, dry_run: bool) -> Finish:
        obj.setdefault("metadata", {}).setdefault("namespace", namespace)
        held = await self._allocate(obj, {}, dry_run=dry_run)

        async def finish(stored: bool) -> None:
            if not stored and not dry_run:
                await self._release(held)

        return finish

    async def begin_update(self, new: Obj, old: Obj, *, dry_run: bool) -> Finish:
        spec, old_spec = new.setdefault("spec", {}), old.get("spec") or {}
        _carry_over(spec, old_spec)
        held = await self._allocate(new, old_spec, dry_run=dry_run)

        async def finish(stored: bool) -> None:
            if dry_run:
                return
            if stored:
                before, now = held_by(old_spec), held_by(spec)
                await self._release(
                    _Held(
                        [ip for ip in before.ips if ip not in now.ips], [p for p in before.ports if p not in now.ports]
                    )
                )
            else:
                await self._release(held)

        return finish

    async def begin_subresource_update(self, subresource: str, new: Obj, old: Obj) -> None:
        return None

    async def after_delete(self, obj: Obj) -> None:
        await self._release(held_by(obj.get("spec") or {}))

    async def _release(self, held: _Held) -> None:
        for ip in held.ips:
            await self.cluster_ips.release(ip)
        await self.node_ports.release(held.ports)

    async def _allocate(self, obj: Obj, old_spec: Obj, *, dry_run: bool) -> _Held:
        """Allocates into `obj`'s spec what it needs and does not hold yet; returns what was allocated.
        Raises 422 with every problem found (and gives back what it took)."""
        spec = obj.setdefault("spec", {})
        previous = held_by(old_spec)
        held = _Held()
        errors: list[FieldError] = []
        try:
            if _type(spec) == "ExternalName":
                _no_cluster_ips(spec, old_spec)
            else:
                errors += await self._allocate_ips(obj, spec, old_spec, held, dry_run=dry_run)
            errors += await self._allocate_ports(spec, previous, held, dry_run=dry_run)
        except BaseException:
            if not dry_run:
                await self._release(held)
            raise
        if errors:
            if not dry_run:
                await self._release(held)
            name = (obj.get("metadata") or {}).get("name", "")
            raise status.invalid(self._group_kind, name, errors, aggregate_message(errors))
        return held

    def _policy_errors(self, spec: Obj, old_spec: Obj) -> list[FieldError]:
        """The policy's fit with the families and addresses asked for, and the update rules."""
        policy, ips, families = spec["ipFamilyPolicy"], spec.get("clusterIPs") or [], spec.get("ipFamilies") or []
        errors: list[FieldError] = []
        if old_spec and policy == "SingleStack":
            if _same(spec, old_spec, "clusterIPs") and len(ips) > 1:
                spec["clusterIPs"] = ips = ips[:1]
            if _same(spec, old_spec, "ipFamilies") and len(families) > 1:
                spec["ipFamilies"] = families = families[:1]
        elif old_spec:
            if len(ips) < len(old_spec.get("clusterIPs") or []):
                detail = "must be 'SingleStack' to release the secondary cluster IP"
                errors.append(invalid("spec.ipFamilyPolicy", policy, detail))
            if len(families) < len(old_spec.get("ipFamilies") or []):
                detail = "must be 'SingleStack' to release the secondary IP family"
                errors.append(invalid("spec.ipFamilyPolicy", policy, detail))
        if policy == "SingleStack":
            if len(ips) == 2:
                detail = "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"
                errors.append(invalid("spec.ipFamilyPolicy", policy, detail))
            if len(families) == 2:
                detail = "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"
                errors.append(invalid("spec.ipFamilyPolicy", policy, detail))
        return errors

    def _settle_families(self, spec: Obj, old_spec: Obj) -> list[FieldError]:
        """Upstream's `initIPFamilyFields`: the policy (from the request, the old object, or inferred),
        the families (from the addresses asked for, else the cluster's), or the errors why not."""
        if _unchanged_prefer_dual_stack(spec, old_spec):
            return []
        headless_selectorless = spec.get("clusterIP") == "None" and not spec.get("selector")
        if spec.get("ipFamilyPolicy") is None:
            inferred = "RequireDualStack" if headless_selectorless else "SingleStack"
            spec["ipFamilyPolicy"] = old_spec.get("ipFamilyPolicy") or inferred
        errors = cluster_ips_related_errors(spec)
        if errors:
            return errors
        errors = self._policy_errors(spec, old_spec)
        families = list(spec.get("ipFamilies") or [])
        ips = spec.get("clusterIPs") or []
        for index, ip in enumerate(ips):
            if ip == "None":
                break
            if index < len(families):
                continue
            if family_of(ip) in self._families:
                families.append(family_of(ip))
            else:
                detail = f"{family_of(ip)} is not configured on this cluster"
                errors.append(invalid(f"spec.clusterIPs[{index}]", ips, detail))
        if errors:
            return errors
        policy = spec["ipFamilyPolicy"]
        if headless_selectorless:
            families = families or [self._families[0]]
            if len(families) < 2 and policy != "SingleStack":
                families.append("IPv6" if families[0] == "IPv4" else "IPv4")
            spec["ipFamilies"] = families
            return []
        if policy == "RequireDualStack" and len(self._families) < 2:
            errors.append(
                invalid("spec.ipFamilyPolicy", policy, "this cluster is not configured for dual-stack services")
            )
        for index, family in enumerate(families):
            if family not in self._families:
                errors.append(invalid(f"spec.ipFamilies[{index}]", family, "not configured on this cluster"))
        if errors:
            return errors
        families = families or [self._families[0]]
        if policy != "SingleStack" and len(families) == 1 and len(self._families) == 2:
            families.append("IPv6" if families[0] == "IPv4" else "IPv4")
        spec["ipFamilies"] = families
        return []

    async def _allocate_ips(
        self, obj: Obj, spec: Obj, old_spec: Obj, held: _Held, *, dry_run: bool
    ) -> list[FieldError]:
        previous = held_by(old_spec)
        if spec.get("clusterIP") and not spec.get("clusterIPs"):
            spec["clusterIPs"] = [spec["clusterIP"]]
        wanted = list(spec.get("clusterIPs") or [])
        if previous.ips and wanted[:1] != previous.ips[:1]:
            return [invalid("spec.clusterIPs[0]", wanted, "may not change once set")]
        errors = self._settle_families(spec, old_spec)
        if errors:
            return errors
        families = spec["ipFamilies"]
        if wanted[:1] == ["None"]:
            spec["clusterIP"], spec["clusterIPs"] = "None", ["None"]
            return []
        ips: list[str] = []
        for index, family in enumerate(families):
            requested = wanted[index] if index < len(wanted) else ""
            if requested and requested in previous.ips:
                ips.append(requested)
                continue
            try:
                ip = await self.cluster_ips.allocate(family, requested, obj, dry_run=dry_run)
            except AllocationError as error:
                return [invalid("spec.clusterIPs", wanted or [""], str(error))]
            if not dry_run:
                held.ips.append(ip)
            ips.append(ip)
        spec["clusterIP"], spec["clusterIPs"] = ips[0], ips
        return []

    async def _allocate_ports(self, spec: Obj, previous: _Held, held: _Held, *, dry_run: bool) -> list[FieldError]:
        errors: list[FieldError] = []
        ports = spec.get("ports") or []
        if not _needs_node_ports(spec):
            for index, port in enumerate(ports):
                if port.get("nodePort") in previous.ports:
                    port.pop("nodePort")
                elif port.get("nodePort") and _type(spec) in ("ClusterIP", "ExternalName"):
                    errors.append(
                        forbidden(f"spec.ports[{index}].nodePort", f"may not be used when `type` is '{_type(spec)}'")
                    )
        else:
            used: dict[int, str] = {}
            for index, port in enumerate(ports):
                requested = port.get("nodePort") or 0
                protocol = port.get("protocol", "TCP")
                if requested in used:
                    if used[requested] == protocol:
                        errors.append(duplicate(f"spec.ports[{index}].nodePort", requested))
                    continue
                if requested and requested in previous.ports:
                    used[requested] = protocol
                    continue
                try:
                    number = await self.node_ports.allocate(requested, dry_run=dry_run)
                except AllocationError as error:
                    errors.append(invalid(f"spec.ports[{index}].nodePort", requested, str(error)))
                    continue
                if not dry_run:
                    held.ports.append(number)
                port["nodePort"] = number
                used[number] = protocol
        if _needs_health_check_port(spec):
            requested = spec.get("healthCheckNodePort") or 0
            if not (requested and requested in previous.ports):
                try:
                    number = await self.node_ports.allocate(requested, dry_run=dry_run)
                except AllocationError as error:
                    errors.append(invalid("spec.healthCheckNodePort", requested, str(error)))
                else:
                    if not dry_run:
                        held.ports.append(number)
                    spec["healthCheckNodePort"] = number
        elif spec.get("healthCheckNodePort") in previous.ports:
            spec.pop("healthCheckNodePort")
        return errors
