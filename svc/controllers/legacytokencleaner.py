"""The legacy-serviceaccount-token-cleaner controller: auto-generated token Secrets unused for a year go.

Upstream `pkg/controller/serviceaccount/legacy_serviceaccount_token_cleaner.go`, once a day: only
after the API server has tracked token use for the whole clean-up period (the `since` date of its
`<apiserver>-legacy-service-account-token-tracking` ConfigMap in the system namespace), a token Secret
older than the period, not used within it (the `legacy-token-last-used` label the API server writes),
listed in its account's `secrets` (so auto-generated) and mounted by no pod is first labelled
`legacy-token-invalid-since` with today's date (the API server then refuses the token), and deleted once
that date too is older than the period. Dates are compared as `YYYY-MM-DD` text, as upstream does.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Iterator
from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.informer import NAMESPACE_INDEX
from svc.client.workers import every
from svc.controllers.context import ControllerContext

NAME = "legacy-serviceaccount-token-cleaner-controller"
SYNC_INTERVAL = 24 * 3600.0
log = logging.getLogger(__name__)
Obj = dict[str, Any]


def _date(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).strftime("%Y-%m-%d")


def _parse_date(text: str | None) -> datetime.datetime | None:
    try:
        return datetime.datetime.strptime(text or "", "%Y-%m-%d").replace(tzinfo=datetime.UTC)
    except ValueError:
        return None


def _created(obj: Obj) -> float:
    text = obj["metadata"].get("creationTimestamp") or ""
    try:
        return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


def pod_secret_names(pod: Obj) -> Iterator[str]:
    """Upstream's `VisitPodSecretNames`: pull secrets, env and envFrom of every container, and the
    secret references of volume sources."""
    spec = pod.get("spec") or {}
    for ref in spec.get("imagePullSecrets") or ():
        yield ref.get("name", "")
    for group in ("initContainers", "containers", "ephemeralContainers"):
        for container in spec.get(group) or ():
            for source in container.get("envFrom") or ():
                yield (source.get("secretRef") or {}).get("name", "")
            for variable in container.get("env") or ():
                yield ((variable.get("valueFrom") or {}).get("secretKeyRef") or {}).get("name", "")
    for volume in spec.get("volumes") or ():
        yield (volume.get("secret") or {}).get("secretName", "")
        yield (volume.get("azureFile") or {}).get("secretName", "")
        for source in (volume.get("projected") or {}).get("sources") or ():
            yield (source.get("secret") or {}).get("name", "")
        yield ((volume.get("csi") or {}).get("nodePublishSecretRef") or {}).get("name", "")
        for plugin in ("cephfs", "cinder", "flexVolume", "iscsi", "rbd", "scaleIO", "storageos"):
            yield ((volume.get(plugin) or {}).get("secretRef") or {}).get("name", "")


class LegacyTokenCleaner:
    def __init__(self, context: ControllerContext, *, clean_up_period: float = 365 * 24 * 3600.0) -> None:
        self.context = context
        self.period = clean_up_period
        label = context.profile.label
        self.token_type = label("kubernetes.io/service-account-token")
        self.name_key = label("kubernetes.io/service-account.name")
        self.uid_key = label("kubernetes.io/service-account.uid")
        self.last_used = label("kubernetes.io/legacy-token-last-used")
        self.invalid_since = label("kubernetes.io/legacy-token-invalid-since")
        self.tracking = f"{context.profile.apiserver_name}-legacy-service-account-token-tracking"
        self.accounts = context.informers.informer("", "v1", "serviceaccounts")
        self.secrets = context.informers.informer("", "v1", "secrets")
        self.pods = context.informers.informer("", "v1", "pods")

    async def run(self) -> None:
        await every(self.context.clock, SYNC_INTERVAL, self.evaluate)

    async def _tracked_since(self) -> datetime.datetime | None:
        path = resource_path(
            "", "v1", "configmaps", namespace=self.context.profile.system_namespace, name=self.tracking
        )
        try:
            config_map = await self.context.client.get(path)
        except ApiError as error:
            log.warning("%s: getting the tracking ConfigMap failed: %s", NAME, error)
            return None
        since = _parse_date((config_map.get("data") or {}).get("since"))
        if since is None:
            log.warning("%s: the tracking ConfigMap has no valid since date", NAME)
            return None
        return since + datetime.timedelta(days=1)

    async def evaluate(self) -> None:
        now = self.context.clock.wall()
        since = await self._tracked_since()
        if since is None or now < since.timestamp() + self.period:
            return
        keep_created_after = now - self.period
        keep_used_on_or_after = _date(now - self.period)
        mounted: dict[str, set[str]] = {}
        for secret in self.secrets.list():
            if not self._candidate(secret, keep_created_after, keep_used_on_or_after):
                continue
            namespace = secret["metadata"]["namespace"]
            if namespace not in mounted:
                pods = self.pods.by_index(NAMESPACE_INDEX, namespace)
                mounted[namespace] = {name for pod in pods for name in pod_secret_names(pod) if name}
            if secret["metadata"]["name"] in mounted[namespace]:
                continue
            invalid_since = (secret["metadata"].get("labels") or {}).get(self.invalid_since)
            if _parse_date(invalid_since) is None:
                await self._mark_invalid(secret, _date(now))
            elif invalid_since < keep_used_on_or_after:
                await self._delete(secret)

    def _candidate(self, secret: Obj, keep_created_after: float, keep_used_on_or_after: str) -> bool:
        metadata = secret["metadata"]
        if secret.get("type") != self.token_type or metadata.get("deletionTimestamp"):
            return False
        if _created(secret) >= keep_created_after:
            return False
        last_used = (metadata.get("labels") or {}).get(self.last_used)
        if last_used is not None and (_parse_date(last_used) is None or last_used >= keep_used_on_or_after):
            return False
        account = self._account(secret)
        return account is not None and any(ref.get("name") == metadata["name"] for ref in account.get("secrets") or ())

    def _account(self, secret: Obj) -> Obj | None:
        annotations = secret["metadata"].get("annotations") or {}
        name = annotations.get(self.name_key)
        if not name:
            return None
        account = self.accounts.get(f"{secret['metadata']['namespace']}/{name}")
        uid = annotations.get(self.uid_key)
        if account is None or (uid and account["metadata"].get("uid") != uid):
            return None
        return account

    def _path(self, secret: Obj) -> str:
        metadata = secret["metadata"]
        return resource_path("", "v1", "secrets", namespace=metadata["namespace"], name=metadata["name"])

    async def _mark_invalid(self, secret: Obj, today: str) -> None:
        log.info(
            "%s: marking %s/%s invalid since %s",
            NAME,
            secret["metadata"]["namespace"],
            secret["metadata"]["name"],
            today,
        )
        patch = {"metadata": {"uid": secret["metadata"].get("uid"), "labels": {self.invalid_since: today}}}
        try:
            await self.context.client.patch(self._path(secret), patch)
        except (ApiError, OSError) as error:
            log.warning("%s: labelling %s failed: %s", NAME, secret["metadata"]["name"], error)

    async def _delete(self, secret: Obj) -> None:
        body = {"preconditions": {"resourceVersion": secret["metadata"].get("resourceVersion")}}
        try:
            await self.context.client.delete(self._path(secret), body)
        except (ApiError, OSError) as error:
            if not isinstance(error, ApiError) or error.reason not in ("NotFound", "Conflict"):
                log.warning("%s: deleting %s failed: %s", NAME, secret["metadata"]["name"], error)
