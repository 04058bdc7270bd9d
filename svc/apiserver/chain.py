"""The filter chain, built in one function, outermost first.

Ordering rules:
- the filters that only add response headers (HSTS, CORS, GOAWAY) are outermost, outside recovery,
  so error responses carry their headers too; a CORS preflight is answered before authentication;
- recovery comes next, so a failure anywhere (even in another filter) becomes a Status response;
- request info comes before everything that needs to know the verb or resource;
- metrics right after it, so every answer is counted, refusals of the filters below included;
- the shutdown drain (`--shutdown-send-retry-after`) next: it needs the verb (watches are not
  waited for) and its 429s are counted;
- the deadline comes next, so authentication and authorization count against it too;
- authentication before authorization (who, then whether they may);
- audit right after authentication (the event names the user), before impersonation and authorization,
  which add to the event on the way back;
- impersonation after authentication (it authorizes the authenticated user to impersonate) and before
  authorization (which then decides for the impersonated user);
- priority and fairness (or the max-in-flight limits) after impersonation, so requests are classified
  by the user they act as, and before authorization, as upstream places it: a flood is held back
  before it costs authorization work;
- authorization right before the handlers, so nothing unauthorized reaches a handler;
- fault injection after it (a refused request is refused, not faulted), last before the handlers.
"""

from __future__ import annotations

import functools

from svc.apiserver.faults.filter import inject_faults
from svc.apiserver.filters import Filter, Handler
from svc.apiserver.filters.audit import audit
from svc.apiserver.filters.authentication import authenticate
from svc.apiserver.filters.authorization import authorize
from svc.apiserver.filters.goaway import probabilistic_goaway
from svc.apiserver.filters.impersonation import impersonate
from svc.apiserver.filters.metrics import measure
from svc.apiserver.filters.panic_recovery import recover
from svc.apiserver.filters.request_info import attach_request_info
from svc.apiserver.filters.response_headers import cors, hsts
from svc.apiserver.filters.retry_after import retry_after_while_draining
from svc.apiserver.filters.timeout import limit_time
from svc.apiserver.flowcontrol.filter import limit_requests
from svc.apiserver.serving_options import ServingOptions

FILTERS: tuple[Filter, ...] = (
    recover,
    attach_request_info,
    measure,
    limit_time,
    authenticate,
    audit,
    impersonate,
    limit_requests,
    authorize,
    inject_faults,
)


def build_filters(serving: ServingOptions) -> tuple[Filter, ...]:
    """`FILTERS` with those the serving flags turn on; a filter that is off costs nothing."""
    outer: list[Filter] = []
    if serving.hsts_directives:
        outer.append(hsts(serving.hsts_header))
    if serving.cors_allowed_origins:
        outer.append(cors(serving.cors_allowed_origins))
    if serving.goaway_chance:
        outer.append(probabilistic_goaway(serving.goaway_chance))
    inner = list(FILTERS)
    if serving.shutdown_send_retry_after:
        inner.insert(inner.index(measure) + 1, retry_after_while_draining)
    return (*outer, *inner)


def build_handler_chain(endpoint: Handler, filters: tuple[Filter, ...] = FILTERS) -> Handler:
    handler = endpoint
    for request_filter in reversed(filters):
        handler = functools.partial(request_filter, next_handler=handler)
    return handler
