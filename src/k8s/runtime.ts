// What the node and pod commands (kubectl exec, crictl, docker exec, nsenter) need from the running cluster: which
// namespace is which node or pod, and the containers a node's runtime shows with their IDs and PIDs.

import type { Namespace } from '../netns/namespace.ts';

/** One container as crictl lists it on its node. */
export interface ContainerRecord {
  /** 64 hex digits from the seed; crictl prints the first 13. */
  readonly id: string;
  readonly name: string;
  readonly image: string;
  /** The image's ID (`sha256:` + 64 hex digits) when the runtime knows it: crictl ps prints its first 13 digits. */
  readonly imageId?: string;
  /** The pod sandbox's ID, 64 hex digits. */
  readonly podSandboxId: string;
  readonly podName: string;
  readonly podNamespace: string;
  /** The container's init PID on its node, from the seed (`crictl inspect` `.info.pid`). */
  readonly pid: number;
  /** The PID of the sandbox's pause process, whose namespaces the container joins (`/proc/PID/ns/net` in crictl
   * inspect); the first container of the sandbox when not given. */
  readonly sandboxPid?: number;
  /** Virtual ns when it started. */
  readonly createdAt: number;
  readonly state: 'CONTAINER_RUNNING' | 'CONTAINER_EXITED';
  readonly attempt: number;
}

export interface ClusterRuntime {
  /** The namespace of a node by its name (`formation-worker`). */
  nodeNamespace(nodeName: string): Namespace | undefined;
  /** The network namespace of a pod (the node's own for a hostNetwork pod). */
  podNamespace(namespace: string, name: string): Namespace | undefined;
  /** The containers on a node, in creation order. */
  containers(nodeName: string): readonly ContainerRecord[];
  /** The network namespace a PID on a node lives in (`nsenter -t PID -n`). */
  namespaceOfPid(nodeName: string, pid: number): Namespace | undefined;
}
