"""The horizontal-pod-autoscaler controller: autoscaling/v2 HPAs scale their target by resource metrics.

Upstream `pkg/controller/podautoscaler`. Every `--horizontal-pod-autoscaler-sync-period` each HPA is
reconciled: the target's scale subresource is read (its selector picks the pods), the resource metrics
API (`metrics.k8s.io`, served by an extension server through the API server's aggregation layer) gives
each pod's usage, `hpa_replicas` turns every Resource and ContainerResource metric into a proposal
(the largest wins), `hpa_behavior` stabilizes and rate-limits it, the scale is written when it changes,
and the status (current and desired replicas, current metrics, last scale time, observed generation)
with the AbleToScale, ScalingActive and ScalingLimited conditions carries upstream's reasons and
messages. Pods, Object and External metrics are read from the custom and external metrics APIs
(`hpa_metrics`), served by whichever extension server is registered for them. Events are recorded as
upstream's (source `horizontal-pod-autoscaler`): `SuccessfulRescale` and `FailedRescale` ("New size:
N; reason: ..."), `FailedGetScale`, one per failing metric with its reason (`FailedGetResourceMetric`,
`FailedGetPodsMetric`, ...), `SelectorRequired`/`InvalidSelector`, `AmbiguousSelector` when the
target's pods are also selected by another HPA (`hpa_selectors`; nothing is scaled then),
`FailedComputeMetricsReplicas` when no metric gives a replica count, and `FailedUpdateStatus`.
(`FailedConvertHPA` is not: upstream emitted it while it converted autoscaling/v1 objects, and has
read autoscaling/v2 directly since 1.23.)
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from svc.client.aio import ApiError, error_message, resource_path
from svc.client.events import NORMAL, WARNING
from svc.client.informer import NAMESPACE_INDEX, Handler, Informer, key_of
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers import hpa_behavior as behavior
from svc.controllers import hpa_metrics as metrics
from svc.controllers import hpa_replicas as replicas
from svc.controllers.context import ControllerContext
from svc.controllers.deployment_math import rfc3339
from svc.controllers.hpa_selectors import HpaSelectors
from svc.machinery.duration import parse_duration
from svc.machinery.labels import SelectorError, parse_label_selector

NAME = "horizontal-pod-autoscaler-controller"
EVENT_SOURCE = "horizontal-pod-autoscaler"
ABOVE_MAX = "Current number of replicas above Spec.MaxReplicas"
BELOW_MIN = "Current number of replicas below Spec.MinReplicas"
Obj = dict[str, Any]
MetricError = metrics.MetricError


@dataclass(frozen=True)
class Settings:
    sync_period: float = 15.0
    tolerance: float = 0.1
    downscale_stabilization: float = 300.0
    cpu_initialization_period: float = 300.0
    initial_readiness_delay: float = 30.0


def _set_condition(status: Obj, kind: str, state: str, reason: str, message: str, wall: float) -> None:
    """Upstream's `setConditionInList`: the transition time moves only when the status changes."""
    conditions = status.setdefault("conditions", [])
    for entry in conditions:
        if entry.get("type") == kind:
            if entry.get("status") != state:
                entry["lastTransitionTime"] = rfc3339(wall)
            entry.update(status=state, reason=reason, message=message)
            return
    conditions.append(
        {"type": kind, "status": state, "lastTransitionTime": rfc3339(wall), "reason": reason, "message": message}
    )


class HorizontalPodAutoscalerController:
    def __init__(self, context: ControllerContext, *, workers: int = 5, settings: Settings = Settings()) -> None:
        self.context = context
        self.workers = workers
        self.settings = settings
        self.autoscaling = context.profile.group("autoscaling")
        self.metrics_group = context.profile.group("metrics.k8s.io")
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.hpas: Informer = context.informers.informer("autoscaling", "v2", "horizontalpodautoscalers")
        self.pods: Informer = context.informers.informer("", "v1", "pods")
        self.histories: dict[str, behavior.History] = {}
        self.reader = metrics.MetricsReader(context.client, context.profile)
        self.events = context.recorder(EVENT_SOURCE)
        self.selectors = HpaSelectors()
        self.hpas.add_handler(
            Handler(on_add=self._enqueue, on_update=lambda _old, new: self._enqueue(new), on_delete=self._deleted)
        )

    def _enqueue(self, hpa: Obj) -> None:
        key = key_of(hpa)
        self.selectors.register(key)
        self.queue.add(key)

    def _deleted(self, hpa: Obj) -> None:
        key = key_of(hpa)
        self.selectors.forget(key)
        self.queue.add(key)

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, key: str) -> None:
        hpa = self.hpas.get(key)
        if hpa is None:
            self.histories.pop(key, None)
            return
        try:
            await self.reconcile(key, hpa)
        finally:
            self.queue.add_after(key, self.settings.sync_period)

    async def _event(self, hpa: Obj, event_type: str, reason: str, message: str) -> None:
        await self.events.event(hpa, "HorizontalPodAutoscaler", f"{self.autoscaling}/v2", event_type, reason, message)

    # -- the target --------------------------------------------------------------------------
    async def _scale_path(self, namespace: str, ref: Obj) -> str:
        """The target's scale subresource, its resource found by kind in discovery (CRDs included)."""
        group, version, resource = await metrics.resource_for_kind(
            self.context.client, ref.get("apiVersion") or "", ref.get("kind") or ""
        )
        return resource_path(
            group, version, resource, namespace=namespace, name=ref.get("name") or "", subresource="scale"
        )

    # -- metrics -----------------------------------------------------------------------------
    async def _pod_samples(
        self, namespace: str, selector: str, resource: str, container: str
    ) -> dict[str, replicas.PodMetric]:
        path = resource_path(self.metrics_group, "v1beta1", "pods", namespace=namespace)
        failure = f"unable to get metrics for resource {resource}: unable to fetch metrics from resource metrics API"
        try:
            listed = await self.context.client.get(path, labelSelector=selector)
        except (ApiError, OSError) as error:
            message = error_message(error)
            raise replicas.ReplicaCalculationError(f"{failure}: {message}") from None
        items = listed.get("items") or []
        if not items:
            raise replicas.ReplicaCalculationError(
                f"unable to get metrics for resource {resource}: no metrics returned from resource metrics API"
            )
        samples = {}
        with metrics.decoding(failure):
            for item in items:
                total, complete = 0, True
                containers = item.get("containers") or []
                if container:
                    containers = [c for c in containers if c.get("name") == container]
                    if not containers:
                        meta = item["metadata"]
                        raise replicas.ReplicaCalculationError(
                            f"failed to get container metrics: container {container} not present in metrics for pod "
                            f"{meta.get('namespace')}/{meta['name']}"
                        )
                for entry in containers:
                    usage = (entry.get("usage") or {}).get(resource)
                    if usage is None:
                        complete = False
                        break
                    total += replicas.milli_value(usage)
                if complete:
                    window = parse_duration(item.get("window") or "0s")
                    stamp = replicas.parse_time(item.get("timestamp")) or 0.0
                    samples[item["metadata"]["name"]] = replicas.PodMetric(total, stamp, window)
        return samples

    async def _resource_proposal(self, spec: Obj, source_type: str, scale_target: metrics.Target) -> metrics.Proposal:
        source = spec.get("resource" if source_type == "Resource" else "containerResource") or {}
        resource, container = source.get("name") or "", source.get("container") or ""
        target = source.get("target") or {}
        kind = "container resource" if source_type == "ContainerResource" else "resource"
        reason = "FailedGetResourceMetric" if source_type == "Resource" else "FailedGetContainerResourceMetric"
        current, pods = scale_target.spec_replicas, scale_target.pods
        tolerances, readiness, now = scale_target.tolerances, scale_target.readiness, scale_target.now
        average_value = target.get("averageValue")
        utilization = target.get("averageUtilization")
        try:
            samples = await self._pod_samples(scale_target.namespace, scale_target.selector, resource, container)
            if average_value is not None:
                recommendation = replicas.resource_replicas(
                    current,
                    pods,
                    samples,
                    resource,
                    target_average_value=replicas.milli_value(average_value),
                    container=container,
                    tolerances=tolerances,
                    readiness=readiness,
                    now=now,
                )
            elif utilization is not None:
                recommendation = replicas.resource_replicas(
                    current,
                    pods,
                    samples,
                    resource,
                    target_utilization=int(utilization),
                    container=container,
                    tolerances=tolerances,
                    readiness=readiness,
                    now=now,
                )
            else:
                raise replicas.ReplicaCalculationError(
                    "invalid resource metric source: neither an average utilization target nor an average value "
                    "(usage) target was set"
                )
        except replicas.ReplicaCalculationError as error:
            what = "usage" if average_value is not None else "utilization"
            raise MetricError(reason, f"failed to get {resource} {what}: {error}") from None
        current_value: Obj = {"averageValue": replicas.milli_quantity(recommendation.raw_value)}
        if average_value is not None:
            name = f"{resource} {kind}"
        else:
            name = f"{resource} {kind} utilization (percentage of request)"
            current_value = {"averageUtilization": recommendation.utilization, **current_value}
        key = "resource" if source_type == "Resource" else "containerResource"
        body: Obj = {"name": resource, "current": current_value}
        if container:
            body["container"] = container
        return metrics.Proposal(recommendation.replicas, name, {"type": source_type, key: body})

    def _tolerances(self, hpa: Obj) -> replicas.Tolerances:
        rules = (hpa["spec"].get("behavior")) or {}
        down = (rules.get("scaleDown") or {}).get("tolerance")
        up = (rules.get("scaleUp") or {}).get("tolerance")
        default = self.settings.tolerance
        return replicas.Tolerances(
            replicas.milli_value(down) / 1000 if down is not None else default,
            replicas.milli_value(up) / 1000 if up is not None else default,
        )

    async def _proposals(self, hpa: Obj, status: Obj, scale: Obj, current: int) -> tuple[int, str, list[Obj]]:
        """Upstream's `computeReplicasForMetrics`: the largest proposal, or -1 and ScalingActive False."""
        wall = self.context.clock.wall()
        selector = (scale.get("status") or {}).get("selector") or ""
        if not selector:
            _set_condition(
                status,
                "ScalingActive",
                "False",
                "InvalidSelector",
                "the HPA target's scale is missing a selector",
                wall,
            )
            await self._event(hpa, WARNING, "SelectorRequired", "selector is required")
            raise MetricError("", "selector is required")
        try:
            parsed = parse_label_selector(selector)
        except SelectorError as error:
            message = f"couldn't convert selector into a corresponding internal selector object: {error}"
            _set_condition(status, "ScalingActive", "False", "InvalidSelector", message, wall)
            await self._event(hpa, WARNING, "InvalidSelector", message)
            raise MetricError("", message) from None
        namespace = hpa["metadata"]["namespace"]
        self.selectors.update(key_of(hpa), parsed)
        pods = [
            pod
            for pod in self.pods.by_index(NAMESPACE_INDEX, namespace)
            if parsed.matches(pod["metadata"].get("labels") or {})
        ]
        controlling = self.selectors.controlling(namespace, pods)
        if len(controlling) > 1:
            message = f"pods by selector {selector} are controlled by multiple HPAs: [{' '.join(controlling)}]"
            await self._event(hpa, WARNING, "AmbiguousSelector", message)
            _set_condition(status, "ScalingActive", "False", "AmbiguousSelector", message, wall)
            raise MetricError("", message)
        target = metrics.Target(
            namespace=namespace,
            spec_replicas=current,
            status_replicas=int((scale.get("status") or {}).get("replicas") or 0),
            selector=selector,
            pods=pods,
            tolerances=self._tolerances(hpa),
            readiness=replicas.Readiness(
                self.settings.cpu_initialization_period, self.settings.initial_readiness_delay
            ),
            now=self.context.clock.wall(),
        )
        specs = hpa["spec"].get("metrics") or []
        best, best_name, statuses = -1, "", []
        failures: list[tuple[Obj, MetricError]] = []
        for spec in specs:
            source_type = spec.get("type") or ""
            try:
                if source_type in ("Resource", "ContainerResource"):
                    proposal = await self._resource_proposal(spec, source_type, target)
                elif source_type in metrics.PROPOSERS:
                    source = spec.get(source_type[0].lower() + source_type[1:]) or {}
                    proposal = await metrics.PROPOSERS[source_type](self.reader, source, target)
                else:
                    raise MetricError("InvalidMetricSourceType", f'unknown metric source type "{source_type}"')
            except MetricError as error:
                await self._event(hpa, WARNING, error.reason, str(error))
                failures.append((spec, error))
                continue
            statuses.append(proposal.status)
            if proposal.replicas > best:
                best, best_name = proposal.replicas, proposal.name
        if failures and (len(failures) >= len(specs) or best < current):
            first_spec, first = failures[0]
            message = f"the HPA was unable to compute the replica count: {first}"
            _set_condition(status, "ScalingActive", "False", first.reason, message, wall)
            summary = f"invalid metrics ({len(failures)} invalid out of {len(specs)}), first error is: "
            raise MetricError(first.reason, summary + _wrapped(first_spec, first))
        message = f"the HPA was able to successfully calculate a replica count from {best_name}"
        _set_condition(status, "ScalingActive", "True", "ValidMetricFound", message, wall)
        return best, best_name, statuses

    # -- reconcile ---------------------------------------------------------------------------
    async def reconcile(self, key: str, hpa: Obj) -> None:
        clock = self.context.clock
        spec = hpa["spec"]
        status = copy.deepcopy(hpa.get("status") or {})
        namespace = hpa["metadata"]["namespace"]
        ref = spec.get("scaleTargetRef") or {}
        try:
            scale_path = await self._scale_path(namespace, ref)
            scale = await self.context.client.get(scale_path)
        except (ApiError, OSError) as error:
            message = error_message(error)
            text = f"the HPA controller was unable to get the target's current scale: {message}"
            await self._event(hpa, WARNING, "FailedGetScale", message)
            _set_condition(status, "AbleToScale", "False", "FailedGetScale", text, clock.wall())
            await self._write_status(hpa, status)
            return
        _set_condition(
            status,
            "AbleToScale",
            "True",
            "SucceededGetScale",
            "the HPA controller was able to get the target's current scale",
            clock.wall(),
        )
        current = int((scale.get("spec") or {}).get("replicas") or 0)
        history = self.histories.setdefault(key, behavior.History())
        if not history.recommendations:
            history.recommendations.append((current, clock.now()))
        min_replicas = int(spec.get("minReplicas") if spec.get("minReplicas") is not None else 1)
        max_replicas = int(spec.get("maxReplicas") or 0)
        rescale, desired, statuses = True, 0, status.get("currentMetrics") or []
        reason = ""
        if current == 0 and min_replicas != 0:
            rescale = False
            _set_condition(
                status,
                "ScalingActive",
                "False",
                "ScalingDisabled",
                "scaling is disabled since the replica count of the target is zero",
                clock.wall(),
            )
        elif current > max_replicas:
            desired, reason = max_replicas, ABOVE_MAX
        elif current < min_replicas:
            desired, reason = min_replicas, BELOW_MIN
        else:
            try:
                proposal, metric_name, statuses = await self._proposals(hpa, status, scale, current)
            except MetricError as error:
                status.update(currentReplicas=current)
                await self._write_status(hpa, status)
                await self._event(hpa, WARNING, "FailedComputeMetricsReplicas", str(error))
                return
            desired = max(desired, proposal)
            if desired > current:
                reason = f"{metric_name} above target"
            elif desired < current:
                reason = "All metrics below target"
            outcome = self._normalize(history, spec, current, desired, min_replicas, max_replicas)
            _set_condition(status, "AbleToScale", "True", *outcome.able_to_scale, clock.wall())
            _set_condition(
                status, "ScalingLimited", "True" if outcome.limited else "False", *outcome.limit, clock.wall()
            )
            desired = outcome.replicas
            rescale = desired != current
        if rescale:
            updated = copy.deepcopy(scale)
            updated.setdefault("spec", {})["replicas"] = desired
            try:
                await self.context.client.update(scale_path, updated)
            except (ApiError, OSError) as error:
                message = error_message(error)
                text = f"the HPA controller was unable to update the target scale: {message}"
                await self._event(
                    hpa, WARNING, "FailedRescale", f"New size: {desired}; reason: {reason}; error: {message}"
                )
                _set_condition(status, "AbleToScale", "False", "FailedUpdateScale", text, clock.wall())
                status.update(currentReplicas=current, currentMetrics=statuses)
                await self._write_status(hpa, status)
                raise
            _set_condition(
                status,
                "AbleToScale",
                "True",
                "SucceededRescale",
                f"the HPA controller was able to update the target scale to {desired}",
                clock.wall(),
            )
            await self._event(hpa, NORMAL, "SuccessfulRescale", f"New size: {desired}; reason: {reason}")
            behavior.store_scale_event(history, spec.get("behavior"), current, desired, clock.now())
            status["lastScaleTime"] = rfc3339(clock.wall())
        else:
            desired = current
        status.update(currentReplicas=current, desiredReplicas=desired)
        if statuses:
            status["currentMetrics"] = statuses
        else:
            status.pop("currentMetrics", None)
        await self._write_status(hpa, status)

    def _normalize(
        self, history: behavior.History, spec: Obj, current: int, desired: int, min_replicas: int, max_replicas: int
    ) -> behavior.Outcome:
        now = self.context.clock.now()
        rules = spec.get("behavior")
        if rules is None:
            return behavior.normalize(
                history,
                current=current,
                desired=desired,
                min_replicas=min_replicas,
                max_replicas=max_replicas,
                window=self.settings.downscale_stabilization,
                now=now,
            )
        return behavior.normalize_with_behavior(
            history,
            rules,
            current=current,
            desired=desired,
            min_replicas=min_replicas,
            max_replicas=max_replicas,
            default_down_window=self.settings.downscale_stabilization,
            now=now,
        )

    async def _write_status(self, hpa: Obj, status: Obj) -> None:
        generation = hpa["metadata"].get("generation")
        if generation is not None:
            status["observedGeneration"] = generation
        if status == (hpa.get("status") or {}):
            return
        updated = {**hpa, "status": status}
        meta = hpa["metadata"]
        path = resource_path(
            self.autoscaling,
            "v2",
            "horizontalpodautoscalers",
            namespace=meta["namespace"],
            name=meta["name"],
            subresource="status",
        )
        try:
            try:
                await self.context.client.update(path, updated)
            except ApiError as error:
                if error.reason != "Conflict" or not await self._written_over_stale_cache(path, hpa, status):
                    raise
        except (ApiError, OSError) as error:
            message = error_message(error)
            await self._event(hpa, WARNING, "FailedUpdateStatus", message)
            raise

    async def _written_over_stale_cache(self, path: str, hpa: Obj, status: Obj) -> bool:
        """A status computed from a cached HPA older than this controller's own last write conflicts;
        written again over the stored version when the spec it was computed from is unchanged, so a
        rescale's `lastScaleTime` is not lost (the next sync would find nothing left to rescale)."""
        try:
            stored = await self.context.client.get(path)
        except ApiError:
            return False  # the conflict is what is reported
        if any(stored["metadata"].get(field) != hpa["metadata"].get(field) for field in ("uid", "generation")):
            return False
        await self.context.client.update(path, {**stored, "status": status})
        return True


def _wrapped(spec: Obj, error: MetricError) -> str:
    """The failing metric's error as upstream's `computeReplicasForMetric` returns it."""
    kind = spec.get("type") or ""
    if kind == "Object":
        return f"failed to get object metric value: {error}"
    if kind == "Pods":
        return f"failed to get pods metric value: {error}"
    if kind == "Resource":
        return f"failed to get {(spec.get('resource') or {}).get('name', '')} resource metric value: {error}"
    if kind == "ContainerResource":
        container = (spec.get("containerResource") or {}).get("container", "")
        return f"failed to get {container} container metric value: {error}"
    if kind == "External":
        name = ((spec.get("external") or {}).get("metric") or {}).get("name", "")
        return f"failed to get {name} external metric value: {error}"
    return str(error)
