// What the cluster-level commands (docker exec, kubectl, crictl, nsenter) read: the object store, the runtime's view of
// nodes, pods and containers, the virtual clock, a seeded rng, and the facts a kind node reports about itself.

import type { Rng } from '../../core/rng.ts';
import type { Namespace } from '../../netns/namespace.ts';
import type { ControlPlane } from '../controllers/control-plane.ts';
import type { ClusterRuntime } from '../runtime.ts';
import type { Store } from '../store.ts';

/** status.nodeInfo as the kubelet of kindest/node:v1.31.0 reports it (`kubectl get nodes -o wide`). */
export interface NodeSystemInfo {
  readonly kubeletVersion: string;
  readonly osImage: string;
  readonly kernelVersion: string;
  readonly containerRuntimeVersion: string;
}

export const KIND_NODE_INFO: NodeSystemInfo = {
  kubeletVersion: 'v1.31.0',
  osImage: 'Debian GNU/Linux 12 (bookworm)',
  kernelVersion: '6.18.0',
  containerRuntimeVersion: 'containerd://1.7.18',
};

export interface ClusterCommandContext {
  readonly store: Store;
  readonly runtime: ClusterRuntime;
  /** Virtual nanoseconds now (the simulation's scheduler). */
  readonly now: () => number;
  /** A stream forked for these commands: kubectl debug's container names, exec IDs. */
  readonly rng: Rng;
  /** Wall-clock milliseconds at virtual time 0, for the timestamps crictl prints. Default 0 (1970-01-01). */
  readonly epochMs?: number;
  /** What the nodes report; KIND_NODE_INFO by default. */
  readonly nodeInfo?: NodeSystemInfo;
  /** The controllers kubectl's writes go through (graceful pod deletion, scale); without it pods go at once. */
  readonly controlPlane?: ControlPlane;
}

/** Where a program runs on a node: the node (crictl talks to its containerd), its network namespace (nsenter may
 * have changed it), standard input, and whether docker gave it a terminal (`-t`, which changes how crictl logs). */
export interface NodeProcess {
  readonly nodeName: string;
  readonly ns: Namespace;
  readonly stdin: string;
  readonly tty: boolean;
}
