// The Kubernetes layer: the object store with watches, the controllers, CNIs, kube-proxy's two modes, and the
// command plans they emit (run by packetlab and, in the harness, by the real kernel).

export {
  Cluster,
  type ClusterNode,
  type ClusterOptions,
  type CniName,
  cluster,
  makeCni,
  type PodInput,
} from './cluster.ts';
// ---- k8s-cni: the plan runner, the kind network, CNIs, kubelet, kube-proxy's sync loop, cluster() ----
export {
  type ClusterPlan,
  type ClusterPlanOptions,
  clusterPlan,
  kindNodes,
  type PlanPod,
} from './cluster-plan.ts';
export { BRIDGE_NAME } from './cni/bridge-plugin.ts';
export type { ClusterNetwork, Cni, NodeNetwork, PodSandbox } from './cni/cni.ts';
export { FLANNEL_DEVICE, FLANNEL_PORT, FLANNEL_VNI, FlannelHostGw, FlannelVxlan } from './cni/flannel.ts';
export { Kindnet, kindMasqRules, MASQ_CHAIN } from './cni/kindnet.ts';
export {
  DOCKER_GATEWAY,
  DOCKER_NETWORK,
  INTERNET_ADDRESS,
  INTERNET_NS,
  OUTSIDE_NS,
  POD_NETWORK,
  SERVICE_NETWORK,
} from './kind-network.ts';
export {
  KubeProxyController,
  type KubeProxyOptions,
  type NodeView,
  type SyncRecord,
} from './kube-proxy/controller.ts';
export type { Proxier, ProxierView } from './kube-proxy/proxier.ts';
export { HostLocalIpam } from './kubelet/host-local.ts';
export {
  type ImageRegistry,
  type ImageRunner,
  Kubelet,
  POD_IP_ANNOTATION,
  type RunningContainer,
} from './kubelet/kubelet.ts';
export * from './objects.ts';
export type { Command, SegmentPort, SegmentSpec, Word } from './plan.ts';
export { type Plan, PlanRunner, type PlanRunnerOptions, runPlan } from './run-plan.ts';
export type { ClusterRuntime, ContainerRecord } from './runtime.ts';
export * from './store.ts';
