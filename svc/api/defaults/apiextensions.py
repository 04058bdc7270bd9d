"""CustomResourceDefinitions and APIServices: how the API is extended.

A CRD's singular name is its lower-cased kind and its list kind the kind plus `List`; it converts
nothing unless told. Conversion webhooks and aggregated API services listen on port 443 by default.
The CRD's `status.storedVersions`, which upstream also defaults, is left to the strategy that owns
status.
"""

from __future__ import annotations

from svc.api.defaults.admission import service_port
from svc.api.defaults.walk import Obj, child, fill, fill_nil


def custom_resource_definition(obj: Obj) -> None:
    spec = child(obj, "spec")
    if spec is None:
        return
    names = child(spec, "names")
    kind = (names or {}).get("kind")
    if names is not None and isinstance(kind, str) and kind:
        fill(names, "singular", kind.lower())
        fill(names, "listKind", f"{kind}List")
    fill_nil(spec, "conversion", {"strategy": "None"})
    service_port(child(child(child(spec, "conversion"), "webhook"), "clientConfig"))


def api_service(obj: Obj) -> None:
    service_port(child(obj, "spec"))
