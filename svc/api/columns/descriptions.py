"""Column descriptions of the upstream server-side tables.

Upstream fills a column's description from the generated API documentation (`SwaggerDoc()`) of the
field it shows, sometimes from an older API version of the type (extensions/v1beta1, batch/v1beta1,
rbac/v1beta1); the texts below are those, copied as data from the k8s.io/api release 1.36 sources.
"""

from __future__ import annotations

from svc.wire.views import DEFAULT_COLUMNS

NAME = DEFAULT_COLUMNS[0].description
CREATION_TIMESTAMP = DEFAULT_COLUMNS[1].description

POD_IP = "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."
POD_NODE_NAME = (
    "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for "
    "scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this "
    "node becomes responsible for the lifecycle of this pod. This field should not be used to express a "
    "desire for the pod to be scheduled on a specific node. "
    "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename"
)
POD_NOMINATED_NODE_NAME = (
    "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be "
    "scheduled right away as preemption victims receive their graceful termination periods. This field "
    "does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the "
    "pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the "
    "resources on this node to a higher priority pod that is created after preemption. As a result, this "
    "field may be different than PodSpec.nodeName when the pod is scheduled."
)
POD_READINESS_GATES = (
    "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its "
    'containers are ready AND all conditions specified in the readiness gates have status equal to "True" '
    "More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates"
)
POD_NODE_SELECTOR = (
    "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must "
    "match a node's labels for the pod to be scheduled on that node. More info: "
    "https://kubernetes.io/docs/concepts/configuration/assign-pod-node/"
)
RC_SPEC_REPLICAS = (
    "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero "
    "and unspecified. Defaults to 1. More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller"
)
RC_STATUS_REPLICAS = (
    "Replicas is the most recently observed number of replicas. More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller"
)
RC_READY_REPLICAS = "The number of ready replicas for this replication controller."
RC_SELECTOR = (
    "Selector is a label query over pods that should match the Replicas count. If Selector is empty, it "
    "is defaulted to the labels present on the Pod template. Label keys and values that must match in "
    "order to be controlled by this replication controller, if empty defaulted to labels on Pod template. "
    "More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"
)
RS_SPEC_REPLICAS = (
    "Replicas is the number of desired pods. This is a pointer to distinguish between explicit zero and "
    "unspecified. Defaults to 1. More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/replicaset"
)
RS_STATUS_REPLICAS = (
    "Replicas is the most recently observed number of non-terminating pods. More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/replicaset"
)
RS_READY_REPLICAS = "The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition."
RS_SELECTOR = (
    "Selector is a label query over pods that should match the replica count. If the selector is empty, "
    "it is defaulted to the labels present on the pod template. Label keys and values that must match in "
    "order to be controlled by this replica set. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"
)
DS_DESIRED = (
    "The total number of nodes that should be running the daemon pod (including nodes correctly running "
    "the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/"
)
DS_CURRENT = (
    "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. "
    "More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/"
)
DS_READY = (
    "The number of nodes that should be running the daemon pod and have one or more of the daemon pod "
    "running and ready."
)
DS_UPDATED = "The total number of nodes that are running updated daemon pod"
DS_AVAILABLE = (
    "The number of nodes that should be running the daemon pod and have one or more of the daemon pod "
    "running and available (ready for at least spec.minReadySeconds)"
)
DS_SELECTOR = (
    "A label query over pods that are managed by the daemon set. Must match in order to be controlled. If "
    "empty, defaulted to labels on Pod template. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"
)
DEPLOYMENT_UPDATED = (
    "Total number of non-terminating pods targeted by this deployment that have the desired template spec."
)
DEPLOYMENT_AVAILABLE = (
    "Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment."
)
DEPLOYMENT_SELECTOR = (
    "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones "
    "affected by this deployment."
)
JOB_SUCCEEDED = (
    "The number of pods which reached phase Succeeded. The value increases monotonically for a given "
    "spec. However, it may decrease in reaction to scale down of elastic indexed jobs."
)
JOB_SELECTOR = (
    "A label query over pods that should match the pod count. Normally, the system sets this field for "
    "you. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"
)
CRONJOB_SCHEDULE = "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."
CRONJOB_TIME_ZONE = (
    "The time zone name for the given schedule, see "
    "https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to "
    "the time zone of the kube-controller-manager process. The set of valid time zone names and the time "
    "zone offset is loaded from the system-wide time zone database by the API server during CronJob "
    "validation and the controller manager during execution. If no system-wide time zone database can be "
    "found a bundled version of the database is used instead. If the time zone name becomes invalid "
    "during the lifetime of a CronJob or due to a change in host configuration, the controller will stop "
    "creating new new Jobs and will create a system event with the reason UnknownTimeZone. More "
    "information can be found in "
    "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones"
)
CRONJOB_SUSPEND = (
    "This flag tells the controller to suspend subsequent executions, it does not apply to already "
    "started executions.  Defaults to false."
)
CRONJOB_ACTIVE = "A list of pointers to currently running jobs."
CRONJOB_LAST_SCHEDULE = "Information when was the last time the job was successfully scheduled."
SERVICE_TYPE = (
    "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, "
    'ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for '
    "load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, "
    'by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no '
    "virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual "
    'IP. "NodePort" builds on ClusterIP and allocates a port on every node which routes to the same '
    'endpoints as the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer '
    "(if supported in the current cloud) which routes to the same endpoints as the clusterIP. "
    '"ExternalName" aliases this service to the specified externalName. Several other fields do not apply '
    "to ExternalName services. More info: "
    "https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types"
)
SERVICE_CLUSTER_IP = (
    "clusterIP is the IP address of the service and is usually assigned randomly. If an address is "
    "specified manually, is in-range (as per system configuration), and is not in use, it will be "
    "allocated to the service; otherwise creation of the service will fail. This field may not be changed "
    "through updates unless the type field is also being changed to ExternalName (which requires this "
    "field to be blank) or the type field is being changed from ExternalName (in which case this field "
    'may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a '
    'valid IP address. Setting this to "None" makes a "headless service" (no virtual IP), which is useful '
    "when direct endpoint connections are preferred and proxying is not required.  Only applies to types "
    "ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type "
    "ExternalName, creation will fail. This field will be wiped when updating a Service to type "
    "ExternalName. More info: "
    "https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"
)
SERVICE_EXTERNAL_IPS = (
    "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for "
    "this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that "
    "traffic arrives at a node with this IP.  A common example is external load-balancers that are not "
    "part of the Kubernetes system."
)
SERVICE_PORTS = (
    "The list of ports that are exposed by this service. More info: "
    "https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"
)
SERVICE_SELECTOR = (
    "Route service traffic to pods with label keys and values matching this selector. If empty or not "
    "present, the service is assumed to have an external process managing its endpoints, which Kubernetes "
    "will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is "
    "ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/"
)
ENDPOINTS_SUBSETS = (
    "The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to "
    "the IPs they share. A single address with multiple ports, some of which are ready and some of which "
    "are not (because they come from different containers) will result in the address being displayed in "
    "different subsets for the different ports. No address will appear in both Addresses and "
    "NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service."
)
NODE_KUBELET_VERSION = "Kubelet Version reported by the node."
NODE_ADDRESSES = (
    "List of addresses reachable to the node. Queried from cloud provider, if available. More info: "
    "https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as "
    "mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is "
    "merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an "
    "example. Consumers should assume that addresses can change during the lifetime of a Node. However, "
    "there are some exceptions where this may not be possible, such as Pods that inherit a Node's address "
    "in its own status or consumers of the downward API (status.hostIP)."
)
NODE_OS_IMAGE = "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy))."
NODE_KERNEL_VERSION = "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."
NODE_CONTAINER_RUNTIME = (
    "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2)."
)
EVENT_LAST_TIMESTAMP = "The time at which the most recent occurrence of this event was recorded."
EVENT_TYPE = "Type of this event (Normal, Warning), new types could be added in the future"
EVENT_REASON = (
    "This should be a short, machine understandable string that gives the reason for the transition into "
    "the object's current status."
)
EVENT_INVOLVED_OBJECT = "The object that this event is about."
EVENT_FIELD_PATH = (
    "If referring to a piece of an object instead of an entire object, this string should contain a valid "
    "JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the "
    "object reference is to a container within a pod, this would take on a value like: "
    '"spec.containers{name}" (where "name" refers to the name of the container that triggered the event) '
    'or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This '
    "syntax is chosen only to have some well-defined way of referencing a part of an object."
)
EVENT_SOURCE = "The component reporting this event. Should be a short machine understandable string."
EVENT_MESSAGE = "A human-readable description of the status of this operation."
EVENT_FIRST_TIMESTAMP = "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)"
EVENT_COUNT = "The number of times this event has occurred."
SECRET_TYPE = (
    "Used to facilitate programmatic handling of secret data. More info: "
    "https://kubernetes.io/docs/concepts/configuration/secret/#secret-types"
)
SECRET_DATA = (
    "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. "
    "The serialized form of the secret data is a base64 encoded string, representing the arbitrary "
    "(possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4"
)
CONFIGMAP_DATA = (
    "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or "
    "'.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data "
    "must not overlap with the keys in the BinaryData field, this is enforced during validation process."
)
PV_CAPACITY = (
    "capacity is the description of the persistent volume's resources and capacity. More info: "
    "https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity"
)
PV_ACCESS_MODES = (
    "accessModes contains all ways the volume can be mounted. More info: "
    "https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes"
)
PV_RECLAIM_POLICY = (
    "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its "
    "claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default "
    "for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported "
    "by the volume plugin underlying this PersistentVolume. More info: "
    "https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming"
)
PV_PHASE = (
    "phase indicates if a volume is available, bound to a claim, or released by a claim. More info: "
    "https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase"
)
PV_CLAIM_REF = (
    "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. "
    "Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. "
    "More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding"
)
PV_REASON = (
    "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and "
    "tidy display in the CLI."
)
PV_VOLUME_MODE = (
    "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in "
    "raw block state. Value of Filesystem is implied when not included in spec."
)
PVC_PHASE = "phase represents the current phase of PersistentVolumeClaim."
PVC_VOLUME_NAME = "volumeName is the binding reference to the PersistentVolume backing this claim."
PVC_CAPACITY = "capacity represents the actual resources of the underlying volume."
PVC_ACCESS_MODES = (
    "accessModes contains the actual access modes the volume backing the PVC has. More info: "
    "https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1"
)
PVC_VOLUME_MODE = (
    "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when "
    "not included in claim spec."
)
LEASE_HOLDER = (
    "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader "
    "Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name "
    "field."
)
ROLE_BINDING_ROLE_REF = (
    "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If "
    "the RoleRef cannot be resolved, the Authorizer must return an error."
)
CLUSTER_ROLE_BINDING_ROLE_REF = (
    "RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, "
    "the Authorizer must return an error."
)

CSR_SIGNER_NAME = (
    "signerName indicates the requested signer, and is a qualified name.\n\nList/watch requests for "
    'CertificateSigningRequests can filter on this field using a "spec.signerName=NAME" '
    'fieldSelector.\n\nWell-known Kubernetes signers are:\n 1. "kubernetes.io/kube-apiserver-client": issues '
    "client certificates that can be used to authenticate to kube-apiserver.\n  Requests for this signer are "
    'never auto-approved by kube-controller-manager, can be issued by the "csrsigning" controller in '
    'kube-controller-manager.\n 2. "kubernetes.io/kube-apiserver-client-kubelet": issues client certificates '
    "that kubelets use to authenticate to kube-apiserver.\n  Requests for this signer can be auto-approved by "
    'the "csrapproving" controller in kube-controller-manager, and can be issued by the "csrsigning" '
    'controller in kube-controller-manager.\n 3. "kubernetes.io/kubelet-serving" issues serving certificates '
    "that kubelets use to serve TLS endpoints, which kube-apiserver can connect to securely.\n  Requests for "
    'this signer are never auto-approved by kube-controller-manager, and can be issued by the "csrsigning" '
    "controller in kube-controller-manager.\n\nMore details are available at "
    "https://k8s.io/docs/reference/access-authn-authz/certificate-signing-requests/#kubernetes-signers\n\nCustom "
    "signerNames can also be specified. The signer defines:\n 1. Trust distribution: how trust (CA bundles) "
    "are distributed.\n 2. Permitted subjects: and behavior when a disallowed subject is requested.\n 3. "
    "Required, permitted, or forbidden x509 extensions in the request (including whether subjectAltNames are "
    "allowed, which types, restrictions on allowed values) and behavior when a disallowed extension is "
    "requested.\n 4. Required, permitted, or forbidden key usages / extended key usages.\n 5. "
    "Expiration/certificate lifetime: whether it is fixed by the signer, configurable by the admin.\n 6. "
    "Whether or not requests for CA certificates are allowed."
)
CSR_REQUEST = (
    'request contains an x509 certificate signing request encoded in a "CERTIFICATE REQUEST" PEM block. When '
    "serialized as JSON or YAML, the data is additionally base64-encoded."
)
CSR_EXPIRATION_SECONDS = (
    "expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer "
    "may issue a certificate with a different validity duration so a client must check the delta between the "
    "notBefore and and notAfter fields in the issued certificate to determine the actual duration.\n\nThe "
    "v1.22+ in-tree implementations of the well-known Kubernetes signers will honor this field as long as the "
    "requested duration is not greater than the maximum duration they will honor per the "
    "--cluster-signing-duration CLI flag to the Kubernetes controller manager.\n\nCertificate signers may not "
    "honor this field for various reasons:\n\n  1. Old signer that is unaware of the field (such as the "
    "in-tree\n     implementations prior to v1.22)\n  2. Signer whose configured maximum is shorter than the "
    "requested duration\n  3. Signer whose configured minimum is longer than the requested duration\n\nThe "
    "minimum valid value for expirationSeconds is 600, i.e. 10 minutes."
)
CSR_CONDITIONS = 'conditions applied to the request. Known conditions are "Approved", "Denied", and "Failed".'
