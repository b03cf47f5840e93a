// Object builders for scenario authors: a few named fields in, a whole object out with the API server's defaults
// filled (what `store.create` takes). Addresses are strings; one container per pod unless `containers` is given.
// They build data only: allocation, validation and naming happen when the store admits the object.

import type {
  Container,
  ContainerPort,
  DaemonSet,
  Deployment,
  Node,
  Pod,
  PodDnsConfig,
  Probe,
  Protocol,
  Service,
  ServiceType,
  Taint,
  Toleration,
  TrafficPolicy,
} from '../objects.ts';
import type { NewObject } from '../store.ts';
import { defaultPodSpec } from './defaults.ts';
import { defaultService } from './service.ts';

/** The annotation that pins a pod's IP (the CNI honours it). */
export const POD_IP_ANNOTATION = 'packetlab.dev/pod-ip';
/** The image a pod runs when none is named. */
export const DEFAULT_IMAGE = 'registry.k8s.io/pause:3.10';
/** kind's control-plane taint and role label. */
export const CONTROL_PLANE_TAINT: Taint = {
  key: 'node-role.kubernetes.io/control-plane',
  value: '',
  effect: 'NoSchedule',
};

export interface PortInput {
  readonly name?: string;
  readonly port: number;
  readonly targetPort?: number | string;
  readonly nodePort?: number;
  readonly protocol?: Protocol;
}

export interface ServiceInput {
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Record<string, string>;
  readonly type?: ServiceType;
  /** Pins the ClusterIP ('10.96.40.12'); 'None' for a headless Service; allocated when absent. */
  readonly clusterIP?: string;
  readonly ports: readonly PortInput[];
  readonly selector?: Record<string, string>;
  readonly sessionAffinity?: 'None' | 'ClientIP';
  readonly sessionAffinityTimeoutSeconds?: number;
  readonly externalTrafficPolicy?: TrafficPolicy;
  readonly internalTrafficPolicy?: TrafficPolicy;
  readonly healthCheckNodePort?: number;
  readonly externalIPs?: readonly string[];
  readonly loadBalancerSourceRanges?: readonly string[];
}

export function service(input: ServiceInput): NewObject<Service> {
  const { name, namespace, labels, ...spec } = input;
  const defaulted = defaultService({ kind: 'Service', spec } as unknown as Service);
  return {
    kind: 'Service',
    metadata: { name, namespace: namespace ?? 'default', labels: labels ?? {}, annotations: {} },
    spec: defaulted.spec,
    status: defaulted.status,
  };
}

export interface ContainerPortInput {
  readonly name?: string;
  readonly containerPort: number;
  readonly protocol?: Protocol;
}

interface PodSpecInput {
  /** The one container's image (DEFAULT_IMAGE when absent). */
  readonly image?: string;
  /** The one container's ports. */
  readonly ports?: readonly ContainerPortInput[];
  /** The one container's readiness probe (an HTTP GET the kubelet runs every periodSeconds). */
  readonly readinessProbe?: Probe;
  /** The one container's preStop hook: `lifecycle: {preStop: {sleep: {seconds: N}}}`. */
  readonly preStopSleepSeconds?: number;
  /** Instead of the one container. */
  readonly containers?: readonly Container[];
  readonly hostNetwork?: boolean;
  readonly terminationGracePeriodSeconds?: number;
  readonly tolerations?: readonly Toleration[];
  readonly dnsConfig?: PodDnsConfig;
}

function containersOf(name: string, input: PodSpecInput): Container[] {
  if (input.containers !== undefined) return [...input.containers];
  const ports: ContainerPort[] = (input.ports ?? []).map((port) => ({
    name: port.name ?? '',
    containerPort: port.containerPort,
    protocol: port.protocol ?? 'TCP',
  }));
  const lifecycle =
    input.preStopSleepSeconds === undefined
      ? {}
      : { lifecycle: { preStop: { sleep: { seconds: input.preStopSleepSeconds } } } };
  return [
    { name, image: input.image ?? DEFAULT_IMAGE, ports, readinessProbe: input.readinessProbe, ...lifecycle },
  ];
}

export interface PodInput extends PodSpecInput {
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Record<string, string>;
  /** Pins the node; the scheduler chooses when absent. */
  readonly nodeName?: string;
  /** Pins the pod's IP through POD_IP_ANNOTATION. */
  readonly podIP?: string;
}

export function pod(input: PodInput): NewObject<Pod> {
  const annotations: Record<string, string> = {};
  if (input.podIP !== undefined) annotations[POD_IP_ANNOTATION] = input.podIP;
  return {
    kind: 'Pod',
    metadata: {
      name: input.name,
      namespace: input.namespace ?? 'default',
      labels: input.labels ?? {},
      annotations,
    },
    spec: defaultPodSpec({
      nodeName: input.nodeName ?? '',
      containers: containersOf(input.name, input),
      hostNetwork: input.hostNetwork ?? false,
      terminationGracePeriodSeconds: input.terminationGracePeriodSeconds ?? 30,
      tolerations: input.tolerations ?? [],
      ...(input.dnsConfig !== undefined ? { dnsConfig: input.dnsConfig } : {}),
    }),
    status: { phase: 'Pending', podIP: '', hostIP: '', ready: false, containerStatuses: [] },
  };
}

export interface DeploymentInput extends PodSpecInput {
  readonly name: string;
  readonly namespace?: string;
  /** The pods' labels and the selector. */
  readonly labels: Record<string, string>;
  readonly replicas?: number;
  /** Counts; 25% of the replicas (surge rounded up, unavailable down) when absent. */
  readonly maxSurge?: number;
  readonly maxUnavailable?: number;
}

function templateSpec(name: string, input: PodSpecInput) {
  const { nodeName: _unused, ...spec } = defaultPodSpec({
    containers: containersOf(name, input),
    hostNetwork: input.hostNetwork ?? false,
    terminationGracePeriodSeconds: input.terminationGracePeriodSeconds ?? 30,
    tolerations: input.tolerations ?? [],
    ...(input.dnsConfig !== undefined ? { dnsConfig: input.dnsConfig } : {}),
  });
  return spec;
}

/** A Deployment; maxSurge/maxUnavailable left absent are resolved by the API admission from the replicas. */
export function deployment(input: DeploymentInput): NewObject<Deployment> {
  return {
    kind: 'Deployment',
    metadata: {
      name: input.name,
      namespace: input.namespace ?? 'default',
      labels: { ...input.labels },
      annotations: {},
    },
    spec: {
      replicas: input.replicas ?? 1,
      selector: { ...input.labels },
      template: { labels: { ...input.labels }, spec: templateSpec(input.name, input) },
      maxSurge: input.maxSurge,
      maxUnavailable: input.maxUnavailable,
    } as Deployment['spec'],
    status: { replicas: 0, readyReplicas: 0, updatedReplicas: 0 },
  };
}

export interface DaemonSetInput extends PodSpecInput {
  readonly name: string;
  readonly namespace?: string;
  readonly labels: Record<string, string>;
}

export function daemonSet(input: DaemonSetInput): NewObject<DaemonSet> {
  return {
    kind: 'DaemonSet',
    metadata: {
      name: input.name,
      namespace: input.namespace ?? 'default',
      labels: { ...input.labels },
      annotations: {},
    },
    spec: {
      selector: { ...input.labels },
      template: { labels: { ...input.labels }, spec: templateSpec(input.name, input) },
    },
    status: { desiredNumberScheduled: 0, numberReady: 0 },
  };
}

export interface NodeInput {
  readonly name: string;
  readonly podCIDR?: string;
  readonly internalIP?: string;
  /** kind's control plane: the control-plane role label and NoSchedule taint. */
  readonly controlPlane?: boolean;
  readonly taints?: readonly Taint[];
  readonly unschedulable?: boolean;
  readonly ready?: boolean;
  readonly labels?: Record<string, string>;
}

export function node(input: NodeInput): NewObject<Node> {
  const labels: Record<string, string> = { 'kubernetes.io/hostname': input.name, ...input.labels };
  if (input.controlPlane === true) labels['node-role.kubernetes.io/control-plane'] = '';
  const taints = [...(input.controlPlane === true ? [CONTROL_PLANE_TAINT] : []), ...(input.taints ?? [])];
  const podCIDR = input.podCIDR ?? '';
  return {
    kind: 'Node',
    metadata: { name: input.name, namespace: '', labels, annotations: {} },
    spec: {
      podCIDR,
      podCIDRs: podCIDR === '' ? [] : [podCIDR],
      unschedulable: input.unschedulable ?? false,
      taints,
    },
    status: {
      addresses: [
        ...(input.internalIP === undefined
          ? []
          : [{ type: 'InternalIP' as const, address: input.internalIP }]),
        { type: 'Hostname', address: input.name },
      ],
      ready: input.ready ?? true,
    },
  };
}
