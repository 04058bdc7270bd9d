"""Where a request goes under priority and fairness, remembered per request shape.

Most requests repeat a user, groups, verb and target seen a moment before. For each such shape the
first request walks the schemas (`classifier.classify`) and the rest reuse what it found: the schema,
its level, the metric series, the response headers and the flow's hash (the distinguisher is the
user name or the namespace, both part of the shape). A new configuration empties the memo, so a
route never outlives the schemas and levels it was made from.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

from svc.apiserver.flowcontrol.classifier import Schema, classify
from svc.apiserver.flowcontrol.controller import Config, Level
from svc.apiserver.flowcontrol.dealer import flow_hash
from svc.apiserver.flowcontrol.metrics import FlowControlMetrics, FlowSeries
from svc.apiserver.request_info import RequestInfo
from svc.registry.admission import UserInfo

MEMO_SIZE = 4096
_UNKNOWN = object()


@dataclass(eq=False, slots=True)
class Route:
    schema: Schema
    level: Level
    series: FlowSeries
    headers: dict[str, str]
    """The classification headers every answer carries (shared: never changed once made)."""
    distinguisher: str
    flow: int

    def set_headers(self, response: web.StreamResponse) -> None:
        if not response.prepared:
            response.headers.update(self.headers)


class Routes:
    def __init__(self, metrics: FlowControlMetrics, schema_header: str, level_header: str) -> None:
        self._metrics = metrics
        self._schema_header = schema_header
        self._level_header = level_header
        self._config: Config | None = None
        self._memo: dict[tuple[str | tuple[str, ...], ...], Route | None] = {}

    def route(self, config: Config, user: UserInfo, info: RequestInfo) -> Route | None:
        """The request's route under `config`; None when no schema matches (only while the
        configuration is being replaced: the mandatory catch-all matches everything)."""
        if config is not self._config:
            self._config = config
            self._memo = {}
        # one flat tuple: a resource request's key is longer than a path's, so the two never meet
        if info.is_resource_request:
            key = (user.name, user.groups, info.verb, info.api_group, info.resource, info.subresource, info.namespace)
        else:
            key = (user.name, user.groups, info.verb, info.path)
        found = self._memo.get(key, _UNKNOWN)
        if found is _UNKNOWN:
            found = self._make(config, user, info)
            if len(self._memo) >= MEMO_SIZE:
                self._memo.clear()
            self._memo[key] = found
        return found  # type: ignore[return-value]

    def _make(self, config: Config, user: UserInfo, info: RequestInfo) -> Route | None:
        schema = classify(config.schemas, user, info)
        if schema is None:
            return None
        level = config.levels[schema.level]
        distinguisher = schema.flow_distinguisher(user, info)
        return Route(
            schema=schema,
            level=level,
            series=self._metrics.flow(schema.name, level.name),
            headers={self._schema_header: schema.uid, self._level_header: level.uid},
            distinguisher=distinguisher,
            flow=flow_hash(schema.name, distinguisher),
        )
