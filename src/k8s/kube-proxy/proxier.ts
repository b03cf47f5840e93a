// What kube-proxy sees of the cluster on one node, and the contract of its two modes: from Services and
// EndpointSlices, render the ruleset that pkg/proxy/iptables or pkg/proxy/nftables would write, as the command
// (with its input) that loads it. Rendering is a pure function of this view: nodes with the same view get the same
// text, which is what lets a large cluster parse it once and share it.

import type { EndpointSlice, Service } from '../objects.ts';
import type { Command } from '../plan.ts';

export interface ProxierView {
  /** The node's name (`formation-worker`): endpoints with this nodeName are local. */
  readonly nodeName: string;
  /** The node's addresses NodePorts answer on (kube-proxy's --nodeport-addresses default: all local). */
  readonly nodeIps: readonly string[];
  /** --cluster-cidr (`10.244.0.0/16`): traffic from outside it to a ClusterIP is masqueraded. */
  readonly clusterCidr: string;
  /** --iptables-masquerade-bit (14: 0x4000). */
  readonly masqueradeBit: number;
  readonly services: readonly Service[];
  readonly endpointSlices: readonly EndpointSlice[];
}

export interface Proxier {
  readonly mode: 'iptables' | 'nftables';
  /**
   * The full sync kube-proxy runs after a change: `iptables-restore --noflush` (stdin) for iptables mode, `nft -f`
   * (a file word) for nftables mode, in the node's namespace `ns`. A first sync also creates the base chains.
   */
  sync(ns: string, view: ProxierView, first: boolean): readonly Command[];
}
