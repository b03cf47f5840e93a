// kubectl v1.31's table columns for the kinds packetlab keeps, as pkg/printers/internalversion/printers.go renders
// them (printPod, printService, printNode, printEndpointSlice, printDeployment, printDaemonSet). No restarts history,
// no readiness gates, no nominated nodes, no conditions beyond Ready.

import type {
  DaemonSet,
  Deployment,
  EndpointSlice,
  Kind,
  KubeObject,
  Node,
  Pod,
  Service,
} from '../../objects.ts';
import type { NodeSystemInfo } from '../context.ts';
import { kubeAge } from '../durations.ts';

/** printers.go loadBalancerWidth. */
const LOAD_BALANCER_WIDTH = 16;

export interface Columns {
  readonly headers: readonly string[];
  /** Extra headers with -o wide. */
  readonly wide: readonly string[];
}

export const COLUMNS: Readonly<Record<Kind, Columns>> = {
  Pod: {
    headers: ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE'],
    wide: ['IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES'],
  },
  Service: { headers: ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE'], wide: ['SELECTOR'] },
  Node: {
    headers: ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION'],
    wide: ['INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME'],
  },
  EndpointSlice: { headers: ['NAME', 'ADDRESSTYPE', 'PORTS', 'ENDPOINTS', 'AGE'], wide: [] },
  Deployment: {
    headers: ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE'],
    wide: ['CONTAINERS', 'IMAGES', 'SELECTOR'],
  },
  DaemonSet: {
    headers: ['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE'],
    wide: ['CONTAINERS', 'IMAGES', 'SELECTOR'],
  },
};

/** kubectl's short names in `-o name` (resource.group). */
export const NAME_PREFIX: Readonly<Record<Kind, string>> = {
  Pod: 'pod',
  Service: 'service',
  Node: 'node',
  EndpointSlice: 'endpointslice.discovery.k8s.io',
  Deployment: 'deployment.apps',
  DaemonSet: 'daemonset.apps',
};

export interface PrintOptions {
  readonly now: number;
  readonly wide: boolean;
  readonly nodeInfo: NodeSystemInfo;
}

/** One object's cells, headers' order, wide cells appended when asked. */
export function printRow(object: KubeObject, options: PrintOptions): string[] {
  const age = kubeAge(options.now - object.metadata.creationTimestamp);
  switch (object.kind) {
    case 'Pod':
      return printPod(object, age, options.wide);
    case 'Service':
      return printService(object, age, options.wide);
    case 'Node':
      return printNode(object, age, options);
    case 'EndpointSlice':
      return printEndpointSlice(object, age);
    case 'Deployment':
      return printDeployment(object, age, options.wide);
    case 'DaemonSet':
      return printDaemonSet(object, age, options.wide);
  }
}

/** mirrors printPod: READY ready/total containers, STATUS the phase (Terminating once deleting unless the phase is
 * terminal, ContainerCreating for a scheduled pod not started yet), RESTARTS 0, IP and NODE `<none>` until set. */
function printPod(pod: Pod, age: string, wide: boolean): string[] {
  const total = pod.spec.containers.length;
  const ready = pod.status.containerStatuses.filter((status) => status.ready).length;
  let reason: string = pod.status.phase;
  if (pod.status.phase === 'Pending' && pod.spec.nodeName !== '') reason = 'ContainerCreating';
  const terminal = pod.status.phase === 'Succeeded' || pod.status.phase === 'Failed';
  if (pod.metadata.deletionTimestamp !== undefined && !terminal) reason = 'Terminating';
  const row = [pod.metadata.name, `${ready}/${total}`, reason, '0', age];
  if (wide) {
    row.push(
      pod.status.podIP === '' ? '<none>' : pod.status.podIP,
      pod.spec.nodeName || '<none>',
      '<none>',
      '<none>',
    );
  }
  return row;
}

/** mirrors printService with getServiceExternalIP, loadBalancerStatusStringer and makePortString. */
function printService(service: Service, age: string, wide: boolean): string[] {
  const { spec } = service;
  const ports =
    spec.ports.length === 0
      ? '<none>'
      : spec.ports
          .map((port) =>
            port.nodePort > 0
              ? `${port.port}:${port.nodePort}/${port.protocol}`
              : `${port.port}/${port.protocol}`,
          )
          .join(',');
  const row = [
    service.metadata.name,
    spec.type,
    spec.clusterIP || '<none>',
    externalIp(service, wide),
    ports,
    age,
  ];
  if (wide) row.push(formatSelector(spec.selector));
  return row;
}

function externalIp(service: Service, wide: boolean): string {
  const { spec } = service;
  switch (spec.type) {
    case 'ClusterIP':
    case 'NodePort':
      return spec.externalIPs.length > 0 ? spec.externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      let ingress = service.status.loadBalancerIngress.join(',');
      if (!wide && ingress.length > LOAD_BALANCER_WIDTH)
        ingress = `${ingress.slice(0, LOAD_BALANCER_WIDTH - 3)}...`;
      const all = [...(ingress === '' ? [] : ingress.split(',')), ...spec.externalIPs];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
  }
}

/** labels.FormatLabels / metav1.FormatLabelSelector for equality selectors: `k=v,...` sorted, `<none>` when empty. */
function formatSelector(selector: Readonly<Record<string, string>>): string {
  const keys = Object.keys(selector).sort();
  return keys.length === 0 ? '<none>' : keys.map((key) => `${key}=${selector[key]}`).join(',');
}

/** mirrors printNode: Ready/NotReady (+SchedulingDisabled), roles from node-role.kubernetes.io/ labels. */
function printNode(node: Node, age: string, options: PrintOptions): string[] {
  const status = [node.status.ready ? 'Ready' : 'NotReady'];
  if (node.spec.unschedulable) status.push('SchedulingDisabled');
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(node.metadata.labels)) {
    if (key.startsWith('node-role.kubernetes.io/')) roles.add(key.slice('node-role.kubernetes.io/'.length));
    else if (key === 'kubernetes.io/role' && value !== '') roles.add(value);
  }
  const roleList = [...roles].filter((role) => role !== '').sort();
  const row = [
    node.metadata.name,
    status.join(','),
    roleList.length === 0 ? '<none>' : roleList.join(','),
    age,
    options.nodeInfo.kubeletVersion,
  ];
  if (options.wide) {
    const address = (type: string) => node.status.addresses.find((a) => a.type === type)?.address ?? '<none>';
    row.push(
      address('InternalIP'),
      address('ExternalIP'),
      options.nodeInfo.osImage,
      options.nodeInfo.kernelVersion,
      options.nodeInfo.containerRuntimeVersion,
    );
  }
  return row;
}

/** mirrors printEndpointSlice with formatDiscoveryPorts and formatDiscoveryEndpoints (at most 3, then `+ N more...`). */
function printEndpointSlice(slice: EndpointSlice, age: string): string[] {
  const ports = discoveryList(slice.ports.map((port) => String(port.port)));
  const endpoints = discoveryList(slice.endpoints.flatMap((endpoint) => endpoint.addresses));
  return [slice.metadata.name, slice.addressType, ports, endpoints, age];
}

function discoveryList(all: readonly string[]): string {
  if (all.length === 0) return '<unset>';
  const shown = all.slice(0, 3).join(',');
  return all.length > 3 ? `${shown} + ${all.length - 3} more...` : shown;
}

/** mirrors printDeployment (AVAILABLE is the ready count: the model keeps no availableReplicas). */
function printDeployment(deployment: Deployment, age: string, wide: boolean): string[] {
  const { spec, status } = deployment;
  const row = [
    deployment.metadata.name,
    `${status.readyReplicas}/${spec.replicas}`,
    String(status.updatedReplicas),
    String(status.readyReplicas),
    age,
  ];
  if (wide) {
    row.push(
      spec.template.spec.containers.map((c) => c.name).join(','),
      spec.template.spec.containers.map((c) => c.image).join(','),
      formatSelector(spec.selector),
    );
  }
  return row;
}

/** mirrors printDaemonSet (current, up-to-date and available follow the model's desired and ready counts). */
function printDaemonSet(daemonSet: DaemonSet, age: string, wide: boolean): string[] {
  const { spec, status } = daemonSet;
  const desired = String(status.desiredNumberScheduled);
  const ready = String(status.numberReady);
  const row = [daemonSet.metadata.name, desired, desired, ready, desired, ready, '<none>', age];
  if (wide) {
    row.push(
      spec.template.spec.containers.map((c) => c.name).join(','),
      spec.template.spec.containers.map((c) => c.image).join(','),
      formatSelector(spec.selector),
    );
  }
  return row;
}
