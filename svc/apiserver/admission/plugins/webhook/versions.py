"""An object in the version a webhook's rule matched, and back.

matchPolicy Equivalent can send a webhook a request made through another version of the same
stored resource; upstream converts the object to the version the rule named and converts the
webhook's patched result back. Versions of one shape only change `apiVersion`; those of different
shapes (autoscaling/v1 and v2 HPAs, core and events.k8s.io events) go through the store's field
conversions, via the storage version.
"""

from __future__ import annotations

from typing import Any

import orjson

from svc.api.brand import Profile
from svc.api.conversion import conversion_for
from svc.api.resources import Resource
from svc.apiserver.admission.matching import kind_at
from svc.registry.admission import Attributes

Obj = dict[str, Any]


def carries_parent_kind(attributes: Attributes) -> bool:
    """Whether the request's object is of its resource's kind (a subresource with a kind of its own,
    such as Scale, is the same in every version of its parent and is never converted)."""
    return kind_at(attributes.resource, attributes.subresource)[2] == attributes.resource.kind


def convert(obj: Obj | None, source: Resource, target: Resource, profile: Profile) -> Obj | None:
    """A copy of `obj` (served as `source`) as `target` serves it; `obj` itself when they are one."""
    if obj is None or source == target:
        return obj
    copied: Obj = orjson.loads(orjson.dumps(obj))
    to_storage = conversion_for(source, profile)
    if to_storage is not None:
        copied = to_storage.stored(copied, source.kind)
    from_storage = conversion_for(target, profile)
    if from_storage is not None:
        convert_back = from_storage.from_stored.get(copied.get("apiVersion", ""))
        if convert_back is not None:
            copied = convert_back(copied)
    copied["apiVersion"], copied["kind"] = target.api_version, target.kind
    return copied
