// The API server's JSON for the objects packetlab keeps, as `kubectl get -o json|yaml` prints them: the fields the
// model has, in the API's names, with the defaults the API server fills for them. Fields the model does not keep
// (managedFields, generation, most of a pod spec's defaults, status conditions other than Ready) are not printed.

import type {
  DaemonSet,
  Deployment,
  EndpointSlice,
  KubeObject,
  Node,
  ObjectMeta,
  Pod,
  Service,
} from '../../objects.ts';
import type { NodeSystemInfo } from '../context.ts';
import { type Json, marshalIndent, sortedJson } from '../go-json.ts';

/** metav1.Time's JSON: RFC 3339 to the second, UTC. */
function apiTime(epochMs: number, virtualNs: number): string {
  const seconds = Math.floor(epochMs / 1000) + Math.floor(virtualNs / 1e9);
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
}

function apiVersionOf(object: KubeObject): string {
  switch (object.kind) {
    case 'Pod':
    case 'Service':
    case 'Node':
      return 'v1';
    case 'EndpointSlice':
      return 'discovery.k8s.io/v1';
    case 'Deployment':
    case 'DaemonSet':
      return 'apps/v1';
  }
}

function metadata(meta: ObjectMeta, epochMs: number): Json {
  const out: { [key: string]: Json } = {
    name: meta.name,
    uid: meta.uid,
    resourceVersion: String(meta.resourceVersion),
    creationTimestamp: apiTime(epochMs, meta.creationTimestamp),
  };
  if (meta.namespace !== '') out['namespace'] = meta.namespace;
  if (Object.keys(meta.labels).length > 0) out['labels'] = { ...meta.labels };
  if (Object.keys(meta.annotations).length > 0) out['annotations'] = { ...meta.annotations };
  if (meta.deletionTimestamp !== undefined)
    out['deletionTimestamp'] = apiTime(epochMs, meta.deletionTimestamp);
  if (meta.ownerReferences.length > 0) {
    out['ownerReferences'] = meta.ownerReferences.map((owner) => ({
      apiVersion: owner.kind === 'Service' ? 'v1' : 'apps/v1',
      kind: owner.kind,
      name: owner.name,
      uid: owner.uid,
      controller: true,
      blockOwnerDeletion: true,
    }));
  }
  return out;
}

function podSpec(spec: Omit<Pod['spec'], 'nodeName'> & { nodeName?: string }): Json {
  const out: { [key: string]: Json } = {
    containers: spec.containers.map((c) => {
      const container: { [key: string]: Json } = { name: c.name, image: c.image };
      if (c.ports.length > 0) {
        container['ports'] = c.ports.map((p) => ({
          ...(p.name === '' ? {} : { name: p.name }),
          containerPort: p.containerPort,
          protocol: p.protocol,
        }));
      }
      if (c.readinessProbe !== undefined) {
        container['readinessProbe'] = {
          httpGet: {
            path: c.readinessProbe.httpGet.path,
            port: c.readinessProbe.httpGet.port,
            scheme: 'HTTP',
          },
          periodSeconds: c.readinessProbe.periodSeconds,
          failureThreshold: c.readinessProbe.failureThreshold,
          successThreshold: 1,
          timeoutSeconds: 1,
        };
      }
      return container;
    }),
    terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds,
  };
  if (spec.nodeName !== undefined && spec.nodeName !== '') out['nodeName'] = spec.nodeName;
  if (spec.hostNetwork) out['hostNetwork'] = true;
  return out;
}

function pod(p: Pod): { spec: Json; status: Json } {
  const status: { [key: string]: Json } = {
    phase: p.status.phase,
    conditions: [{ type: 'Ready', status: p.status.ready ? 'True' : 'False' }],
  };
  if (p.status.hostIP !== '') {
    status['hostIP'] = p.status.hostIP;
    status['hostIPs'] = [{ ip: p.status.hostIP }];
  }
  if (p.status.podIP !== '') {
    status['podIP'] = p.status.podIP;
    status['podIPs'] = [{ ip: p.status.podIP }];
  }
  if (p.status.containerStatuses.length > 0) {
    status['containerStatuses'] = p.status.containerStatuses.map((c) => ({
      name: c.name,
      containerID: c.containerID,
      ready: c.ready,
      restartCount: 0,
    }));
  }
  return { spec: podSpec(p.spec), status };
}

function service(s: Service): { spec: Json; status: Json } {
  const { spec } = s;
  const out: { [key: string]: Json } = {
    type: spec.type,
    clusterIP: spec.clusterIP,
    clusterIPs: [spec.clusterIP],
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
    internalTrafficPolicy: spec.internalTrafficPolicy,
    sessionAffinity: spec.sessionAffinity,
    ports: spec.ports.map((p) => ({
      ...(p.name === '' ? {} : { name: p.name }),
      port: p.port,
      protocol: p.protocol,
      targetPort: p.targetPort,
      ...(p.nodePort > 0 ? { nodePort: p.nodePort } : {}),
    })),
  };
  if (Object.keys(spec.selector).length > 0) out['selector'] = { ...spec.selector };
  if (spec.type !== 'ClusterIP') out['externalTrafficPolicy'] = spec.externalTrafficPolicy;
  if (spec.healthCheckNodePort > 0) out['healthCheckNodePort'] = spec.healthCheckNodePort;
  if (spec.externalIPs.length > 0) out['externalIPs'] = [...spec.externalIPs];
  if (spec.loadBalancerSourceRanges.length > 0)
    out['loadBalancerSourceRanges'] = [...spec.loadBalancerSourceRanges];
  if (spec.sessionAffinity === 'ClientIP') {
    out['sessionAffinityConfig'] = { clientIP: { timeoutSeconds: spec.sessionAffinityTimeoutSeconds } };
  }
  const ingress = s.status.loadBalancerIngress.map((ip) => ({ ip, ipMode: 'VIP' }));
  return { spec: out, status: { loadBalancer: ingress.length > 0 ? { ingress } : {} } };
}

function node(n: Node, info: NodeSystemInfo): { spec: Json; status: Json } {
  const spec: { [key: string]: Json } = { podCIDR: n.spec.podCIDR, podCIDRs: [...n.spec.podCIDRs] };
  if (n.spec.taints.length > 0) spec['taints'] = n.spec.taints.map((t) => ({ ...t }));
  if (n.spec.unschedulable) spec['unschedulable'] = true;
  return {
    spec,
    status: {
      addresses: n.status.addresses.map((a) => ({ address: a.address, type: a.type })),
      conditions: [{ type: 'Ready', status: n.status.ready ? 'True' : 'False' }],
      nodeInfo: {
        architecture: 'amd64',
        containerRuntimeVersion: info.containerRuntimeVersion,
        kernelVersion: info.kernelVersion,
        kubeletVersion: info.kubeletVersion,
        operatingSystem: 'linux',
        osImage: info.osImage,
      },
    },
  };
}

function endpointSlice(e: EndpointSlice): { [key: string]: Json } {
  return {
    addressType: e.addressType,
    endpoints: e.endpoints.map((endpoint) => ({
      addresses: [...endpoint.addresses],
      conditions: { ...endpoint.conditions },
      nodeName: endpoint.nodeName,
      targetRef: { ...endpoint.targetRef },
    })),
    ports: e.ports.map((p) => ({ name: p.name, port: p.port, protocol: p.protocol })),
  };
}

function deployment(d: Deployment): { spec: Json; status: Json } {
  return {
    spec: {
      replicas: d.spec.replicas,
      selector: { matchLabels: { ...d.spec.selector } },
      strategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxSurge: d.spec.maxSurge, maxUnavailable: d.spec.maxUnavailable },
      },
      template: { metadata: { labels: { ...d.spec.template.labels } }, spec: podSpec(d.spec.template.spec) },
    },
    status: { ...d.status },
  };
}

function daemonSet(d: DaemonSet): { spec: Json; status: Json } {
  return {
    spec: {
      selector: { matchLabels: { ...d.spec.selector } },
      template: { metadata: { labels: { ...d.spec.template.labels } }, spec: podSpec(d.spec.template.spec) },
    },
    status: { ...d.status },
  };
}

/** One object as the API server returns it. */
export function apiObject(object: KubeObject, epochMs: number, info: NodeSystemInfo): Json {
  const head: { [key: string]: Json } = {
    apiVersion: apiVersionOf(object),
    kind: object.kind,
    metadata: metadata(object.metadata, epochMs),
  };
  switch (object.kind) {
    case 'Pod':
      return { ...head, ...pod(object) };
    case 'Service':
      return { ...head, ...service(object) };
    case 'Node':
      return { ...head, ...node(object, info) };
    case 'EndpointSlice':
      return { ...head, ...endpointSlice(object) };
    case 'Deployment':
      return { ...head, ...deployment(object) };
    case 'DaemonSet':
      return { ...head, ...daemonSet(object) };
  }
}

/** kubectl's list of several objects (`kind: List`, as `kubectl get pods -o json` prints it). */
export function apiList(items: Json[]): Json {
  return { apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } };
}

/** kubectl's JSONPrinter: json.MarshalIndent with four spaces, keys sorted (mirrors encoding/json's encoder and
 * Indent: HTML-safe string escapes, `{}` and `[]` for empty collections). */
export function printJson(value: Json): string {
  return `${marshalIndent(sortedJson(value), '', '    ')}\n`;
}

export type { Json };
