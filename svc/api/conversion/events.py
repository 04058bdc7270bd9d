"""core/v1 Event and events.k8s.io/v1 Event: one stored object, two shapes.

Upstream keeps every Event as a core/v1 Event and converts field by field for the newer API:
`regarding` is `involvedObject`, `note` is `message`, `reportingController` is `reportingComponent`,
the `deprecated*` fields are the core API's `source`, `firstTimestamp`, `lastTimestamp` and `count`;
`eventTime`, `series`, `action`, `reason`, `related`, `type` and `reportingInstance` are shared.
Each function builds its result in the Go struct's field order with the fields Go writes even when
empty (an empty `source` or `regarding` as `{}`, a zero time as null, a core Event's reporting
fields as "").
"""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]


def _set(out: Obj, key: str, value: Any) -> None:
    """`omitempty`: only a value Go would not consider empty is written."""
    if value not in (None, "", 0, {}, []):
        out[key] = value


def core_to_events(obj: Obj) -> Obj:
    """A stored core/v1 Event as events.k8s.io/v1 shows it."""
    out: Obj = {"apiVersion": obj.get("apiVersion"), "kind": obj.get("kind"), "metadata": obj.get("metadata", {})}
    out["eventTime"] = obj.get("eventTime")
    _set(out, "series", obj.get("series"))
    _set(out, "reportingController", obj.get("reportingComponent"))
    _set(out, "reportingInstance", obj.get("reportingInstance"))
    _set(out, "action", obj.get("action"))
    _set(out, "reason", obj.get("reason"))
    out["regarding"] = obj.get("involvedObject") or {}
    _set(out, "related", obj.get("related"))
    _set(out, "note", obj.get("message"))
    _set(out, "type", obj.get("type"))
    out["deprecatedSource"] = obj.get("source") or {}
    out["deprecatedFirstTimestamp"] = obj.get("firstTimestamp")
    out["deprecatedLastTimestamp"] = obj.get("lastTimestamp")
    _set(out, "deprecatedCount", obj.get("count"))
    return out


def events_to_core(obj: Obj) -> Obj:
    """An events.k8s.io/v1 Event as the core/v1 Event upstream stores."""
    out: Obj = {"apiVersion": obj.get("apiVersion"), "kind": obj.get("kind"), "metadata": obj.get("metadata", {})}
    out["involvedObject"] = obj.get("regarding") or {}
    _set(out, "reason", obj.get("reason"))
    _set(out, "message", obj.get("note"))
    out["source"] = obj.get("deprecatedSource") or {}
    out["firstTimestamp"] = obj.get("deprecatedFirstTimestamp")
    out["lastTimestamp"] = obj.get("deprecatedLastTimestamp")
    _set(out, "count", obj.get("deprecatedCount"))
    _set(out, "type", obj.get("type"))
    out["eventTime"] = obj.get("eventTime")
    _set(out, "series", obj.get("series"))
    _set(out, "action", obj.get("action"))
    _set(out, "related", obj.get("related"))
    out["reportingComponent"] = obj.get("reportingController") or ""
    out["reportingInstance"] = obj.get("reportingInstance") or ""
    return out
