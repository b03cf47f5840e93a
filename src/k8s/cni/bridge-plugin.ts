// The containernetworking bridge plugin as flannel's CNI delegates to it (isGateway, isDefaultGateway, hairpinMode,
// host-local IPAM with the flannel network as an extra route): the commands of plugins/main/bridge cmdAdd and cmdDel.
// No VLAN filtering, no promiscuous bridge, no IPv6, no gratuitous ARP after ADD, no ipMasq (flanneld masquerades).

import type { Command } from '../plan.ts';
import type { NodeNetwork, PodSandbox } from './cni.ts';
import { configureIface, netlinkBroadcast, run, vethPair } from './commands.ts';
import { addressIn, mustParsePrefix } from './ipv4.ts';

export const BRIDGE_NAME = 'cni0';

export interface BridgeOptions {
  readonly mtu: number;
  /** The pod network flannel adds as a route through the gateway (`10.244.0.0/16`). */
  readonly podNetwork: string;
}

/**
 * Mirrors bridge.go cmdAdd: setupBridge (ensureBridge: created with the MTU, then up) only while cni0 does not
 * exist yet; setupVeth (the pair, host end up, master cni0, hairpin on); ConfigureIface in the pod (the host-local
 * result's routes, then the default route isDefaultGateway appends); then ensureAddr puts the gateway on cni0.
 */
export function bridgeAdd(
  node: NodeNetwork,
  pod: PodSandbox,
  options: BridgeOptions & { readonly bridgeExists: boolean },
): Command[] {
  const cidr = mustParsePrefix(node.podCidr);
  const gateway = addressIn(cidr, 1);
  const commands: Command[] = [];
  if (!options.bridgeExists) {
    commands.push(
      run(node.ns, 'ip', 'link', 'add', BRIDGE_NAME, 'mtu', String(options.mtu), 'type', 'bridge'),
      // Deviation: the kernel gives a new bridge a random MAC that then follows its lowest port's; we fix it.
      run(node.ns, 'ip', 'link', 'set', 'dev', BRIDGE_NAME, 'address', node.bridgeMac),
      run(node.ns, 'ip', 'link', 'set', 'dev', BRIDGE_NAME, 'up'),
    );
  }
  commands.push(
    ...vethPair({
      podNs: pod.ns,
      nodeNs: node.ns,
      ifname: 'eth0',
      hostVeth: pod.hostVeth,
      mtu: options.mtu,
      podMac: pod.podMac,
      hostMac: pod.hostMac,
    }),
    run(node.ns, 'ip', 'link', 'set', 'dev', pod.hostVeth, 'master', BRIDGE_NAME),
    run(node.ns, 'bridge', 'link', 'set', 'dev', pod.hostVeth, 'hairpin', 'on'),
    ...configureIface({
      podNs: pod.ns,
      ifname: 'eth0',
      address: pod.address,
      prefixLength: cidr.prefixLength,
      gateway,
      routes: [options.podNetwork, '0.0.0.0/0'],
    }),
  );
  if (!options.bridgeExists)
    commands.push(
      run(
        node.ns,
        'ip',
        'addr',
        'add',
        `${gateway}/${cidr.prefixLength}`,
        ...netlinkBroadcast(cidr.prefixLength),
        'dev',
        BRIDGE_NAME,
      ),
    );
  return commands;
}

/** bridge.go cmdDel: the container's eth0 goes (its host end with it); cni0 stays, as on a real node. */
export function bridgeDel(pod: PodSandbox): Command[] {
  return [run(pod.ns, 'ip', 'link', 'del', 'eth0')];
}
