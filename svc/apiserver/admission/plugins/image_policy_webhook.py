"""ImagePolicyWebhook: a backend named by a kubeconfig decides, per ImageReview
(`imagepolicy.k8s.io/v1alpha1`: the pod's images, its `*.image-policy.k8s.io/*` annotations and
namespace), whether a new pod may run its images. Answers are cached (`allowTTL`, `denyTTL` seconds);
a failing backend admits (`defaultAllow`, marking the pod `alpha.image-policy.k8s.io/failed-open`) or
rejects. Configured under `imagePolicy` in the plugin's configuration, as upstream."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any

import aiohttp
import orjson

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.matching import is_pod
from svc.apiserver.admission.registry import PluginContext
from svc.client.kubeconfig import ClientConfig, KubeconfigError, load_kubeconfig
from svc.client.tls import ssl_context
from svc.machinery import wallclock
from svc.registry.admission import Attributes, Operation

Obj = dict[str, Any]
_ANNOTATION = re.compile(r"^.+\.image-policy\.k8s\.io/.+$")
FAILED_OPEN = "alpha.image-policy.k8s.io/failed-open"
_ATTEMPTS = 3
_TIMEOUT = 30.0


class _BackendError(Exception):
    pass


@dataclass(frozen=True)
class Settings:
    backend: ClientConfig
    allow_ttl: float = 300.0
    deny_ttl: float = 30.0
    retry_backoff: float = 0.5
    default_allow: bool = False


def parse_settings(configuration: Any) -> Settings:
    """Raises ValueError on a configuration upstream would reject."""
    policy = (configuration or {}).get("imagePolicy")
    if not isinstance(policy, dict) or not policy.get("kubeConfigFile"):
        raise ValueError("ImagePolicyWebhook: imagePolicy.kubeConfigFile is required")
    try:
        backend = load_kubeconfig(policy["kubeConfigFile"])
    except KubeconfigError as error:
        raise ValueError(f"ImagePolicyWebhook: {error}") from None
    return Settings(
        backend,
        float(policy.get("allowTTL", 300)),
        float(policy.get("denyTTL", 30)),
        float(policy.get("retryBackoff", 500)) / 1000,
        bool(policy.get("defaultAllow", False)),
    )


class ImagePolicyWebhook:
    resources = frozenset({("", "pods")})

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._cache: dict[bytes, tuple[float, Obj]] = {}
        self._ssl = ssl_context(settings.backend) if settings.backend.server.startswith("https") else None

    async def validate(self, attributes: Attributes) -> None:
        if not is_pod(attributes) or attributes.operation is not Operation.CREATE:
            return
        pod = attributes.object or {}
        spec, metadata = pod.get("spec") or {}, pod.setdefault("metadata", {})
        annotations = metadata.get("annotations") or {}
        review_spec = {
            "containers": [
                {"image": c.get("image", "")}
                for c in [*(spec.get("containers") or ()), *(spec.get("initContainers") or ())]
            ],
            "annotations": {k: v for k, v in annotations.items() if _ANNOTATION.match(k)},
            "namespace": attributes.namespace,
        }
        try:
            verdict = await self._review(review_spec)
        except _BackendError as error:
            if not self._settings.default_allow:
                raise forbidden(attributes, str(error)) from None
            metadata["annotations"] = {**annotations, FAILED_OPEN: "true"}
            return
        if not verdict.get("allowed"):
            reason = verdict.get("reason")
            if reason:
                raise forbidden(attributes, f"image policy webhook backend denied one or more images: {reason}")
            raise forbidden(attributes, "one or more images rejected by webhook backend")

    async def _review(self, spec: Obj) -> Obj:
        key = orjson.dumps(spec, option=orjson.OPT_SORT_KEYS)
        now = wallclock.monotonic()
        cached = self._cache.get(key)
        if cached is not None and cached[0] > now:
            return cached[1]
        review = {"apiVersion": "imagepolicy.k8s.io/v1alpha1", "kind": "ImageReview", "spec": spec}
        verdict = await self._post(review)
        ttl = self._settings.allow_ttl if verdict.get("allowed") else self._settings.deny_ttl
        self._cache[key] = (now + ttl, verdict)
        return verdict

    async def _post(self, review: Obj) -> Obj:
        backend = self._settings.backend
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if backend.token:
            headers["Authorization"] = f"Bearer {backend.token}"
        delay = self._settings.retry_backoff
        error = ""
        for attempt in range(_ATTEMPTS):
            if attempt:
                await asyncio.sleep(delay)
                delay *= 2
            try:
                async with (
                    aiohttp.ClientSession() as session,
                    session.post(
                        backend.server,
                        data=orjson.dumps(review),
                        headers=headers,
                        ssl=self._ssl if self._ssl is not None else False,
                        timeout=aiohttp.ClientTimeout(total=_TIMEOUT),
                    ) as response,
                ):
                    body = await response.read()
                    if response.status >= 500 or response.status == 429:
                        error = f"Error contacting webhook: {response.status}"
                        continue
                    if not 200 <= response.status < 300:
                        raise _BackendError(f"Error contacting webhook: {response.status}")
            except (aiohttp.ClientError, OSError, TimeoutError) as failure:
                error = f"Post {backend.server}: {failure}"
                continue
            try:
                status = orjson.loads(body).get("status") or {}
            except (orjson.JSONDecodeError, AttributeError) as failure:
                raise _BackendError(str(failure)) from None
            return status if isinstance(status, dict) else {}
        raise _BackendError(error)


def build(context: PluginContext) -> ImagePolicyWebhook:
    return ImagePolicyWebhook(parse_settings(context.configuration))
