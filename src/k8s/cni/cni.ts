// The contract between the kubelet and a network plugin: what a CNI (and its node agent, flanneld or kindnetd) runs
// on a node when the node joins, when another node appears or goes, and when a pod sandbox is added or deleted — all
// as command plans, so packetlab and the real kernel build the same devices, routes, neighbours and FDB entries.
//
// A plugin only returns commands; it never touches a namespace itself. A later Cilium-like datapath plugs in here
// too: it may also return `attachments` (programs on devices, at connect()) once that step defines them.

import type { Command } from '../plan.ts';

/** What a plugin knows of a node: the names and addresses kind would give it. */
export interface NodeNetwork {
  /** `formation-worker`. */
  readonly name: string;
  /** The namespace that is the node (its commands run there). */
  readonly ns: string;
  /** The node's interface on the Docker-like network (`eth0`) and its address without prefix (`172.18.0.3`). */
  readonly ifname: string;
  readonly address: string;
  /** The Docker network's prefix length (16) and gateway (172.18.0.1). */
  readonly prefixLength: number;
  readonly gateway: string;
  /** The node's pod CIDR (`10.244.1.0/24`). */
  readonly podCidr: string;
  /** A MAC the plugin may give the node's tunnel device, fixed from the seed (flannel publishes it as VtepMAC). */
  readonly tunnelMac: string;
  /** The MAC the node's pod bridge (cni0) gets, fixed from the seed. */
  readonly bridgeMac: string;
}

/** What a plugin knows of the cluster as a whole. */
export interface ClusterNetwork {
  /** The cluster's pod network (`10.244.0.0/16`). */
  readonly podNetwork: string;
  /** The Docker network's MTU (1500). */
  readonly underlayMtu: number;
  /**
   * An `mtu` written in the CNI configuration by hand (flannel's `delegate.mtu`): the plugin gives pods this one
   * instead of its own (flannel's CNI plugin sets the delegate's mtu from subnet.env only when it has none).
   */
  readonly configuredPodMtu?: number;
}

/** A pod sandbox the kubelet asks the plugin to wire: the namespace exists, `lo` is up. */
export interface PodSandbox {
  /** The namespace that is the pod. */
  readonly ns: string;
  /** `default/diag`. */
  readonly podKey: string;
  /** The address IPAM gives (host-local hands out the next free one; a pinned pod gives its own), no prefix. */
  readonly address: string;
  /** The host end's name (`veth` + 8 hex digits, from the seed) and both ends' MACs, fixed from the seed. */
  readonly hostVeth: string;
  readonly hostMac: string;
  readonly podMac: string;
}

/** One instance serves one cluster: a plugin may remember per node what it built (the bridge plugin's cni0). */
export interface Cni {
  /** `flannel-vxlan`, `flannel-host-gw`, `kindnet`. */
  readonly name: string;
  /** The MTU pods get on this plugin (flannel VXLAN: underlay - 50). */
  podMtu(cluster: ClusterNetwork): number;
  /** Run once when the node joins, after its underlay interface is up with its address and default route. */
  nodeAdded(node: NodeNetwork, cluster: ClusterNetwork): readonly Command[];
  /** Run when the node leaves the cluster (its namespace goes next); lets a plugin forget what it kept for it. */
  nodeRemoved?(node: NodeNetwork, cluster: ClusterNetwork): readonly Command[];
  /** Run on `node` when `peer` joins (flanneld's route, neighbour and FDB entry; kindnet's route). */
  peerAdded(node: NodeNetwork, peer: NodeNetwork, cluster: ClusterNetwork): readonly Command[];
  /** Run on `node` when `peer` leaves: undoes peerAdded. */
  peerRemoved(node: NodeNetwork, peer: NodeNetwork, cluster: ClusterNetwork): readonly Command[];
  /** CNI ADD: the veth pair, the pod end as eth0 with its address and routes, the host end in place. */
  podAdded(node: NodeNetwork, pod: PodSandbox, cluster: ClusterNetwork): readonly Command[];
  /** CNI DEL: the host end goes (deleting one end of a veth deletes both), and what ADD put on the node. */
  podRemoved(node: NodeNetwork, pod: PodSandbox, cluster: ClusterNetwork): readonly Command[];
}
