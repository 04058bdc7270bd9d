"""Which requests a built-in plugin looks at: its resource (by upstream group), on the main resource or
one of the subresources it names, with an object of the right shape."""

from __future__ import annotations

from svc.registry.admission import Attributes


def targets(attributes: Attributes, group: str, resource: str, subresources: tuple[str, ...] = ("",)) -> bool:
    served = attributes.resource
    return served.name == resource and served.upstream_group == group and attributes.subresource in subresources


def is_pod(attributes: Attributes, subresources: tuple[str, ...] = ("",)) -> bool:
    return targets(attributes, "", "pods", subresources) and isinstance(attributes.object, dict)
