// The Kubernetes layer: the object store with watches, the controllers, CNIs, kube-proxy's two modes, and the
// command plans they emit (run by packetlab and, in the harness, by the real kernel).

export type { ClusterNetwork, Cni, NodeNetwork, PodSandbox } from './cni/cni.ts';
// k8s-services: cluster DNS, kube-proxy's health servers, the external load balancer.
export {
  type ClusterDns,
  type ClusterDnsOptions,
  type ClusterDnsStats,
  clusterDns,
} from './dns/cluster-dns.ts';
export { KUBE_DNS_LABELS, kubeDnsService } from './dns/kube-dns.ts';
export { buildDnsTable, type DnsTable, type SrvTarget } from './dns/records.ts';
export {
  formatGoTime,
  type KubeProxyHealth,
  type KubeProxyHealthOptions,
  kubeProxyHealth,
  localReadyEndpoints,
  TO_BE_DELETED_TAINT,
} from './kube-proxy/health.ts';
export type { Proxier, ProxierView } from './kube-proxy/proxier.ts';
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
export * from './objects.ts';
export type { Command, SegmentPort, SegmentSpec, Word } from './plan.ts';
export type { ClusterRuntime, ContainerRecord } from './runtime.ts';
export * from './store.ts';
