// The Kubernetes layer: the object store with watches, the controllers, CNIs, kube-proxy's two modes, and the
// command plans they emit (run by packetlab and, in the harness, by the real kernel).

// ---- k8s-control: the API server's admission (defaults, validation, allocators), the controllers, builders ----
export {
  type AllocationResult,
  BandedBitmap,
  ClusterIpAllocator,
  ipRangeOffset,
  NodePortAllocator,
  portRangeOffset,
} from './api/allocators.ts';
export {
  CONTROL_PLANE_TAINT,
  type ContainerPortInput,
  type DaemonSetInput,
  DEFAULT_IMAGE,
  type DeploymentInput,
  daemonSet,
  deployment,
  type NodeInput,
  node,
  POD_IP_ANNOTATION,
  type PodInput,
  type PortInput,
  pod,
  type ServiceInput,
  service,
} from './api/builders.ts';
export {
  admitDaemonSet,
  admitDeployment,
  admitEndpointSlice,
  admitNode,
  admitPod,
  defaultPodSpec,
  resolveFenceposts,
} from './api/defaults.ts';
export type { FieldError, FieldValue, GoValue } from './api/field-errors.ts';
export { generateName, randomSuffix, SAFE_ALPHANUMS, safeEncodeString } from './api/names.ts';
export {
  defaultService,
  heldNodePorts,
  needsHealthCheck,
  ServiceAdmission,
  validateService,
} from './api/service.ts';
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
export { ControlPlane, type ControlPlaneOptions, KUBE_DNS_SERVICE_IP } from './controllers/control-plane.ts';
export { DaemonSetController, daemonPodTolerations } from './controllers/daemonset.ts';
export {
  DeploymentController,
  deletionOrder,
  POD_TEMPLATE_HASH_LABEL,
  podTemplateHash,
} from './controllers/deployment.ts';
export {
  CONTROLLER_NAME,
  EndpointSliceController,
  findPort,
  MANAGED_BY_LABEL,
  MAX_ENDPOINTS_PER_SLICE,
  podToEndpoint,
} from './controllers/endpointslice.ts';
export { PodTermination } from './controllers/pod-termination.ts';
export { PodScheduler, tolerates, toleratesNode } from './controllers/scheduler.ts';
// kube-proxy, iptables mode (kp-iptables): the proxier, its ruleset, the chain names.
export * from './kube-proxy/iptables/index.ts';
export type { Proxier, ProxierView } from './kube-proxy/proxier.ts';
export * from './objects.ts';
export type { Command, SegmentPort, SegmentSpec, Word } from './plan.ts';
export type { ClusterRuntime, ContainerRecord } from './runtime.ts';
export * from './store.ts';
