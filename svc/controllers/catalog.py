"""Which controllers exist: upstream's full list, its short aliases, and how each is built here.

`--controllers` is checked against upstream's list (an unknown name is refused with upstream's
message); every controller of that list has a constructor below (those upstream does not start in
this setting return None: see `unavailable.py`, the feature gates and the flags). `*` means every
controller that upstream enables by default.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from svc.apiserver.feature_gates import FeatureGates
from svc.controllers import (
    admissionpolicystatus,
    attachdetach,
    bootstrapsigner,
    clusterroleaggregation,
    cronjob,
    csr_rules,
    csrapproving,
    csrcleaner,
    csrsigning,
    ctbpublisher,
    daemonset,
    deployment,
    devicetainteviction,
    disruption,
    endpoints,
    endpointslice,
    endpointslicemirroring,
    ephemeralvolume,
    garbagecollector,
    horizontalpodautoscaler,
    job,
    legacytokencleaner,
    namespace,
    nodeipam,
    nodelifecycle,
    pcrcleaner,
    podgc,
    podgroupprotection,
    pvbinder,
    pvcprotection,
    pvexpander,
    pvprotection,
    replicaset,
    resourceclaim,
    resourcepoolstatusrequest,
    resourcequota,
    rootcacert,
    satoken,
    selinuxwarning,
    serviceaccount,
    servicecidr,
    statefulset,
    storageversionmigrator,
    tainteviction,
    tokencleaner,
    ttl,
    ttlafterfinished,
    unavailable,
    vacprotection,
)
from svc.controllers.context import ControllerContext

_UPSTREAM = """bootstrap-signer-controller certificatesigningrequest-approving-controller
certificatesigningrequest-cleaner-controller certificatesigningrequest-signing-controller
cloud-node-lifecycle-controller clusterrole-aggregation-controller cronjob-controller daemonset-controller
deployment-controller device-taint-eviction-controller disruption-controller endpoints-controller
endpointslice-controller endpointslice-mirroring-controller ephemeral-volume-controller
garbage-collector-controller horizontal-pod-autoscaler-controller job-controller
{apiserver}-serving-clustertrustbundle-publisher-controller legacy-serviceaccount-token-cleaner-controller
namespace-controller node-ipam-controller node-lifecycle-controller node-route-controller
persistentvolume-attach-detach-controller persistentvolume-binder-controller
persistentvolume-expander-controller persistentvolume-protection-controller
persistentvolumeclaim-protection-controller pod-garbage-collector-controller
podcertificaterequest-cleaner-controller podgroup-protection-controller replicaset-controller
replicationcontroller-controller resourceclaim-controller resourcepoolstatusrequest-controller
resourcequota-controller root-ca-certificate-publisher-controller selinux-warning-controller
service-cidr-controller service-lb-controller serviceaccount-controller serviceaccount-token-controller
statefulset-controller storage-version-migrator-controller storageversion-garbage-collector-controller
taint-eviction-controller token-cleaner-controller ttl-after-finished-controller ttl-controller
validatingadmissionpolicy-status-controller volumeattributesclass-protection-controller"""

DISABLED_BY_DEFAULT = frozenset(
    {"bootstrap-signer-controller", "selinux-warning-controller", "token-cleaner-controller"}
)

# The pre-1.28 short names upstream still accepts in --controllers.
ALIASES = {
    "attachdetach": "persistentvolume-attach-detach-controller",
    "bootstrapsigner": "bootstrap-signer-controller",
    "cloud-node-lifecycle": "cloud-node-lifecycle-controller",
    "clusterrole-aggregation": "clusterrole-aggregation-controller",
    "cronjob": "cronjob-controller",
    "csrapproving": "certificatesigningrequest-approving-controller",
    "csrcleaner": "certificatesigningrequest-cleaner-controller",
    "csrsigning": "certificatesigningrequest-signing-controller",
    "daemonset": "daemonset-controller",
    "deployment": "deployment-controller",
    "disruption": "disruption-controller",
    "endpoint": "endpoints-controller",
    "endpointslice": "endpointslice-controller",
    "endpointslicemirroring": "endpointslice-mirroring-controller",
    "ephemeral-volume": "ephemeral-volume-controller",
    "garbagecollector": "garbage-collector-controller",
    "horizontalpodautoscaling": "horizontal-pod-autoscaler-controller",
    "job": "job-controller",
    "legacy-service-account-token-cleaner": "legacy-serviceaccount-token-cleaner-controller",
    "namespace": "namespace-controller",
    "nodeipam": "node-ipam-controller",
    "nodelifecycle": "node-lifecycle-controller",
    "persistentvolume-binder": "persistentvolume-binder-controller",
    "persistentvolume-expander": "persistentvolume-expander-controller",
    "podgc": "pod-garbage-collector-controller",
    "pv-protection": "persistentvolume-protection-controller",
    "pvc-protection": "persistentvolumeclaim-protection-controller",
    "replicaset": "replicaset-controller",
    "replicationcontroller": "replicationcontroller-controller",
    "resourceclaim": "resourceclaim-controller",
    "resourcequota": "resourcequota-controller",
    "root-ca-cert-publisher": "root-ca-certificate-publisher-controller",
    "route": "node-route-controller",
    "service": "service-lb-controller",
    "serviceaccount": "serviceaccount-controller",
    "serviceaccount-token": "serviceaccount-token-controller",
    "statefulset": "statefulset-controller",
    "storage-version-gc": "storageversion-garbage-collector-controller",
    "tokencleaner": "token-cleaner-controller",
    "ttl": "ttl-controller",
    "ttl-after-finished": "ttl-after-finished-controller",
    "validatingadmissionpolicy-status": "validatingadmissionpolicy-status-controller",
}

# Upstream's `requiredFeatureGates`: a controller is not started while any of its gates is off (gates
# that are GA, such as VolumeAttributesClass, are always on and not listed).
REQUIRED_GATES: dict[str, tuple[str, ...]] = {
    pcrcleaner.NAME: (pcrcleaner.GATE,),
    ctbpublisher.NAME: (ctbpublisher.GATE,),
    resourcepoolstatusrequest.NAME: (resourcepoolstatusrequest.GATE,),
    podgroupprotection.NAME: (podgroupprotection.GATE,),
    devicetainteviction.NAME: (devicetainteviction.GATE,),
    storageversionmigrator.NAME: (storageversionmigrator.GATE,),
}

GARBAGE_COLLECTOR = garbagecollector.NAME
# A constructor returns None for a controller its flags leave off (upstream's "controller is disabled").
Constructor = Callable[[ControllerContext, Any], Any]

BUILT: dict[str, Constructor] = {
    serviceaccount.NAME: lambda context, options: serviceaccount.ServiceAccountController(
        context, workers=options.concurrent_serviceaccount_syncs
    ),
    rootcacert.NAME: lambda context, _options: rootcacert.RootCACertPublisher(context),
    garbagecollector.NAME: lambda context, options: garbagecollector.GarbageCollector(
        context, workers=options.concurrent_gc_syncs
    ),
    namespace.NAME: lambda context, options: namespace.NamespaceController(
        context, workers=options.concurrent_namespace_syncs, sync_period=options.namespace_sync_period
    ),
    endpoints.NAME: lambda context, options: endpoints.EndpointsController(
        context, workers=options.concurrent_endpoint_syncs, batch_period=options.endpoint_updates_batch_period
    ),
    endpointslice.NAME: lambda context, options: endpointslice.EndpointSliceController(
        context,
        workers=options.concurrent_service_endpoint_syncs,
        max_endpoints=options.max_endpoints_per_slice,
        batch_period=options.endpointslice_updates_batch_period,
    ),
    resourcequota.NAME: lambda context, options: resourcequota.ResourceQuotaController(
        context, workers=options.concurrent_resource_quota_syncs, sync_period=options.resource_quota_sync_period
    ),
    podgc.NAME: lambda context, options: podgc.PodGarbageCollector(
        context, terminated_threshold=options.terminated_pod_gc_threshold
    ),
    ttlafterfinished.NAME: lambda context, options: ttlafterfinished.TTLAfterFinishedController(
        context, workers=options.concurrent_ttl_after_finished_syncs
    ),
    deployment.NAME: lambda context, options: deployment.DeploymentController(
        context, workers=options.concurrent_deployment_syncs
    ),
    replicaset.REPLICA_SETS.name: lambda context, options: replicaset.ReplicaSetController(
        context, replicaset.REPLICA_SETS, workers=options.concurrent_replicaset_syncs
    ),
    replicaset.REPLICATION_CONTROLLERS.name: lambda context, options: replicaset.ReplicaSetController(
        context, replicaset.REPLICATION_CONTROLLERS, workers=options.concurrent_rc_syncs
    ),
    job.NAME: lambda context, options: job.JobController(context, workers=options.concurrent_job_syncs),
    horizontalpodautoscaler.NAME: lambda context, options: horizontalpodautoscaler.HorizontalPodAutoscalerController(
        context,
        workers=options.concurrent_horizontal_pod_autoscaler_syncs,
        settings=horizontalpodautoscaler.Settings(
            sync_period=options.horizontal_pod_autoscaler_sync_period,
            tolerance=options.horizontal_pod_autoscaler_tolerance,
            downscale_stabilization=options.horizontal_pod_autoscaler_downscale_stabilization,
            cpu_initialization_period=options.horizontal_pod_autoscaler_cpu_initialization_period,
            initial_readiness_delay=options.horizontal_pod_autoscaler_initial_readiness_delay,
        ),
    ),
    cronjob.NAME: lambda context, options: cronjob.CronJobController(
        context, workers=options.concurrent_cron_job_syncs
    ),
    daemonset.NAME: lambda context, options: daemonset.DaemonSetController(
        context, workers=options.concurrent_daemonset_syncs
    ),
    statefulset.NAME: lambda context, options: statefulset.StatefulSetController(
        context, workers=options.concurrent_statefulset_syncs
    ),
    clusterroleaggregation.NAME: lambda context, _options: clusterroleaggregation.ClusterRoleAggregationController(
        context
    ),
    pvprotection.NAME: lambda context, _options: pvprotection.PVProtectionController(context),
    pvcprotection.NAME: lambda context, _options: pvcprotection.PVCProtectionController(context),
    ephemeralvolume.NAME: lambda context, options: ephemeralvolume.EphemeralVolumeController(
        context, workers=options.concurrent_ephemeralvolume_syncs
    ),
    nodelifecycle.NAME: lambda context, options: nodelifecycle.NodeLifecycleController(
        context,
        monitor_period=options.node_monitor_period,
        grace_period=options.node_monitor_grace_period,
        startup_grace_period=options.node_startup_grace_period,
        eviction_rate=options.node_eviction_rate,
        secondary_eviction_rate=options.secondary_node_eviction_rate,
        large_cluster_threshold=options.large_cluster_size_threshold,
        unhealthy_zone_threshold=options.unhealthy_zone_threshold,
    ),
    tainteviction.NAME: lambda context, _options: tainteviction.TaintEvictionController(context),
    disruption.NAME: lambda context, _options: disruption.DisruptionController(context),
    csrsigning.NAME: lambda context, options: csrsigning.CSRSigningController(
        context, _signing_authorities(context, options), ttl=options.cluster_signing_duration
    ),
    csrapproving.NAME: lambda context, _options: csrapproving.CSRApprovingController(context),
    csrcleaner.NAME: lambda context, _options: csrcleaner.CSRCleanerController(context),
    ttl.NAME: lambda context, _options: ttl.TTLController(context),
    admissionpolicystatus.NAME: lambda context, options: admissionpolicystatus.AdmissionPolicyStatusController(
        context, workers=options.concurrent_validating_admission_policy_status_syncs
    ),
    satoken.NAME: lambda context, options: (
        satoken.ServiceAccountTokenController(
            context,
            satoken.load_signer(options.service_account_private_key_file, context),
            workers=options.concurrent_serviceaccount_token_syncs,
        )
        if options.service_account_private_key_file
        else None
    ),
    legacytokencleaner.NAME: lambda context, options: legacytokencleaner.LegacyTokenCleaner(
        context, clean_up_period=options.legacy_service_account_token_clean_up_period
    ),
    endpointslicemirroring.NAME: lambda context, options: endpointslicemirroring.EndpointSliceMirroringController(
        context,
        workers=options.mirroring_concurrent_service_endpoint_syncs,
        max_per_subset=options.mirroring_max_endpoints_per_subset,
        batch_period=options.mirroring_endpointslice_updates_batch_period,
    ),
    nodeipam.NAME: lambda context, options: (
        nodeipam.NodeIPAMController(context, options.ipam_config()) if options.allocate_node_cidrs else None
    ),
    servicecidr.NAME: lambda context, _options: servicecidr.ServiceCIDRController(context),
    **dict.fromkeys(unavailable.REASONS, unavailable.not_started),
    attachdetach.NAME: lambda context, options: attachdetach.AttachDetachController(
        context,
        reconcile_period=0.0
        if options.disable_attach_detach_reconcile_sync
        else options.attach_detach_reconcile_sync_period,
        force_detach=not options.disable_force_detach_on_timeout,
    ),
    resourceclaim.NAME: lambda context, options: resourceclaim.ResourceClaimController(
        context, workers=options.concurrent_resourceclaim_syncs
    ),
    pvexpander.NAME: lambda context, _options: pvexpander.PersistentVolumeExpander(context),
    pvbinder.NAME: lambda context, options: pvbinder.PersistentVolumeBinder(
        context,
        sync_period=options.pvclaimbinder_sync_period,
        dynamic_provisioning=options.enable_dynamic_provisioning,
        recycler_plugins=options.recycler_plugins(),
    ),
    vacprotection.NAME: lambda context, _options: vacprotection.VACProtectionController(context),
    devicetainteviction.NAME: lambda context, options: devicetainteviction.DeviceTaintEvictionController(
        context, workers=options.concurrent_device_taint_eviction_syncs
    ),
    tokencleaner.NAME: lambda context, _options: tokencleaner.TokenCleaner(context),
    bootstrapsigner.NAME: lambda context, _options: bootstrapsigner.BootstrapSigner(context),
    selinuxwarning.NAME: lambda context, options: selinuxwarning.SELinuxWarningController(
        context, selinux_mount_gate=options.feature_gates.enabled("SELinuxMount")
    ),
    pcrcleaner.NAME: lambda context, _options: pcrcleaner.PCRCleanerController(context),
    resourcepoolstatusrequest.NAME: lambda context, _options: (
        resourcepoolstatusrequest.ResourcePoolStatusRequestController(context)
    ),
    podgroupprotection.NAME: lambda context, _options: podgroupprotection.PodGroupProtectionController(context),
    storageversionmigrator.NAME: lambda context, _options: storageversionmigrator.StorageVersionMigrator(context),
    # upstream's is not started without a CA to publish
    ctbpublisher.NAME: lambda context, _options: (
        ctbpublisher.ClusterTrustBundlePublisher(context) if context.root_ca else None
    ),
}


def _signing_authorities(context: ControllerContext, options: Any) -> dict[str, Any]:
    signers = csr_rules.SignerNames.of(context.profile)
    by_flag = {
        "apiserver-client": signers.apiserver_client,
        "kubelet-client": signers.kubelet_client,
        "kubelet-serving": signers.kubelet_serving,
        "legacy-unknown": signers.legacy_unknown,
    }
    specific = {by_flag[flag]: pair for flag, pair in options.cluster_signing_pairs.items() if pair[0] and pair[1]}
    generic = (options.cluster_signing_cert_file, options.cluster_signing_key_file)
    return csrsigning.load_authorities(signers, generic, specific)


def key(name: str, apiserver_name: str) -> str:
    """The BUILT key of a controller name: names spelling the API server's name are keyed by their
    `{apiserver}` template."""
    template = name.replace(apiserver_name, "{apiserver}", 1)
    return template if template in BUILT else name


def required_gates(name: str, apiserver_name: str) -> tuple[str, ...]:
    return REQUIRED_GATES.get(key(name, apiserver_name), ())


def gates_allow(name: str, apiserver_name: str, gates: FeatureGates) -> bool:
    return all(gates.enabled(gate) for gate in required_gates(name, apiserver_name))


def names(apiserver_name: str) -> list[str]:
    """Every controller of the catalog, in its order."""
    return [name.format(apiserver=apiserver_name) for name in BUILT]


def upstream_controllers(apiserver_name: str) -> list[str]:
    return _UPSTREAM.format(apiserver=apiserver_name).split()


def select(requested: list[str], apiserver_name: str) -> tuple[list[str], list[str]]:
    """The controllers `--controllers` enables, in catalog order, and the problems found."""
    known = set(upstream_controllers(apiserver_name))
    problems: list[str] = []
    canonical: list[tuple[str, bool]] = []
    for entry in requested:
        if entry == "*":
            canonical.append(("*", True))
            continue
        bare = entry.removeprefix("-")
        name = ALIASES.get(bare, bare)
        if name not in known:
            problems.append(f'"{bare}" is not in the list of known controllers')
        canonical.append((name, not entry.startswith("-")))
    return [name for name in names(apiserver_name) if _enabled(name, canonical)], problems


def _enabled(name: str, entries: list[tuple[str, bool]]) -> bool:
    """Upstream's rule: the first entry naming the controller decides; otherwise `*` enables the
    controllers that are on by default."""
    for entry, on in entries:
        if entry == name:
            return on
    return any(entry == "*" for entry, _ in entries) and name not in DISABLED_BY_DEFAULT
