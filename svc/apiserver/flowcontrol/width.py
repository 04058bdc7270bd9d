"""How many seats a request occupies while it runs (upstream's request work estimator).

Most requests take one seat. A LIST takes one seat per 100 objects it processes, counted from the
watch cache: all stored objects when the cache serves it (no continue token, resourceVersion not
asking for an exact or consistent storage read), `limit` twice otherwise, stored plus limit when a
storage read filters by selector. A WATCH that starts with its initial list
(`sendInitialEvents=true`) is estimated as that list; other watches take one seat. The result is
kept between 1 and the level's maximum (15% of its nominal seats, at most 10).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

from svc.apiserver.request_info import RequestInfo

if TYPE_CHECKING:
    from aiohttp import web

    from svc.apiserver.server import Server

OBJECTS_PER_SEAT = 100
MAX_SEATS = 10
MAX_SEATS_SHARE = 0.15


def max_seats(nominal_limit: int) -> int:
    return max(1, min(MAX_SEATS, math.ceil(nominal_limit * MAX_SEATS_SHARE)))


def _stored(server: Server, info: RequestInfo) -> int:
    resource = server.resources.get(info.api_group, info.api_version, info.resource)
    if resource is None:
        return 0
    store = server.stores.get((resource.group, resource.version, resource.name))
    if store is None or store.cache is None:
        return 0
    return len(store.cache.state)


def _from_cache(query: Mapping[str, str]) -> bool:
    if query.get("continue"):
        return False
    version = query.get("resourceVersion")
    return version == "0" or (bool(version) and query.get("resourceVersionMatch") == "NotOlderThan")


def seats(server: Server, request: web.BaseRequest, info: RequestInfo, limit_of_level: int) -> int:
    verb = info.verb
    if not info.is_resource_request or verb not in ("list", "watch"):
        return 1
    query = request.query
    if verb == "watch" and query.get("sendInitialEvents") != "true":
        return 1
    stored = _stored(server, info)
    limit = stored
    if query.get("limit", "").isdigit() and 0 < int(query["limit"]) < stored:
        limit = int(query["limit"])
    if verb == "watch" or _from_cache(query):
        objects = stored
    elif query.get("fieldSelector") or query.get("labelSelector"):
        objects = stored + limit
    else:
        objects = 2 * limit
    return max(1, min(limit_of_level, math.ceil(objects / OBJECTS_PER_SEAT)))
