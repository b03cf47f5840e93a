// A kind cluster as one static command plan: the Docker network with its nodes and the outside, what each node's
// CNI agent runs when it and its peers join, and CNI ADD for pods placed by the author. This is the plan the kernel
// harness runs with `ip netns exec`; `cluster()` runs the same commands as its kubelets and agents react to the store.
// With `kubeProxy`, it also holds every node's first kube-proxy sync for given Services and EndpointSlices (the
// ruleset load and the conntrack cleanup after it), apart from `commands` since iptables prints on stderr there.

import { Rng } from '../core/rng.ts';
import type { ClusterNetwork, Cni, NodeNetwork, PodSandbox } from './cni/cni.ts';
import {
  DOCKER_MTU,
  INTERNET_NS,
  kindNode,
  kindNodeName,
  nodePort,
  nodeSetup,
  OUTSIDE_NS,
  outsidePort,
  outsideSetup,
  POD_NETWORK,
  seededMac,
} from './kind-network.ts';
import { staleConntrackCommands } from './kube-proxy/conntrack-cleanup.ts';
import type { Proxier, ProxierView } from './kube-proxy/proxier.ts';
import type { EndpointSlice, Service } from './objects.ts';
import type { Command } from './plan.ts';
import type { Plan } from './run-plan.ts';

export interface PlanPod {
  /** The pod's name; its namespace in the plan has this name too. */
  readonly name: string;
  /** The node it runs on (`formation-worker`). */
  readonly node: string;
  readonly address: string;
}

export interface ClusterPlanOptions {
  readonly name?: string;
  readonly workers?: number;
  readonly cni: Cni;
  /** Pods placed on nodes by name (not by namespace). */
  readonly pods?: readonly PlanPod[];
  readonly seed?: string | number;
  /** The Docker host as a router with an Internet host behind it (default true). */
  readonly outside?: boolean;
  /** The Docker network's MTU (default 1500). */
  readonly underlayMtu?: number;
  /** An `mtu` set by hand in flannel's CNI configuration (default none: flannel's own). */
  readonly configuredPodMtu?: number;
  /** The namespace a node's commands run in (default its name; the kernel harness wants short names). */
  readonly nodeNs?: (nodeName: string, index: number) => string;
  /** Every node's kube-proxy: its proxier and what it watches (the objects the control plane made). */
  readonly kubeProxy?: PlanKubeProxy;
}

export interface PlanKubeProxy {
  readonly proxier: Proxier;
  readonly services: readonly Service[];
  readonly endpointSlices: readonly EndpointSlice[];
  /** The cleanup's `conntrack -D` after the sync (default true, as KubeProxyController). */
  readonly conntrackCleanup?: boolean;
}

export interface ClusterPlan extends Plan {
  readonly nodes: readonly NodeNetwork[];
  readonly network: ClusterNetwork;
  readonly sandboxes: readonly PodSandbox[];
  /** Per node in order, kube-proxy's first sync then its conntrack cleanup (empty without `kubeProxy`). */
  readonly kubeProxy: readonly Command[];
}

/** What a node's kube-proxy sees (the view KubeProxyController builds, with cluster()'s node-level fields). */
export function nodeProxierView(
  node: NodeNetwork,
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
): ProxierView {
  return {
    nodeName: node.name,
    nodeIps: [node.address],
    clusterCidr: POD_NETWORK,
    masqueradeBit: 14,
    services,
    endpointSlices,
  };
}

/**
 * A later kube-proxy sync on every node, from the objects of `previous` to `next`: the proxier's commands, then the
 * conntrack cleanup (unless `conntrackCleanup` is false), as KubeProxyController runs them.
 */
export function kubeProxyResync(
  nodes: readonly NodeNetwork[],
  previous: PlanKubeProxy,
  next: Omit<PlanKubeProxy, 'proxier'>,
): Command[] {
  const commands: Command[] = [];
  for (const node of nodes) {
    const before = nodeProxierView(node, previous.services, previous.endpointSlices);
    const after = nodeProxierView(node, next.services, next.endpointSlices);
    commands.push(...previous.proxier.sync(node.ns, after, false));
    if (next.conntrackCleanup !== false) commands.push(...staleConntrackCommands(node.ns, before, after));
  }
  return commands;
}

/** The nodes of a kind cluster in address and pod-CIDR order: the control plane, then the workers by number. */
export function kindNodes(
  name: string,
  workers: number,
  rng: Rng,
  nodeNs: (nodeName: string, index: number) => string = (nodeName) => nodeName,
): NodeNetwork[] {
  const names = [kindNodeName(name, 'control-plane', 0)];
  for (let n = 1; n <= workers; n++) names.push(kindNodeName(name, 'worker', n));
  return names.map((nodeName, index) => ({
    ...kindNode({
      name: nodeName,
      addressIndex: index,
      podCidrIndex: index,
      rng: rng.fork(`node:${nodeName}#0`),
    }),
    ns: nodeNs(nodeName, index),
  }));
}

/** A pod sandbox's seeded names and MACs: host veth `veth` + 8 hex digits, as the CNI's ip.RandomVethName. */
export function seededSandbox(ns: string, podKey: string, address: string, rng: Rng): PodSandbox {
  const hostVeth = `veth${[...rng.bytes(4)].map((byte) => byte.toString(16).padStart(2, '0')).join('')}`;
  return { ns, podKey, address, hostVeth, hostMac: seededMac(rng), podMac: seededMac(rng) };
}

/**
 * The outside, every node's set-up and CNI agent, every ordered pair's peerAdded (per node, its peers in join order,
 * as cluster() runs them), then each pod's CNI ADD (lo up first).
 */
export function clusterPlan(options: ClusterPlanOptions): ClusterPlan {
  const rng = new Rng(options.seed ?? 'packetlab');
  const name = options.name ?? 'kind';
  const network: ClusterNetwork = {
    podNetwork: POD_NETWORK,
    underlayMtu: options.underlayMtu ?? DOCKER_MTU,
    ...(options.configuredPodMtu === undefined ? {} : { configuredPodMtu: options.configuredPodMtu }),
  };
  const nodes = kindNodes(name, options.workers ?? 0, rng, options.nodeNs);
  const outside = options.outside ?? true;
  // The Docker host first, as cluster() builds it (its port is the segment's first).
  const commands: Command[] = outside ? outsideSetup() : [];
  for (const node of nodes) commands.push(...nodeSetup(node), ...options.cni.nodeAdded(node, network));
  for (const node of nodes)
    for (const peer of nodes) if (peer !== node) commands.push(...options.cni.peerAdded(node, peer, network));
  const sandboxes: PodSandbox[] = [];
  for (const pod of options.pods ?? []) {
    const node = nodes.find((candidate) => candidate.name === pod.node);
    if (node === undefined) throw new Error(`pod ${pod.name}: no node ${pod.node}`);
    const sandbox = seededSandbox(pod.name, `default/${pod.name}`, pod.address, rng.fork(`pod:${pod.name}`));
    sandboxes.push(sandbox);
    commands.push({ ns: pod.name, argv: ['ip', 'link', 'set', 'dev', 'lo', 'up'] });
    commands.push(...options.cni.podAdded(node, sandbox, network));
  }
  const ports = [...(outside ? [outsidePort()] : []), ...nodes.map(nodePort)];
  const kubeProxy: Command[] = [];
  const proxy = options.kubeProxy;
  if (proxy !== undefined)
    for (const node of nodes) {
      const view = nodeProxierView(node, proxy.services, proxy.endpointSlices);
      kubeProxy.push(...proxy.proxier.sync(node.ns, view, true));
      if (proxy.conntrackCleanup !== false)
        kubeProxy.push(...staleConntrackCommands(node.ns, undefined, view));
    }
  return {
    namespaces: [
      ...nodes.map((node) => node.ns),
      ...(outside ? [OUTSIDE_NS, INTERNET_NS] : []),
      ...sandboxes.map((sandbox) => sandbox.ns),
    ],
    segments: [{ name: 'kind', mtu: network.underlayMtu, ports }],
    commands,
    nodes,
    network,
    sandboxes,
    kubeProxy,
  };
}
