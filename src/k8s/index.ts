// The Kubernetes layer: the object store with watches, the controllers, CNIs, kube-proxy's two modes, and the
// command plans they emit (run by packetlab and, in the harness, by the real kernel).

// ---- the API server's admission (defaults, validation, allocators), the controllers, builders ----
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
export {
  CLUSTER_DNS_IP,
  Cluster,
  type ClusterLoadBalancerOptions,
  type ClusterNode,
  type ClusterOptions,
  type ClusterPodInput,
  type CniName,
  COREDNS_IMAGE,
  cluster,
  kubeProxySysctls,
  makeCni,
} from './cluster.ts';
// ---- the plan runner, the kind network, CNIs, kubelet, kube-proxy's sync loop, cluster() ----
export {
  type ClusterPlan,
  type ClusterPlanOptions,
  clusterPlan,
  kindNodes,
  kubeProxyResync,
  nodeProxierView,
  type PlanKubeProxy,
  type PlanPod,
} from './cluster-plan.ts';
export { BRIDGE_NAME } from './cni/bridge-plugin.ts';
export type { ClusterNetwork, Cni, NodeNetwork, PodSandbox } from './cni/cni.ts';
export { FLANNEL_DEVICE, FLANNEL_PORT, FLANNEL_VNI, FlannelHostGw, FlannelVxlan } from './cni/flannel.ts';
export { Kindnet, kindMasqRules, MASQ_CHAIN } from './cni/kindnet.ts';
// ---- the node and pod commands (docker exec, kubectl get/exec/debug, crictl, nsenter) ----
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
// Cluster DNS, kube-proxy's health servers, the external load balancer.
export {
  type ClusterDns,
  type ClusterDnsOptions,
  type ClusterDnsStats,
  clusterDns,
} from './dns/cluster-dns.ts';
export { KUBE_DNS_LABELS, kubeDnsService } from './dns/kube-dns.ts';
export { buildDnsTable, type DnsTable, type SrvTarget } from './dns/records.ts';
// The egress gateway.
export {
  clusterEgressGateway,
  EGRESS_MARK,
  EGRESS_RULE_PRIORITY,
  EGRESS_TABLE,
  EgressGateway,
  type EgressGatewayHost,
  type EgressGatewayPolicy,
  type EgressGatewaySync,
  gatewayRules,
  gatewaySetup,
  MARK_CHAIN,
  nodeRules,
  nodeSetup as egressNodeSetup,
  POOL_CHAIN,
  SNAT_CHAIN,
} from './egress-gateway.ts';
export {
  DOCKER_GATEWAY,
  DOCKER_NETWORK,
  INTERNET_ADDRESS,
  INTERNET_NS,
  OUTSIDE_NS,
  POD_NETWORK,
  SERVICE_NETWORK,
} from './kind-network.ts';
// kube-proxy's UDP conntrack cleanup, and the cluster plan's kube-proxy part.
export { nothingToDelete, staleConntrackCommands } from './kube-proxy/conntrack-cleanup.ts';
export {
  KubeProxyController,
  type KubeProxyOptions,
  type NodeView,
  type SyncRecord,
} from './kube-proxy/controller.ts';
export {
  formatGoTime,
  type KubeProxyHealth,
  type KubeProxyHealthOptions,
  kubeProxyHealth,
  localReadyEndpoints,
  TO_BE_DELETED_TAINT,
} from './kube-proxy/health.ts';
// kube-proxy, iptables mode: the proxier, its ruleset, the chain names.
export * from './kube-proxy/iptables/index.ts';
// kube-proxy's nftables mode (pkg/proxy/nftables of v1.31).
export {
  hashAndTruncate,
  type ServicePortName,
  servicePortChainNameBase,
  servicePortEndpointChainNameBase,
} from './kube-proxy/nftables/names.ts';
export {
  NftablesProxier,
  type NftablesProxierOptions,
  type NftablesSync,
} from './kube-proxy/nftables/proxier.ts';
export {
  type Operation,
  operationLine,
  TableModel,
  transactionText,
} from './kube-proxy/nftables/transaction.ts';
export type { Proxier, ProxierView } from './kube-proxy/proxier.ts';
export { HostLocalIpam } from './kubelet/host-local.ts';
export {
  type ImageRegistry,
  type ImageRunner,
  Kubelet,
  type RunningContainer,
} from './kubelet/kubelet.ts';
export {
  EXCLUDE_FROM_LB_LABEL,
  type LoadBalancerController,
  type LoadBalancerMode,
  type LoadBalancerOptions,
  type LoadBalancerView,
  loadBalancerController,
} from './lb/controller.ts';
export { HealthChecker, type HealthCheckOptions, type ProbeRecord } from './lb/health-checker.ts';
export { PASSTHROUGH_TABLE, type PassthroughFrontend, renderPassthrough } from './lb/passthrough-rules.ts';
export { type Backend, TcpProxy, type TcpProxyOptions, type TcpProxyStats } from './lb/tcp-proxy.ts';
// The lesson's hand-wired two-node cluster (cases 1 to 6), written once for packetlab and the harness.
export {
  LESSON_NAMESPACES,
  type Lesson,
  type LessonOptions,
  type LessonWiring,
  type LessonWriter,
  lessonServices,
  lessonTopology,
  MASQ_AGENT_RULES,
  type NodeWiring,
  type PodWiring,
  type ServicesLesson,
  wireLesson,
} from './lesson.ts';
export * from './objects.ts';
export type { Command, SegmentPort, SegmentSpec, Word } from './plan.ts';
export { type Plan, PlanRunner, type PlanRunnerOptions, runPlan } from './run-plan.ts';
export type { ClusterRuntime, ContainerRecord } from './runtime.ts';
export * from './store.ts';
