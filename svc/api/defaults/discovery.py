"""EndpointSlices (discovery.k8s.io/v1)."""

from __future__ import annotations

from svc.api.defaults.walk import Obj, entries, fill_nil


def endpoint_slice(obj: Obj) -> None:
    """A port without a name is the unnamed port (`""`), without a protocol TCP."""
    for port in entries(obj, "ports"):
        fill_nil(port, "name", "")
        fill_nil(port, "protocol", "TCP")
