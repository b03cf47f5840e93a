// The Kubernetes layer: the object store with watches, the controllers, CNIs, kube-proxy's two modes, and the
// command plans they emit (run by packetlab and, in the harness, by the real kernel).

export type { ClusterNetwork, Cni, NodeNetwork, PodSandbox } from './cni/cni.ts';
// kube-proxy, iptables mode (kp-iptables): the proxier, its ruleset, the chain names.
export * from './kube-proxy/iptables/index.ts';
export type { Proxier, ProxierView } from './kube-proxy/proxier.ts';
export * from './objects.ts';
export type { Command, SegmentPort, SegmentSpec, Word } from './plan.ts';
export type { ClusterRuntime, ContainerRecord } from './runtime.ts';
export * from './store.ts';
