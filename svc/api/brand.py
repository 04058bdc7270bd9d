"""Brand profiles: the one table of brand-bearing identifiers.

The spec writes the brand as `svc` (`meta.svc`, `application/vnd.svc.protobuf`, `svc-system`, ...);
unmodified upstream clients need the upstream spelling (`meta.k8s.io`, `kube-system`, ...). A server
serves one profile, chosen by a flag. Everything that spells a brand asks the active profile, so a
change of spelling is a change of this file only. Resource tables and schemas keep the upstream
spelling; `Profile.group` translates group names at the edge.
"""

from __future__ import annotations

from dataclasses import dataclass

_UPSTREAM_GROUP_SUFFIX = ".k8s.io"


@dataclass(frozen=True)
class Profile:
    name: str
    group_suffix: str
    protobuf_media_type: str
    system_namespace: str
    public_namespace: str
    node_lease_namespace: str
    namespace_finalizer: str
    namespace_name_label: str
    admin_user: str
    apiserver_name: str
    default_service: str
    store_check: str
    initial_events_end_annotation: str
    last_applied_annotation: str
    config_env_var: str
    config_default_dir: str
    cli_name: str
    label_domain: str
    root_ca_configmap: str
    service_account_volume: str
    encryption_prefix: str
    header_brand: str
    """The brand in response header names (`X-Kubernetes-PF-FlowSchema-UID`)."""

    def label(self, upstream: str) -> str:
        """A label or annotation key in this profile's spelling (`ipaddress.kubernetes.io/ip-family` ->
        `ipaddress.svc.io/ip-family`)."""
        prefix, sep, name = upstream.rpartition("/")
        if sep and (prefix == "kubernetes.io" or prefix.endswith(".kubernetes.io")):
            return prefix[: -len("kubernetes.io")] + self.label_domain + "/" + name
        return upstream

    def group(self, upstream: str) -> str:
        """The served name of an upstream API group (`rbac.authorization.k8s.io` -> `rbac.authorization.svc`)."""
        if upstream.endswith(_UPSTREAM_GROUP_SUFFIX):
            return upstream[: -len(_UPSTREAM_GROUP_SUFFIX)] + self.group_suffix
        return upstream

    def upstream_group(self, served: str) -> str:
        """Inverse of `group`."""
        if self.group_suffix != _UPSTREAM_GROUP_SUFFIX and served.endswith(self.group_suffix):
            return served[: -len(self.group_suffix)] + _UPSTREAM_GROUP_SUFFIX
        return served

    @property
    def meta_group(self) -> str:
        return self.group("meta.k8s.io")

    @property
    def discovery_group(self) -> str:
        return self.group("apidiscovery.k8s.io")


SVC = Profile(
    name="svc",
    group_suffix=".svc",
    protobuf_media_type="application/vnd.svc.protobuf",
    system_namespace="svc-system",
    public_namespace="svc-public",
    node_lease_namespace="svc-node-lease",
    namespace_finalizer="svc",
    namespace_name_label="svc.io/metadata.name",
    admin_user="svc-admin",
    apiserver_name="svc-apiserver",
    default_service="svc",
    store_check="store",
    initial_events_end_annotation="svc.io/initial-events-end",
    last_applied_annotation="svcctl.svc.io/last-applied-configuration",
    config_env_var="SVCCONFIG",
    config_default_dir=".svc",
    cli_name="svcctl",
    label_domain="svc.io",
    root_ca_configmap="svc-root-ca.crt",
    service_account_volume="svc-api-access",
    encryption_prefix="svc:enc:",
    header_brand="Svc",
)

KUBERNETES = Profile(
    name="kubernetes",
    group_suffix=_UPSTREAM_GROUP_SUFFIX,
    protobuf_media_type="application/vnd.kubernetes.protobuf",
    system_namespace="kube-system",
    public_namespace="kube-public",
    node_lease_namespace="kube-node-lease",
    namespace_finalizer="kubernetes",
    namespace_name_label="kubernetes.io/metadata.name",
    admin_user="kubernetes-admin",
    apiserver_name="kube-apiserver",
    default_service="kubernetes",
    store_check="etcd",
    initial_events_end_annotation="k8s.io/initial-events-end",
    last_applied_annotation="kubectl.kubernetes.io/last-applied-configuration",
    config_env_var="KUBECONFIG",
    config_default_dir=".kube",
    cli_name="kubectl",
    label_domain="kubernetes.io",
    root_ca_configmap="kube-root-ca.crt",
    service_account_volume="kube-api-access",
    encryption_prefix="k8s:enc:",
    header_brand="Kubernetes",
)

PROFILES = {profile.name: profile for profile in (SVC, KUBERNETES)}
