"""Feature gates (`--feature-gates`, spec 2 part 9): names, stages and defaults, and their parsing.

The gate names are the spec's (with the brand written `svc`); the same set serves the controller
daemon. `AllAlpha` and `AllBeta` switch every gate of their stage that is not set explicitly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

ALPHA_OFF = frozenset(
    {
        "APIServingWithRoutine",
        "AllowUnsafeMalformedObjectDeletion",
        "CBORServingAndStorage",
        "CPUManagerPolicyAlphaOptions",
        "CRIListStreaming",
        "CSIVolumeHealth",
        "ClientsAllowCBOR",
        "ClientsPreferCBOR",
        "CloudControllerManagerWatchBasedRoutesReconciliation",
        "CloudControllerManagerWebhook",
        "ContainerStopSignals",
        "ControllerManagerReleaseLeaderElectionLockOnExit",
        "CrossNamespaceVolumeDataSource",
        "DRAListTypeAttributes",
        "DRANodeAllocatableResources",
        "DRAResourcePoolStatus",
        "DRAWorkloadResourceClaims",
        "EventedPLEG",
        "GangScheduling",
        "GenericWorkload",
        "HPAScaleToZero",
        "ImageVolumeWithDigest",
        "InPlacePodVerticalScalingExclusiveCPUs",
        "InPlacePodVerticalScalingExclusiveMemory",
        "SvcletInUserNamespace",
        "LoggingAlphaOptions",
        "ManifestBasedAdmissionControlConfig",
        "MemoryQoS",
        "MutablePVNodeAffinity",
        "NativeHistograms",
        "PersistentVolumeClaimUnusedSinceTime",
        "PodAndContainerStatsFromCRI",
        "PodLevelResourceManagers",
        "PodLogsQuerySplitStreams",
        "PodsAPI",
        "QOSReserved",
        "ReduceDefaultCrashLoopBackOffDecay",
        "RuntimeClassInImageCriApi",
        "ShardedListAndWatch",
        "StorageCapacityScoring",
        "StorageVersionAPI",
        "TaintTolerationComparisonOperators",
        "TopologyAwareWorkloadScheduling",
        "TopologyManagerPolicyAlphaOptions",
        "UserNamespacesHostNetworkSupport",
        "VolumeLimitScaling",
        "WindowsCPUAndMemoryAffinity",
        "WorkloadAwarePreemption",
        "WorkloadWithJob",
    }
)

BETA_OFF = frozenset(
    {
        "ClusterTrustBundle",
        "ClusterTrustBundleProjection",
        "ConcurrentWatchObjectDecode",
        "CoordinatedLeaderElection",
        "DRADeviceTaintRules",
        "LocalStorageCapacityIsolationFSQuotaMonitoring",
        "MaxUnavailableStatefulSet",
        "PodCertificateRequest",
        "SELinuxMount",
        "SchedulerAsyncAPICalls",
        "StorageVersionMigrator",
    }
)

BETA_ON = frozenset(
    {
        "APIResponseCompression",
        "APIServerIdentity",
        "AllowParsingUserUIDFromCertAuth",
        "AtomicFIFO",
        "AuthorizePodWebsocketUpgradeCreatePermission",
        "CPUManagerPolicyBetaOptions",
        "CRDObservedGenerationTracking",
        "ClearingNominatedNodeNameAfterBinding",
        "ClientsAllowCARotation",
        "ClientsAllowTLSCacheGC",
        "ComponentFlagz",
        "ComponentStatusz",
        "ConstrainedImpersonation",
        "ContainerCheckpoint",
        "ContainerRestartRules",
        "ContextualLogging",
        "DRAConsumableCapacity",
        "DRADeviceBindingConditions",
        "DRADeviceTaints",
        "DRAExtendedResource",
        "DRAPartitionableDevices",
        "DRAResourceClaimDeviceStatus",
        "DRAResourceClaimGranularStatusAuthorization",
        "DRASchedulerFilterTimeout",
        "DeclarativeValidationBeta",
        "DeploymentReplicaSetTerminatingReplicas",
        "DetectCacheInconsistency",
        "EnvFiles",
        "ExtendWebSocketsToSvclet",
        "GracefulNodeShutdown",
        "GracefulNodeShutdownBasedOnPodPriority",
        "HPAConfigurableTolerance",
        "HostnameOverride",
        "InOrderInformersBatchProcess",
        "InPlacePodLevelResourcesVerticalScaling",
        "InPlacePodVerticalScalingInitContainers",
        "SvcletCrashLoopBackOffMax",
        "SvcletEnsureSecretPulledImages",
        "SvcletSeparateDiskGC",
        "SvcletServiceAccountTokenForCredentialProviders",
        "ListFromCacheSnapshot",
        "LoggingBetaOptions",
        "MatchLabelKeysInPodTopologySpread",
        "MatchLabelKeysInPodTopologySpreadSelectorMerge",
        "MutablePodResourcesForSuspendedJobs",
        "MutableSchedulingDirectivesForSuspendedJobs",
        "NodeDeclaredFeatures",
        "NominatedNodeNameForExpectation",
        "OpenAPIEnums",
        "OpportunisticBatching",
        "PLEGOnDemandRelist",
        "PodDeletionCost",
        "PodLevelResources",
        "PodReadyToStartContainersCondition",
        "PodTopologyLabelsAdmission",
        "PortForwardWebsockets",
        "PreventStaticPodAPIReferences",
        "RelaxedServiceNameValidation",
        "ReloadSvcletClientCAFile",
        "ReloadSvcletServerCertificateFile",
        "RemoteRequestHeaderUID",
        "ResourceHealthStatus",
        "ResourceHealthStatusMessage",
        "RestartAllContainersOnContainerExits",
        "RotateSvcletServerCertificate",
        "SchedulerAsyncPreemption",
        "SchedulerPopFromBackoffQ",
        "ServiceAccountNodeAudienceRestriction",
        "SizeBasedListCostEstimate",
        "StaleControllerConsistencyDaemonSet",
        "StaleControllerConsistencyJob",
        "StaleControllerConsistencyReplicaSet",
        "StaleControllerConsistencyStatefulSet",
        "StatefulSetSemanticRevisionComparison",
        "StorageVersionHash",
        "StrictIPCIDRValidation",
        "StructuredAuthenticationConfigurationEgressSelector",
        "StructuredAuthenticationConfigurationJWKSMetrics",
        "TokenRequestServiceAccountUIDValidation",
        "TopologyManagerPolicyBetaOptions",
        "TranslateStreamCloseWebsocketRequests",
        "UnauthenticatedHTTP2DOSMitigation",
        "UnknownVersionInteroperabilityProxy",
        "UnlockWhileProcessingFIFO",
        "WatchCacheInitializationPostStartHook",
        "WatchList",
        "WatchListClient",
        "WindowsGracefulNodeShutdown",
    }
)

COMPONENT = "svc"


class FeatureGateError(ValueError):
    pass


def _parse_bool(value: str, name: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("true", "1", "t"):
        return True
    if lowered in ("false", "0", "f"):
        return False
    raise FeatureGateError(
        f"invalid value of {name}={value}, err: strconv.ParseBool: parsing {value!r}: invalid syntax"
    )


def parse_feature_gates(values: Iterable[str]) -> dict[str, bool]:
    """`[component:]Name=bool` pairs, comma-separated, from each repeated flag value."""
    explicit: dict[str, bool] = {}
    for value in values:
        for item in value.split(","):
            item = item.strip()
            if not item:
                continue
            key, sep, raw = item.partition("=")
            if not sep:
                raise FeatureGateError(f"missing bool value for {key}")
            component, colon, name = key.strip().rpartition(":")
            if colon and component != COMPONENT:
                raise FeatureGateError(f"unrecognized component {component!r} in feature gate {key}")
            explicit[name] = _parse_bool(raw, name)
    return explicit


class FeatureGates:
    def __init__(self, explicit: Mapping[str, bool] | None = None) -> None:
        explicit = dict(explicit or {})
        for name in explicit:
            if name not in ALPHA_OFF | BETA_OFF | BETA_ON | {"AllAlpha", "AllBeta"}:
                raise FeatureGateError(f"unrecognized feature gate: {name}")
        self._explicit = explicit

    def enabled(self, name: str) -> bool:
        if name in self._explicit:
            return self._explicit[name]
        if name in ALPHA_OFF:
            return self._explicit.get("AllAlpha", False)
        if name in BETA_OFF:
            return self._explicit.get("AllBeta", False)
        if name in BETA_ON:
            return self._explicit.get("AllBeta", True)
        raise FeatureGateError(f"unrecognized feature gate: {name}")
