"""Each feature gate's stage and default by release, as upstream's versioned feature specs record
them, for the releases a server can emulate (`--emulated-version`, 1.33 to 1.35).

A gate's value at a release is its last entry at or before it; a gate with entries, none of them at
or before the release, did not exist then (upstream's PreAlpha: off, and refused when set). Gates
without an entry here keep their 1.36 stage and default at every emulated version. Entries are
(minor version of 1.x, default, stage: "alpha" | "beta"), from upstream's 1.35 feature list (and its
1.36 additions for gates introduced in 1.36).
"""

from __future__ import annotations

Entry = tuple[int, bool, str]
A, B = "alpha", "beta"

HISTORY: dict[str, tuple[Entry, ...]] = {
    "APIResponseCompression": ((8, False, A), (16, True, B)),
    "APIServerIdentity": ((20, False, A), (26, True, B)),
    "APIServingWithRoutine": ((30, False, A),),
    "AllowParsingUserUIDFromCertAuth": ((33, True, B),),
    "AllowUnsafeMalformedObjectDeletion": ((32, False, A),),
    "AuthorizePodWebsocketUpgradeCreatePermission": ((35, True, B),),
    "CBORServingAndStorage": ((32, False, A),),
    "CPUManagerPolicyAlphaOptions": ((23, False, A),),
    "CPUManagerPolicyBetaOptions": ((23, True, B),),
    "CRDObservedGenerationTracking": ((35, False, B),),
    "CSIVolumeHealth": ((21, False, A),),
    "ClearingNominatedNodeNameAfterBinding": ((34, False, A), (35, True, B)),
    "CloudControllerManagerWatchBasedRoutesReconciliation": ((35, False, A),),
    "CloudControllerManagerWebhook": ((27, False, A),),
    "ClusterTrustBundle": ((27, False, A), (33, False, B)),
    "ClusterTrustBundleProjection": ((29, False, A), (33, False, B)),
    "ComponentFlagz": ((32, False, A),),
    "ComponentStatusz": ((32, False, A),),
    "ConcurrentWatchObjectDecode": ((31, False, B),),
    "ConstrainedImpersonation": ((35, False, A),),
    "ContainerCheckpoint": ((25, False, A), (30, True, B)),
    "ContainerRestartRules": ((34, False, A), (35, True, B)),
    "ContainerStopSignals": ((33, False, A),),
    "CoordinatedLeaderElection": ((31, False, A), (33, False, B)),
    "CrossNamespaceVolumeDataSource": ((26, False, A),),
    "DRAConsumableCapacity": ((34, False, A),),
    "DRADeviceBindingConditions": ((34, False, A),),
    "DRADeviceTaintRules": ((35, False, A),),
    "DRADeviceTaints": ((33, False, A),),
    "DRAExtendedResource": ((34, False, A),),
    "DRAListTypeAttributes": ((36, False, A),),
    "DRANodeAllocatableResources": ((36, False, A),),
    "DRAPartitionableDevices": ((33, False, A),),
    "DRAResourceClaimDeviceStatus": ((32, False, A), (33, True, B)),
    "DRASchedulerFilterTimeout": ((34, True, B),),
    "DeploymentReplicaSetTerminatingReplicas": ((33, False, A), (35, True, B)),
    "DetectCacheInconsistency": ((34, True, B),),
    "EnvFiles": ((34, False, A), (35, True, B)),
    "EventedPLEG": ((26, False, A),),
    "GangScheduling": ((35, False, A),),
    "GenericWorkload": ((35, False, A),),
    "GracefulNodeShutdown": ((20, False, A), (21, True, B)),
    "GracefulNodeShutdownBasedOnPodPriority": ((23, False, A), (24, True, B)),
    "HPAConfigurableTolerance": ((33, False, A), (35, True, B)),
    "HPAScaleToZero": ((16, False, A),),
    "HostnameOverride": ((34, False, A), (35, True, B)),
    "ImageVolumeWithDigest": ((35, False, A),),
    "InPlacePodLevelResourcesVerticalScaling": ((35, False, A),),
    "InPlacePodVerticalScalingExclusiveCPUs": ((32, False, A),),
    "InPlacePodVerticalScalingExclusiveMemory": ((34, False, A),),
    "ListFromCacheSnapshot": ((33, False, A), (34, True, B)),
    "LocalStorageCapacityIsolationFSQuotaMonitoring": ((15, False, A), (31, False, B)),
    "MatchLabelKeysInPodTopologySpread": ((25, False, A), (27, True, B)),
    "MatchLabelKeysInPodTopologySpreadSelectorMerge": ((34, True, B),),
    "MaxUnavailableStatefulSet": ((24, False, A), (35, True, B)),
    "MemoryQoS": ((22, False, A),),
    "MutablePVNodeAffinity": ((35, False, A),),
    "MutablePodResourcesForSuspendedJobs": ((35, False, A),),
    "MutableSchedulingDirectivesForSuspendedJobs": ((35, False, A),),
    "NodeDeclaredFeatures": ((35, False, A),),
    "NominatedNodeNameForExpectation": ((34, False, A), (35, True, B)),
    "OpenAPIEnums": ((23, False, A), (24, True, B)),
    "OpportunisticBatching": ((35, True, B),),
    "PodAndContainerStatsFromCRI": ((23, False, A),),
    "PodCertificateRequest": ((34, False, A), (35, False, B)),
    "PodDeletionCost": ((21, False, A), (22, True, B)),
    "PodLevelResources": ((32, False, A), (34, True, B)),
    "PodLogsQuerySplitStreams": ((32, False, A),),
    "PodReadyToStartContainersCondition": ((28, False, A), (29, True, B)),
    "PodTopologyLabelsAdmission": ((33, False, A), (35, True, B)),
    "PortForwardWebsockets": ((30, False, A), (31, True, B)),
    "PreventStaticPodAPIReferences": ((34, True, B),),
    "QOSReserved": ((11, False, A),),
    "ReduceDefaultCrashLoopBackOffDecay": ((33, False, A),),
    "RelaxedServiceNameValidation": ((34, False, A),),
    "ReloadSvcletServerCertificateFile": ((31, True, B),),
    "RemoteRequestHeaderUID": ((32, False, A), (33, True, B)),
    "ResourceHealthStatus": ((31, False, A),),
    "RestartAllContainersOnContainerExits": ((35, False, A),),
    "RotateSvcletServerCertificate": ((7, False, A), (12, True, B)),
    "RuntimeClassInImageCriApi": ((29, False, A),),
    "SELinuxMount": ((30, False, A), (33, False, B)),
    "SchedulerAsyncAPICalls": ((34, False, B),),
    "SchedulerAsyncPreemption": ((32, False, A), (33, True, B)),
    "SchedulerPopFromBackoffQ": ((33, True, B),),
    "ServiceAccountNodeAudienceRestriction": ((32, False, B), (33, True, B)),
    "SizeBasedListCostEstimate": ((34, True, B),),
    "StatefulSetSemanticRevisionComparison": ((0, True, B),),
    "StorageCapacityScoring": ((33, False, A),),
    "StorageVersionAPI": ((20, False, A),),
    "StorageVersionHash": ((14, False, A), (15, True, B)),
    "StorageVersionMigrator": ((30, False, A), (35, False, B)),
    "StrictIPCIDRValidation": ((33, False, A),),
    "StructuredAuthenticationConfigurationEgressSelector": ((34, True, B),),
    "StructuredAuthenticationConfigurationJWKSMetrics": ((35, True, B),),
    "SvcletCrashLoopBackOffMax": ((32, False, A), (35, True, B)),
    "SvcletEnsureSecretPulledImages": ((33, False, A), (35, True, B)),
    "SvcletInUserNamespace": ((22, False, A),),
    "SvcletSeparateDiskGC": ((29, False, A), (31, True, B)),
    "SvcletServiceAccountTokenForCredentialProviders": ((33, False, A), (34, True, B)),
    "TaintTolerationComparisonOperators": ((35, False, A),),
    "TokenRequestServiceAccountUIDValidation": ((34, True, B),),
    "TopologyAwareWorkloadScheduling": ((36, False, A),),
    "TopologyManagerPolicyAlphaOptions": ((26, False, A),),
    "TopologyManagerPolicyBetaOptions": ((26, False, B), (28, True, B)),
    "TranslateStreamCloseWebsocketRequests": ((29, False, A), (30, True, B)),
    "UnauthenticatedHTTP2DOSMitigation": ((25, False, B), (29, True, B)),
    "UnknownVersionInteroperabilityProxy": ((28, False, A),),
    "UserNamespacesHostNetworkSupport": ((35, False, A),),
    "VolumeLimitScaling": ((35, False, A),),
    "WatchCacheInitializationPostStartHook": ((31, False, B),),
    "WatchList": ((27, False, A), (32, True, B), (33, False, B), (34, True, B)),
    "WindowsCPUAndMemoryAffinity": ((32, False, A),),
    "WindowsGracefulNodeShutdown": ((32, False, A), (34, True, B)),
}


def at(name: str, minor: int) -> tuple[bool, str] | None:
    """(default, stage) of gate `name` at release 1.`minor`: None when it has no history here,
    (False, "prealpha") when it did not exist yet."""
    entries = HISTORY.get(name)
    if entries is None:
        return None
    found = [entry for entry in entries if entry[0] <= minor]
    if not found:
        return False, "prealpha"
    return found[-1][1], found[-1][2]
