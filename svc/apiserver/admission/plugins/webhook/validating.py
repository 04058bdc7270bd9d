"""ValidatingAdmissionWebhook: every matching webhook is called at once and each may deny.

As upstream's validating dispatcher: the calls run concurrently, their warnings and audit
annotations are all kept, a failure to call under `failurePolicy: Ignore` only adds a failed-open
audit annotation, and the request is rejected with the first error in webhook order.
"""

from __future__ import annotations

import asyncio
import time

from svc.apiserver.admission.matching import is_exempt_configuration
from svc.apiserver.admission.metrics import VALIDATING
from svc.apiserver.admission.plugins.webhook.calls import Caller, CallError, Invocation
from svc.apiserver.admission.plugins.webhook.hooks import HookSource
from svc.apiserver.admission.plugins.webhook.review import denial
from svc.machinery import status
from svc.registry.admission import Attributes

FAILED_OPEN_ANNOTATION = "failed-open.validating.webhook.admission.k8s.io/"


class ValidatingWebhooks:
    def __init__(self, source: HookSource, caller: Caller) -> None:
        self._source = source
        self._caller = caller

    async def validate(self, attributes: Attributes) -> None:
        if is_exempt_configuration(attributes):
            return
        hooks = await self._source.hooks()
        if not hooks:
            return
        calls = []
        for index, hook in enumerate(hooks):
            invocation = await self._caller.invocation(hook, attributes)
            if invocation is not None:
                calls.append(self._call(index, invocation, attributes))
        if not calls:
            return
        errors = await asyncio.gather(*calls)
        for error in errors:
            if error is not None:
                raise error

    async def _call(self, index: int, invocation: Invocation, attributes: Attributes) -> status.StatusError | None:
        hook = invocation.hook
        started = time.perf_counter()
        try:
            answer = await self._caller.call(invocation, attributes, mutating=False)
        except CallError as error:
            self._caller.record(hook, VALIDATING, attributes, started, failure=error)
            if hook.ignores_failures:
                attributes.annotations[f"{FAILED_OPEN_ANNOTATION}round_0_index_{index}"] = hook.name
                return None
            return status.internal_error(str(error))
        except status.StatusError as error:
            self._caller.record(hook, VALIDATING, attributes, started, failure=error)
            return error
        for name, value in answer.audit_annotations.items():
            attributes.annotations[f"{hook.name}/{name}"] = value
        for warning in answer.warnings:
            attributes.warn(warning)
        denied = None if answer.allowed else denial(hook.name, answer.result)
        self._caller.record(hook, VALIDATING, attributes, started, denied=denied)
        return denied
