"""Audit: every answer carries an `Audit-ID` header; when auditing is on, the policy's level for the
request decides which Events (one per stage) reach the backend and how much they hold.

The filter sits after authentication (the event names the user) and before impersonation and
authorization, as upstream places it; those two, and admission, add to the event on the way back."""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable
from typing import Any

from aiohttp import web
from multidict import istr

from svc.apiserver.audit import event as events
from svc.apiserver.audit.answer_gate import GatedTransport
from svc.apiserver.audit.auditor import Auditor
from svc.apiserver.audit.lines import RECEIVED, hold
from svc.apiserver.audit.policy import Decision, Level
from svc.apiserver.context import RequestContext
from svc.apiserver.filters import Handler
from svc.apiserver.request_body import BODY_KEY
from svc.machinery import status
from svc.registry.admission import request_audit_annotations
from svc.storage.errors import StorageError, StoreUnreachableError

AUDIT_ID_HEADER = istr("Audit-ID")
_OBJECT_VERBS = frozenset({"create", "update"})
_STATUS_VERBS = frozenset({"delete", "deletecollection"})
_BODY_VERBS = _OBJECT_VERBS | _STATUS_VERBS
"""Verbs whose event a body completes even at Metadata level (the objectRef, the Status)."""
_NONE, _METADATA, _REQUEST, _REQUEST_RESPONSE = Level.NONE, Level.METADATA, Level.REQUEST, Level.REQUEST_RESPONSE
"""The levels the request path compares with, read once (an enum member is a class attribute lookup)."""
_INLINE_VERBS = frozenset({"get", "list"})
"""Reads of a resource or a path without subresource: no admission annotates them and their answer
is never streamed with a ResponseStarted (watches and logs are), so `_audited_inline` serves them."""


_IDS_PER_DRAW = 256
_random_hex: list[str] = []
"""Random bytes drawn ahead, 16 (as 32 hex digits) per Audit-ID; `list.pop` hands each out once,
whichever thread asks."""


def new_audit_id() -> str:
    """A random (version 4) UUID as text, as upstream's Audit-ID. The bytes come from `os.urandom`
    as `uuid.uuid4` takes them, but drawn for many IDs at once: `os.urandom` lets go of the
    interpreter lock, which invites any other thread (the store's writer, a batch worker) in on every request."""
    try:
        digits = _random_hex.pop()
    except IndexError:
        drawn = os.urandom(16 * _IDS_PER_DRAW).hex()
        _random_hex.extend(drawn[start : start + 32] for start in range(0, len(drawn), 32))
        digits = _random_hex.pop()
    variant = "89ab"[int(digits[16], 16) & 3]
    return f"{digits[:8]}-{digits[8:12]}-4{digits[13:16]}-{variant}{digits[17:20]}-{digits[20:]}"


def _set_header(response: web.StreamResponse, audit_id: str) -> None:
    if not response.prepared:
        response.headers[AUDIT_ID_HEADER] = audit_id


def audit(ctx: RequestContext, next_handler: Handler) -> Awaitable[web.StreamResponse]:
    """The request's way through: a plain function handing over the coroutine of the path taken, so
    an audited request resumes through one frame of this filter, not two."""
    audit_id = ctx.request.headers.get(AUDIT_ID_HEADER) or new_audit_id()
    auditor: Auditor | None = ctx.server.audit
    if auditor is not None:
        info = ctx.info
        assert info is not None
        decision = auditor.policy.decide_for(info, ctx.user)
        level = decision.level
        auditor.metrics.levels_seen[level].value += 1
        if level is _METADATA and auditor.inline is not None and info.verb in _INLINE_VERBS:
            if not (info.subresource or decision.omit_stages):
                return _audited_inline(ctx, next_handler, auditor, decision, audit_id)
            return _audited(ctx, next_handler, auditor, decision, audit_id)
        if level is not _NONE:
            return _audited(ctx, next_handler, auditor, decision, audit_id)
    return _unaudited(ctx, next_handler, audit_id)


async def _unaudited(ctx: RequestContext, next_handler: Handler, audit_id: str) -> web.StreamResponse:
    """A request no event is written for still answers with its Audit-ID."""
    ctx.started_hooks.append(lambda response: _set_header(response, audit_id))
    try:
        response = await next_handler(ctx)
    except status.StatusError as error:
        error.headers[AUDIT_ID_HEADER] = audit_id
        raise
    _set_header(response, audit_id)
    return response


def _emit(
    auditor: Auditor, decision: Decision, event: events.PendingEvent, stage: str, annotations: dict[str, str]
) -> Awaitable[bool] | None:
    """Send the event at `stage`; the delivery to wait for when a blocking backend has it."""
    if stage in decision.omit_stages:
        return None
    return auditor.emit(event, stage, annotations)


def _authentication_methods(ctx: RequestContext) -> str:
    """Which credentials a refused request carried, in upstream's words."""
    request = ctx.request
    methods = []
    scheme, _, credentials = request.headers.get("Authorization", "").strip().partition(" ")
    if scheme.lower() == "basic" and credentials:
        methods.append("basic")
    if scheme.lower() == "bearer" and credentials:
        methods.append("bearer")
    if request.query.get("access_token", "").strip():
        methods.append("access_token")
    ssl_object = request.transport.get_extra_info("ssl_object") if request.transport is not None else None
    if ssl_object is not None and ssl_object.getpeercert(binary_form=True):
        methods.append("x509")
    if methods:
        return "Authentication failed, attempted: " + ", ".join(methods)
    return "Authentication failed, no credentials provided"


async def audit_failed_authentication(ctx: RequestContext, error: status.StatusError) -> None:
    """A 401 is audited as upstream audits it: one `ResponseStarted` event without a user, whose
    status says which credentials failed; the answer carries its `Audit-ID`."""
    audit_id = ctx.request.headers.get(AUDIT_ID_HEADER) or new_audit_id()
    error.headers[AUDIT_ID_HEADER] = audit_id
    auditor: Auditor | None = ctx.server.audit
    if auditor is None or ctx.info is None:
        return
    decision = auditor.policy.decide_for(ctx.info, None)
    if decision.level is _NONE:
        return
    event = events.PendingEvent(decision.level, audit_id, ctx.request, ctx.info, None)
    event.status = (error.code, {"message": _authentication_methods(ctx)})
    if (delivery := _emit(auditor, decision, event, "ResponseStarted", {})) is not None:
        await delivery


async def _audited_inline(
    ctx: RequestContext, next_handler: Handler, auditor: Auditor, decision: Decision, audit_id: str
) -> web.StreamResponse:
    """The usual audited request as one short path: a read (`_INLINE_VERBS`) at Metadata level with
    every stage written, the log its only backend (`Auditor.inline`). Its RequestReceived is held
    by the log and encoded with its ResponseComplete, one join and one write, when it completes in
    the loop turn it came in and its answer added nothing but the code; any other ending builds
    the event as `_audited` does."""
    request, info, user = ctx.request, ctx.info, ctx.user
    assert info is not None
    clock = ctx.server.clock
    received = time.time() if clock is None else clock.now()
    headers = request.headers  # what a PendingEvent reads, read straight (only a rare ending builds one)
    held = hold(
        decision.level,
        audit_id,
        request.raw_path,
        received,
        info.verb,
        user,
        headers.get(events.FORWARDED_FOR, ""),
        headers.get(events.REAL_IP, ""),
        request.remote or "",
        headers.get(events.USER_AGENT, ""),
        events.path_ref(info),
    )
    if held is None:  # text orjson refuses: the built Event's way
        return await _audited(ctx, next_handler, auditor, decision, audit_id, received)
    log = auditor.inline
    assert log is not None
    log.hold(held)
    sent = auditor.metrics.events_sent
    sent.value += 1
    annotations: dict[str, str] = {}
    ctx.audit_annotations = annotations  # no admission on a read: no context variable to set
    try:
        response = await next_handler(ctx)
    except BaseException as error:
        event = events.PendingEvent(decision.level, audit_id, request, info, user, received)
        if (stage := _failed(ctx, event, decision, error)) is not None:
            auditor.emit(event, stage, annotations)
        raise
    code = response.status
    if code < 300 and type(response) is web.Response and ctx.user is ctx.authenticated_user:
        response.headers[AUDIT_ID_HEADER] = audit_id
        gated = type(request.transport) is GatedTransport
        if log.complete(held, code, time.time() if clock is None else clock.now(), annotations, gated=gated):
            sent.value += 1
            return response
    _set_header(response, audit_id)
    event = events.PendingEvent(decision.level, audit_id, request, info, user, received)
    _complete(ctx, event, decision, code, None, response)
    auditor.emit(event, "ResponseComplete", annotations)
    return response


async def _audited(
    ctx: RequestContext,
    next_handler: Handler,
    auditor: Auditor,
    decision: Decision,
    audit_id: str,
    received: float | None = None,
) -> web.StreamResponse:
    assert ctx.info is not None and ctx.user is not None
    event = events.PendingEvent(decision.level, audit_id, ctx.request, ctx.info, ctx.user, received)
    annotations: dict[str, str] = {}
    ctx.audit_annotations = annotations
    token = request_audit_annotations.set(annotations)  # for admission, which has no context
    omitted = decision.omit_stages
    delivery = auditor.emit(event, RECEIVED, annotations) if RECEIVED not in omitted else None
    if delivery is not None and not await delivery and auditor.strict:
        request_audit_annotations.reset(token)
        error = status.internal_error("failed to store audit event")
        error.headers[AUDIT_ID_HEADER] = audit_id
        raise error

    def started(response: web.StreamResponse) -> None:
        """Before a streaming answer's headers: its Audit-ID, and the ResponseStarted event (one hook)."""
        _set_header(response, audit_id)
        event.status = (response.status, None)
        _emit(auditor, decision, event, "ResponseStarted", annotations)

    ctx.started_hooks.append(started)
    stage: str | None = "ResponseComplete"  # or Panic; None when the request is cancelled
    try:
        response = await next_handler(ctx)
    except BaseException as error:
        stage = _failed(ctx, event, decision, error)
        raise
    else:
        _set_header(response, audit_id)
        _complete(ctx, event, decision, response.status, None, response)
        return response
    finally:
        request_audit_annotations.reset(token)
        if stage is not None and stage not in omitted:
            delivery = auditor.emit(event, stage, annotations)
            if delivery is not None:
                await delivery


def _failed(ctx: RequestContext, event: events.PendingEvent, decision: Decision, error: BaseException) -> str | None:
    """Complete the event for what the handler raised; the stage it ends with (Panic for an
    unexpected failure, None when the request was cancelled)."""
    if isinstance(error, status.StatusError):
        error.headers[AUDIT_ID_HEADER] = event.audit_id
        _complete(ctx, event, decision, error.code, error.status(), None)
    elif isinstance(error, web.HTTPException):
        _complete(ctx, event, decision, error.status, None, None)
    elif isinstance(error, StorageError):
        # Answered by the recovery filter (503 when the store is unreachable, else 500): not a panic.
        code = 503 if isinstance(error, StoreUnreachableError) else 500
        _complete(ctx, event, decision, code, {"status": "Failure", "message": str(error)}, None)
    elif isinstance(error, Exception):
        event.status = (500, {"status": "Failure", "reason": "InternalError", "message": f"APIServer panic'd: {error}"})
        return "Panic"
    else:
        return None
    return "ResponseComplete"


def _complete(
    ctx: RequestContext,
    event: events.PendingEvent,
    decision: Decision,
    code: int,
    status_body: dict[str, Any] | None,
    response: web.StreamResponse | None,
) -> None:
    """Add what is known once the answer is: the impersonated user, the objects, the status. Bodies
    are read only where the event holds them or they complete it."""
    info = ctx.info
    assert info is not None
    level = decision.level
    verb = info.verb
    if level < _REQUEST and code < 300 and verb not in _BODY_VERBS and ctx.user is ctx.authenticated_user:
        event.status = (code, status_body)  # a read at Metadata level that succeeded: only its code
        return
    later: dict[str, Any] = {}
    if ctx.user is not None and ctx.user is not ctx.authenticated_user:
        later["impersonatedUser"] = events.user_info(ctx.user)
    request_object = None
    if verb in _OBJECT_VERBS or level >= _REQUEST:
        sent = ctx.request.get(BODY_KEY)
        request_object = events.decode_json(sent, ctx.request.content_type) if sent else None
        if verb in _OBJECT_VERBS and (ref := events.completed_object_ref(event, request_object)) is not None:
            later["objectRef"] = ref
    response_object = None
    # The answer is read only when the event holds it or it may be a Status (an error, a delete).
    wanted = level >= _REQUEST_RESPONSE or code >= 300 or verb in _STATUS_VERBS
    if wanted and isinstance(response, web.Response) and isinstance(response.body, bytes):
        response_object = events.decode_json(response.body, response.content_type)
        if status_body is None and isinstance(response_object, dict) and response_object.get("kind") == "Status":
            status_body = response_object
    event.status = (code, status_body)
    if level >= _REQUEST:
        strip = events.without_managed_fields if decision.omit_managed_fields else (lambda obj: obj)
        if request_object is not None:
            later["requestObject"] = strip(request_object)
        body = response_object if response_object is not None else status_body
        if level >= _REQUEST_RESPONSE and body is not None:
            later["responseObject"] = strip(body)
    if later:
        event.later = later
