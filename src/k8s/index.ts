// The Kubernetes layer: the object store with watches, the controllers, CNIs, kube-proxy's two modes, and the
// command plans they emit (run by packetlab and, in the harness, by the real kernel).

export type { ClusterNetwork, Cni, NodeNetwork, PodSandbox } from './cni/cni.ts';
// ---- k8s-commands: the node and pod commands (docker exec, kubectl get/exec/debug, crictl, nsenter) ----
export {
  type ClusterCommandContext,
  type ClusterExecOptions,
  clusterExec,
  clusterSpawn,
  KIND_NODE_INFO,
  type NodeProcess,
  type NodeRun,
  type NodeSystemInfo,
  runOnNode,
  spawnOnNode,
} from './commands/index.ts';
export type { Proxier, ProxierView } from './kube-proxy/proxier.ts';
export * from './objects.ts';
export type { Command, SegmentPort, SegmentSpec, Word } from './plan.ts';
export type { ClusterRuntime, ContainerRecord } from './runtime.ts';
export * from './store.ts';
