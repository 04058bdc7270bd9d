"""Feature gates (`--feature-gates`, spec 2 part 9): names, stages and defaults, and their parsing.

The gate names are the spec's (with the brand written `svc`); the same set serves the controller
daemon. `AllAlpha` and `AllBeta` switch every gate of their stage that is not set explicitly. Under
`--emulated-version` a gate's stage and default are those of the emulated release where its history
is recorded (`feature_gate_history`); a gate that did not exist yet is off and cannot be set.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from svc.apiserver import feature_gate_history

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


CURRENT = (1, 36)


class FeatureGates:
    def __init__(
        self,
        explicit: Mapping[str, bool] | None = None,
        emulated: tuple[int, int] = CURRENT,
        min_compatibility: tuple[int, int] = (1, 35),
    ) -> None:
        explicit = dict(explicit or {})
        self._emulated = emulated
        for name, value in explicit.items():
            if name not in ALPHA_OFF | BETA_OFF | BETA_ON | {"AllAlpha", "AllBeta"}:
                raise FeatureGateError(f"unrecognized feature gate: {name}")
            if name in ALPHA_OFF | BETA_OFF | BETA_ON and self._spec(name)[1] == "prealpha":
                at, floor = ".".join(map(str, emulated)), ".".join(map(str, min_compatibility))
                raise FeatureGateError(
                    f"cannot set feature gate {name} to {str(value).lower()}, feature is PreAlpha at emulated version "
                    f"{at}, min compatibility version {floor}"
                )
        self._explicit = explicit

    def _spec(self, name: str) -> tuple[bool, str]:
        """(default, stage) at the emulated version."""
        if self._emulated < CURRENT:
            recorded = feature_gate_history.at(name, self._emulated[1])
            if recorded is not None:
                return recorded
        if name in ALPHA_OFF:
            return False, "alpha"
        if name in BETA_OFF:
            return False, "beta"
        if name in BETA_ON:
            return True, "beta"
        raise FeatureGateError(f"unrecognized feature gate: {name}")

    def enabled(self, name: str) -> bool:
        if name in self._explicit:
            return self._explicit[name]
        default, stage = self._spec(name)
        if stage == "alpha":
            return self._explicit.get("AllAlpha", default)
        if stage == "beta":
            return self._explicit.get("AllBeta", default)
        return default
