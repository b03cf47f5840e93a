// The node and pod commands: the cluster-level entry and the pieces a cluster builder wires to it.

export { type ClusterExecOptions, clusterExec, clusterSpawn } from './cluster-exec.ts';
export {
  type ClusterCommandContext,
  KIND_NODE_INFO,
  type NodeProcess,
  type NodeSystemInfo,
} from './context.ts';
export { kubeAge, unitsHumanDuration } from './durations.ts';
export { type NodeRun, runOnNode, spawnOnNode } from './node-programs.ts';
