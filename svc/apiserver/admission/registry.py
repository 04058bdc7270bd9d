"""The admission plugin registry: every upstream plugin name in upstream's fixed order, the module that
builds it, and the default-on set (kube-apiserver's `AllOrderedPlugins` and `DefaultOffAdmissionPlugins`).

Adding a plugin: write `svc/apiserver/admission/plugins/<module>.py` exposing one function

    def build(context: PluginContext) -> Plugin | None

where `Plugin` is any object with `async def admit(attributes)` (mutating phase) and/or
`async def validate(attributes)` (validating phase) taking `svc.registry.admission.Attributes` and
raising `svc.machinery.status.StatusError` to reject (`attributes.warn(text)` adds a response warning).
A plugin that only concerns some resources declares them in a `resources` attribute, a frozenset of
`(upstream group, resource)` pairs, and the chain skips it for every other resource; without one it
sees every request. Returning None means "nothing to do in this configuration" (a feature gate off,
say). `context.configuration` is the plugin's section of
`--admission-control-config-file` (a parsed document, or None); `context.server` is the `Server`, read
at request time (stores and watch caches exist only after start); `context.get` and `context.list`
read other objects from the watch caches (shared: read them, never change them). A build that raises
ValueError stops start-up with its message.

A name whose module does not exist yet is accepted by the flags (it is upstream's) and skipped with a
log line: plugins written elsewhere only have to add their module.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from svc.apiserver.admission.chain import NamedPlugin
from svc.machinery import status
from svc.storage.backend import prefix_end

if TYPE_CHECKING:
    from svc.apiserver.admission.options import AdmissionOptions
    from svc.apiserver.server import Server
    from svc.registry.store import GenericStore
    from svc.storage.cached_object import CachedObject

log = logging.getLogger(__name__)

Obj = dict[str, Any]
# Decoded objects kept per plugin (a bound on memory; cleared when reached).
_DECODED_LIMIT = 4096

# (upstream name, module under svc.apiserver.admission.plugins), in upstream's execution order.
ORDERED_PLUGINS: tuple[tuple[str, str], ...] = (
    ("AlwaysAdmit", "always_admit"),
    ("NamespaceAutoProvision", "namespace_autoprovision"),
    ("NamespaceLifecycle", "namespace_lifecycle"),
    ("NamespaceExists", "namespace_exists"),
    ("LimitPodHardAntiAffinityTopology", "limit_pod_hard_anti_affinity_topology"),
    ("LimitRanger", "limit_ranger"),
    ("ServiceAccount", "service_account"),
    ("NodeRestriction", "node_restriction"),
    ("TaintNodesByCondition", "taint_nodes_by_condition"),
    ("AlwaysPullImages", "always_pull_images"),
    ("ImagePolicyWebhook", "image_policy_webhook"),
    ("PodSecurity", "pod_security"),
    ("PodNodeSelector", "pod_node_selector"),
    ("Priority", "priority"),
    ("DefaultTolerationSeconds", "default_toleration_seconds"),
    ("PodTolerationRestriction", "pod_toleration_restriction"),
    ("EventRateLimit", "event_rate_limit"),
    ("ExtendedResourceToleration", "extended_resource_toleration"),
    ("DefaultStorageClass", "default_storage_class"),
    ("StorageObjectInUseProtection", "storage_object_in_use_protection"),
    ("PodGroupProtection", "pod_group_protection"),
    ("OwnerReferencesPermissionEnforcement", "owner_references_permission_enforcement"),
    ("PersistentVolumeClaimResize", "persistent_volume_claim_resize"),
    ("RuntimeClass", "runtime_class"),
    ("CertificateApproval", "certificate_approval"),
    ("CertificateSigning", "certificate_signing"),
    ("ClusterTrustBundleAttest", "cluster_trust_bundle_attest"),
    ("CertificateSubjectRestriction", "certificate_subject_restriction"),
    ("DefaultIngressClass", "default_ingress_class"),
    ("DenyServiceExternalIPs", "deny_service_external_ips"),
    ("PodTopologyLabels", "pod_topology_labels"),
    ("PodGroupWorkloadExists", "pod_group_workload_exists"),
    ("NodeDeclaredFeatureValidator", "node_declared_feature_validator"),
    ("JobValidation", "job_validation"),
    ("PodResizeValidator", "pod_resize_validator"),
    # webhooks, policies, quota and deny go last, as upstream requires
    ("MutatingAdmissionPolicy", "mutating_admission_policy"),
    ("MutatingAdmissionWebhook", "mutating_admission_webhook"),
    ("ValidatingAdmissionPolicy", "validating_admission_policy"),
    ("ValidatingAdmissionWebhook", "validating_admission_webhook"),
    ("ResourceQuota", "resource_quota"),
    ("AlwaysDeny", "always_deny"),
)

ORDERED_NAMES: tuple[str, ...] = tuple(name for name, _ in ORDERED_PLUGINS)
MODULES: dict[str, str] = dict(ORDERED_PLUGINS)

DEFAULT_ON: frozenset[str] = frozenset(
    {
        "NamespaceLifecycle",
        "LimitRanger",
        "ServiceAccount",
        "DefaultStorageClass",
        "PersistentVolumeClaimResize",
        "DefaultTolerationSeconds",
        "MutatingAdmissionWebhook",
        "ValidatingAdmissionWebhook",
        "ResourceQuota",
        "StorageObjectInUseProtection",
        "PodGroupProtection",
        "Priority",
        "TaintNodesByCondition",
        "RuntimeClass",
        "CertificateApproval",
        "CertificateSigning",
        "ClusterTrustBundleAttest",
        "CertificateSubjectRestriction",
        "DefaultIngressClass",
        "PodSecurity",
        "PodTopologyLabels",
        "MutatingAdmissionPolicy",
        "ValidatingAdmissionPolicy",
        "PodGroupWorkloadExists",
        "NodeDeclaredFeatureValidator",
        "JobValidation",
        "PodResizeValidator",
    }
)
DEFAULT_OFF: frozenset[str] = frozenset(ORDERED_NAMES) - DEFAULT_ON


@dataclass
class PluginContext:
    """What a plugin builder receives."""

    name: str
    server: Server
    configuration: Any = None
    _stores: dict[tuple[str, str], GenericStore] = field(default_factory=dict, repr=False)
    _objects: dict[int, tuple[CachedObject, Obj]] = field(default_factory=dict, repr=False)

    @property
    def profile(self) -> Any:
        return self.server.profile

    def store(self, upstream_group: str, resource: str) -> GenericStore | None:
        """The store of a resource (None when it is not served); looked up once, as every request of
        every plugin asks."""
        key = (upstream_group, resource)
        found = self._stores.get(key)
        if found is None:
            try:
                found = self._stores[key] = self.server.store_for(upstream_group, resource)
            except status.StatusError:
                return None
        return found

    async def get(self, upstream_group: str, resource: str, namespace: str, name: str) -> Obj | None:
        """One object as its plugin's informer would see it: from the watch cache, else storage. An
        object from the cache is shared by every request until it changes: read it, never change it."""
        store = self.store(upstream_group, resource)
        if store is None:
            return None
        if store.cache is not None:
            cached = store.cache.state.get(store.key(namespace, name))
            if cached is not None:
                return self._decoded(store, cached)
        try:
            return await store.get(namespace, name)
        except status.StatusError as error:
            if error.code == 404:
                return None
            raise

    def list(self, upstream_group: str, resource: str, namespace: str = "") -> list[Obj]:
        """The objects of a resource (in one namespace, or all) in the watch cache; empty without one.
        Shared like `get`'s."""
        store = self.store(upstream_group, resource)
        if store is None or store.cache is None:
            return []
        prefix = store.prefix(namespace)
        snapshot, span = store.cache.shared_snapshot(prefix, prefix_end(prefix))
        return [self._decoded(store, snapshot.objects[index]) for index in span]

    def _decoded(self, store: GenericStore, cached: CachedObject) -> Obj:
        """Decoded once per stored version (the cache replaces the CachedObject when it changes)."""
        known = self._objects.get(id(cached))
        if known is not None and known[0] is cached:
            return known[1]
        if len(self._objects) >= _DECODED_LIMIT:
            self._objects.clear()
        obj = store.present(cached.decode())
        self._objects[id(cached)] = (cached, obj)
        return obj


Builder = Callable[[PluginContext], Any]


def builder_for(name: str) -> Builder | None:
    """The `build` function of a plugin, or None when its module is not part of this build."""
    module_name = f"svc.apiserver.admission.plugins.{MODULES[name]}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise
        return None
    return module.build


def build_plugins(options: AdmissionOptions, server: Server) -> list[NamedPlugin]:
    """The enabled plugins, built in upstream's order; raises ValueError on a bad configuration."""
    plugins: list[NamedPlugin] = []
    for name in options.enabled_plugins():
        build = builder_for(name)
        if build is None:
            log.info("admission plugin %s is not implemented in this build; skipped", name)
            continue
        plugin = build(PluginContext(name, server, options.configuration.for_plugin(name)))
        if plugin is not None:
            plugins.append(NamedPlugin(name, plugin))
    return plugins
