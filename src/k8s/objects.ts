// The Kubernetes objects packetlab's cluster keeps (core/v1 Node, Pod, Service; discovery/v1 EndpointSlice;
// apps/v1 Deployment, DaemonSet), as plain data in the API's own field names; no other kinds, no IPv6 families.
//
// Addresses are strings as the API writes them ('10.244.1.5'); times are virtual nanoseconds since the simulation
// started. Objects are data only: what a container runs is named by its image and resolved by the cluster's image
// registry, so `kubectl get -o yaml` could print any object whole.

export type Kind = 'Node' | 'Pod' | 'Service' | 'EndpointSlice' | 'Deployment' | 'DaemonSet';

export interface ObjectMeta {
  readonly name: string;
  /** '' for cluster-scoped kinds (Node). */
  readonly namespace: string;
  /** Set by the store on create, deterministic from the seed. */
  readonly uid: string;
  /** Set by the store: one counter for the whole store, as etcd's revision. */
  readonly resourceVersion: number;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** Virtual ns at creation, set by the store. */
  readonly creationTimestamp: number;
  /** Set when a graceful delete started (a terminating pod); undefined otherwise. */
  readonly deletionTimestamp: number | undefined;
  /** The owner that created it (a ReplicaSet-less Deployment owns its pods directly here; a Service its slices). */
  readonly ownerReferences: readonly OwnerReference[];
}

export interface OwnerReference {
  readonly kind: Kind;
  readonly name: string;
  readonly uid: string;
}

export type Protocol = 'TCP' | 'UDP' | 'SCTP';

// ---- Node ----------------------------------------------------------------------------------------------------

export interface NodeAddress {
  readonly type: 'InternalIP' | 'ExternalIP' | 'Hostname';
  readonly address: string;
}

export interface Taint {
  readonly key: string;
  readonly value: string;
  readonly effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/** A pod's toleration of a taint: `Exists` tolerates any value (an empty key with Exists tolerates every taint). */
export interface Toleration {
  readonly key: string;
  readonly operator: 'Equal' | 'Exists';
  readonly value: string;
  /** '' tolerates every effect. */
  readonly effect: '' | Taint['effect'];
}

export interface Node {
  readonly kind: 'Node';
  readonly metadata: ObjectMeta;
  readonly spec: {
    readonly podCIDR: string;
    readonly podCIDRs: readonly string[];
    readonly unschedulable: boolean;
    readonly taints: readonly Taint[];
  };
  readonly status: {
    readonly addresses: readonly NodeAddress[];
    readonly ready: boolean;
  };
}

// ---- Pod -----------------------------------------------------------------------------------------------------

export interface ContainerPort {
  readonly name: string;
  readonly containerPort: number;
  readonly protocol: Protocol;
}

export interface Probe {
  /** An HTTP GET on the pod's own address, as the kubelet's prober does. */
  readonly httpGet: { readonly path: string; readonly port: number };
  readonly periodSeconds: number;
  readonly failureThreshold: number;
}

export interface Container {
  readonly name: string;
  /** Resolved by the cluster's image registry to what runs in the pod's namespace. */
  readonly image: string;
  readonly ports: readonly ContainerPort[];
  readonly readinessProbe: Probe | undefined;
  /** A preStop hook, as the sleep action (KEP-3960) or `exec: sleep N` gives it; no other hooks are modelled. */
  readonly lifecycle?: { readonly preStop?: { readonly sleep: { readonly seconds: number } } };
}

export interface PodSpec {
  /** Set by the scheduler, or pinned by the author. */
  readonly nodeName: string;
  readonly containers: readonly Container[];
  /** The pod shares its node's namespace (kube-proxy, CNI agents, the incident's DaemonSet). */
  readonly hostNetwork: boolean;
  readonly terminationGracePeriodSeconds: number;
  /** Taints the pod tolerates (the scheduler and the DaemonSet controller read them); none when absent. */
  readonly tolerations?: readonly Toleration[];
  /** dnsConfig's options (`single-request-reopen`, `ndots` with a value...), merged into the pod's resolv.conf. */
  readonly dnsConfig?: PodDnsConfig;
}

/** PodDNSConfig; its nameservers and searches are not modelled. */
export interface PodDnsConfig {
  readonly options: readonly { readonly name: string; readonly value?: string }[];
}

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

export interface ContainerStatus {
  readonly name: string;
  /** `containerd://` + 64 hex digits, from the seed. */
  readonly containerID: string;
  readonly ready: boolean;
}

export interface Pod {
  readonly kind: 'Pod';
  readonly metadata: ObjectMeta;
  readonly spec: PodSpec;
  readonly status: {
    readonly phase: PodPhase;
    /** '' until the CNI gave it one. A pod may pin it with the annotation `packetlab.dev/pod-ip`. */
    readonly podIP: string;
    readonly hostIP: string;
    readonly ready: boolean;
    readonly containerStatuses: readonly ContainerStatus[];
  };
}

// ---- Service -------------------------------------------------------------------------------------------------

export interface ServicePort {
  /** '' for a single unnamed port. */
  readonly name: string;
  readonly protocol: Protocol;
  readonly port: number;
  /** A number, or the name of a container port. */
  readonly targetPort: number | string;
  /** 0 when none (ClusterIP), allocated from 30000-32767 for NodePort and LoadBalancer unless given. */
  readonly nodePort: number;
}

export type ServiceType = 'ClusterIP' | 'NodePort' | 'LoadBalancer';
export type TrafficPolicy = 'Cluster' | 'Local';

export interface Service {
  readonly kind: 'Service';
  readonly metadata: ObjectMeta;
  readonly spec: {
    readonly type: ServiceType;
    /** Allocated from the service CIDR (10.96.0.0/12) unless given; 'None' for a headless Service. */
    readonly clusterIP: string;
    readonly ports: readonly ServicePort[];
    /** Pods whose labels include every pair; an empty selector selects nothing (no EndpointSlices managed). */
    readonly selector: Readonly<Record<string, string>>;
    readonly sessionAffinity: 'None' | 'ClientIP';
    /** sessionAffinityConfig.clientIP.timeoutSeconds (default 10800). */
    readonly sessionAffinityTimeoutSeconds: number;
    readonly externalTrafficPolicy: TrafficPolicy;
    readonly internalTrafficPolicy: TrafficPolicy;
    /** Allocated from the NodePort range for LoadBalancer + Local; 0 otherwise. */
    readonly healthCheckNodePort: number;
    readonly externalIPs: readonly string[];
    readonly loadBalancerSourceRanges: readonly string[];
  };
  readonly status: {
    /** status.loadBalancer.ingress[].ip, set by the load-balancer controller. */
    readonly loadBalancerIngress: readonly string[];
  };
}

// ---- EndpointSlice -------------------------------------------------------------------------------------------

export interface Endpoint {
  readonly addresses: readonly string[];
  readonly conditions: { readonly ready: boolean; readonly serving: boolean; readonly terminating: boolean };
  readonly nodeName: string;
  /** The pod behind it: `namespace/name`. */
  readonly targetRef: { readonly kind: 'Pod'; readonly namespace: string; readonly name: string };
}

export interface EndpointPort {
  readonly name: string;
  readonly port: number;
  readonly protocol: Protocol;
}

/** The label that ties a slice to its Service (discovery.k8s.io/v1). */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export interface EndpointSlice {
  readonly kind: 'EndpointSlice';
  /** labels[SERVICE_NAME_LABEL] names the Service. */
  readonly metadata: ObjectMeta;
  readonly addressType: 'IPv4';
  readonly endpoints: readonly Endpoint[];
  readonly ports: readonly EndpointPort[];
}

// ---- Workloads -----------------------------------------------------------------------------------------------

export interface PodTemplate {
  readonly labels: Readonly<Record<string, string>>;
  readonly spec: Omit<PodSpec, 'nodeName'>;
}

export interface Deployment {
  readonly kind: 'Deployment';
  readonly metadata: ObjectMeta;
  readonly spec: {
    readonly replicas: number;
    readonly selector: Readonly<Record<string, string>>;
    readonly template: PodTemplate;
    /** RollingUpdate's maxSurge and maxUnavailable, as counts (25% of replicas, rounded as Kubernetes does, by default). */
    readonly maxSurge: number;
    readonly maxUnavailable: number;
  };
  readonly status: {
    readonly replicas: number;
    readonly readyReplicas: number;
    readonly updatedReplicas: number;
  };
}

export interface DaemonSet {
  readonly kind: 'DaemonSet';
  readonly metadata: ObjectMeta;
  readonly spec: {
    readonly selector: Readonly<Record<string, string>>;
    readonly template: PodTemplate;
  };
  readonly status: { readonly desiredNumberScheduled: number; readonly numberReady: number };
}

export type KubeObject = Node | Pod | Service | EndpointSlice | Deployment | DaemonSet;

/** The object of a kind, for typed store calls. */
export interface ObjectOfKind {
  Node: Node;
  Pod: Pod;
  Service: Service;
  EndpointSlice: EndpointSlice;
  Deployment: Deployment;
  DaemonSet: DaemonSet;
}

/** Whether a kind lives in a namespace (everything here but Node). */
export function isNamespaced(kind: Kind): boolean {
  return kind !== 'Node';
}

/** `namespace/name`, or `name` for a cluster-scoped object: the store's key. */
export function objectKey(namespace: string, name: string): string {
  return namespace === '' ? name : `${namespace}/${name}`;
}

/**
 * The metadata of an object built by hand rather than admitted by a store (the proxiers' inputs in stories and
 * tests): `uid` as the caller names it, resourceVersion 1, created at 0, no annotations and no owner.
 */
export function objectMeta(
  namespace: string,
  name: string,
  uid: string,
  labels: Readonly<Record<string, string>> = {},
): ObjectMeta {
  return {
    name,
    namespace,
    uid,
    resourceVersion: 1,
    labels,
    annotations: {},
    creationTimestamp: 0,
    deletionTimestamp: undefined,
    ownerReferences: [],
  };
}
