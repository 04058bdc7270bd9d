"""The filter chain, built in one function, outermost first.

Ordering rules:
- recovery is outermost, so a failure anywhere (even in another filter) becomes a Status response;
- request info comes before everything that needs to know the verb or resource;
- metrics right after it, so every answer is counted, refusals of the filters below included;
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
from svc.apiserver.filters.impersonation import impersonate
from svc.apiserver.filters.metrics import measure
from svc.apiserver.filters.panic_recovery import recover
from svc.apiserver.filters.request_info import attach_request_info
from svc.apiserver.filters.timeout import limit_time
from svc.apiserver.flowcontrol.filter import limit_requests

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


def build_handler_chain(endpoint: Handler, filters: tuple[Filter, ...] = FILTERS) -> Handler:
    handler = endpoint
    for request_filter in reversed(filters):
        handler = functools.partial(request_filter, next_handler=handler)
    return handler
