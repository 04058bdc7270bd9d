"""The `<apiserver>-serving-clustertrustbundle-publisher-controller`: the API server's serving CA as a
ClusterTrustBundle, so workloads can trust the API server through a projected bundle.

Upstream `pkg/controller/certificates/clustertrustbundlepublisher`: one bundle of signer
`kubernetes.io/kube-apiserver-serving` (profile spelling `svc.io/svc-apiserver-serving`), named
`<signer with ':' for '/'>:<first 12 bytes of the bundle's SHA-256 in hex>`, holding the CA
(`--root-ca-file`, else the kubeconfig's CA); a bundle of that name whose content differs is updated,
and every other bundle of the signer is deleted. Upstream starts it only with the ClusterTrustBundle
gate, and not at all without a CA; it looks the API up in discovery (v1beta1 first, then v1alpha1)
and, when neither version is served, logs that it cannot start. The controller keeps its own
informer, filtered to its signer, because the version it watches is only known after discovery.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging

from svc.client.aio import ApiError, resource_path
from svc.client.informer import Handler, Informer, RestListerWatcher
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext

GATE = "ClusterTrustBundle"
VERSIONS = ("v1beta1", "v1alpha1")
RESOURCE = "clustertrustbundles"
log = logging.getLogger(__name__)
Obj = dict


NAME = "{apiserver}-serving-clustertrustbundle-publisher-controller"
DISCOVERY_RETRY = (1.0, 30.0)
"""First and longest wait before asking discovery again after it failed (seconds)."""


def bundle_name(signer: str, bundle: bytes) -> str:
    return signer.replace("/", ":") + ":" + hashlib.sha256(bundle).digest()[:12].hex()


class ClusterTrustBundlePublisher:
    def __init__(self, context: ControllerContext) -> None:
        self.context = context
        profile = context.profile
        self.name = NAME.format(apiserver=profile.apiserver_name)
        self.signer = f"{profile.label_domain}/{profile.apiserver_name}-serving"
        self.group = profile.group("certificates.k8s.io")
        self.bundle = context.root_ca.decode()
        self.version = ""
        self.bundles: Informer | None = None
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(
            "ca_cert_publisher_cluster_trust_bundles", clock=context.clock
        )

    async def served_version(self) -> str:
        """The first of v1beta1, v1alpha1 whose discovery lists clustertrustbundles, or ''."""
        for version in VERSIONS:
            try:
                listed = await self.context.client.get(f"/apis/{self.group}/{version}")
            except ApiError as error:
                if error.code == 404:
                    continue
                raise
            if any(resource.get("name") == RESOURCE for resource in listed.get("resources") or []):
                return version
        return ""

    def watch(self, version: str) -> Informer:
        """Start caching the signer's bundles of `version`; every change re-queues the one sync."""
        self.version = version
        path = resource_path(self.group, version, RESOURCE)
        self.bundles = Informer(RestListerWatcher(self.context.client, path), clock=self.context.clock)
        self.bundles.add_handler(Handler(on_add=self._again, on_update=self._again, on_delete=self._again))
        return self.bundles

    def _again(self, *_objects: Obj) -> None:
        self.queue.add("")

    async def discovered_version(self) -> str:
        """`served_version`, asked again with a doubling wait while discovery fails. Upstream fails the
        controller's start, and with it the daemon's; waiting here keeps the other controllers up."""
        delay, longest = DISCOVERY_RETRY
        while True:
            try:
                return await self.served_version()
            except (ApiError, OSError) as error:
                log.warning("%s: discovery failed for ClusterTrustBundle: %s; again in %.0f s", self.name, error, delay)
                await self.context.clock.sleep(delay)
                delay = min(delay * 2, longest)

    async def run(self) -> None:
        version = await self.discovered_version()
        if not version:
            log.info("no known scheme version was found for clustertrustbundles, cannot start %s", self.name)
            await asyncio.Event().wait()  # upstream leaves the controller unstarted
        informer = self.watch(version)
        watching = asyncio.create_task(informer.run(), name=f"{self.name}/informer")
        try:
            await informer.synced.wait()
            self.queue.add("")
            await run_workers(self.queue, lambda _key: self.sync(), workers=1, name=self.name)
        finally:
            watching.cancel()
            await asyncio.gather(watching, return_exceptions=True)

    def _path(self, name: str = "") -> str:
        return resource_path(self.group, self.version, RESOURCE, name=name)

    async def sync(self) -> None:
        assert self.bundles is not None
        wanted = bundle_name(self.signer, self.bundle.encode())
        current = self.bundles.get(wanted)
        if current is None:
            body = {"metadata": {"name": wanted}, "spec": {"signerName": self.signer, "trustBundle": self.bundle}}
            await self.context.client.create(self._path(), body)
        elif (current.get("spec") or {}).get("trustBundle") != self.bundle:
            updated = {**current, "spec": {**current["spec"], "trustBundle": self.bundle}}
            await self.context.client.update(self._path(wanted), updated)
        failed: ApiError | None = None
        for bundle in self.bundles.list():
            name = bundle["metadata"]["name"]
            if name == wanted or (bundle.get("spec") or {}).get("signerName") != self.signer:
                continue
            try:
                await self.context.client.delete(self._path(name))
            except ApiError as error:
                if error.reason != "NotFound":
                    log.warning("%s: removing bundle %s: %s", self.name, name, error)
                    failed = error
        if failed is not None:
            raise failed
