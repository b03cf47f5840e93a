// The Kubernetes layer: the object store with watches, the controllers, CNIs, kube-proxy's two modes, and the
// command plans they emit (run by packetlab and, in the harness, by the real kernel).

export type { ClusterNetwork, Cni, NodeNetwork, PodSandbox } from './cni/cni.ts';
// kp-nftables: kube-proxy's nftables mode (pkg/proxy/nftables of v1.31).
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
export * from './objects.ts';
export type { Command, SegmentPort, SegmentSpec, Word } from './plan.ts';
export type { ClusterRuntime, ContainerRecord } from './runtime.ts';
export * from './store.ts';
