// What kind and Docker give a cluster before any Kubernetes component runs: node names (`NAME-control-plane`,
// `NAME-worker`, `NAME-worker2`...), their addresses on the Docker network 172.18.0.0/16 (gateway 172.18.0.1, nodes
// from .2 in the order control plane, then workers by number), Docker's MACs (02:42 + the address), pod CIDRs as the
// controller-manager's range allocator hands them out (10.244.N.0/24 in registration order), a node's own set-up (lo,
// eth0's address, the default route, the sysctls of a kind node), and the "outside": the Docker host as a router
// (masquerading the network, as Docker's POSTROUTING rule does) with an Internet host behind it. IPv4 only.

import type { Rng } from '../core/rng.ts';
import type { NodeNetwork } from './cni/cni.ts';
import { addressIn, formatAddress, mustParsePrefix } from './cni/ipv4.ts';
import type { Command, SegmentPort } from './plan.ts';

export const DOCKER_NETWORK = '172.18.0.0/16';
export const DOCKER_GATEWAY = '172.18.0.1';
export const DOCKER_MTU = 1500;
/** kind's default podSubnet, split into /24s by the controller-manager (--node-cidr-mask-size 24). */
export const POD_NETWORK = '10.244.0.0/16';
export const SERVICE_NETWORK = '10.96.0.0/12';

/** The Docker host (the network's gateway) and a host on the Internet behind it. */
export const OUTSIDE_NS = 'outside';
export const INTERNET_NS = 'internet';
export const INTERNET_ADDRESS = '203.0.113.10';
export const INTERNET_GATEWAY = '203.0.113.1';

export type NodeRole = 'control-plane' | 'worker';

/** The name kind gives the node of a role: the workers are `NAME-worker`, `NAME-worker2`, ... */
export function kindNodeName(cluster: string, role: NodeRole, workerNumber: number): string {
  if (role === 'control-plane') return `${cluster}-control-plane`;
  return workerNumber === 1 ? `${cluster}-worker` : `${cluster}-worker${workerNumber}`;
}

/** Docker's MAC for an address on its bridge network (before Docker 26): 02:42 and the four address bytes. */
export function dockerMac(address: string): string {
  const bytes = address.split('.').map((part) => Number(part).toString(16).padStart(2, '0'));
  return `02:42:${bytes.join(':')}`;
}

/** eth_random_addr from the seed: unicast, locally administered. */
export function seededMac(rng: Rng): string {
  const bytes = rng.bytes(6);
  bytes[0] = ((bytes[0] ?? 0) & 0xfe) | 0x02;
  return [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join(':');
}

/** The `index`-th /24 of the pod network (0 for the first node to register). */
export function podCidrAt(index: number, podNetwork: string = POD_NETWORK): string {
  const network = mustParsePrefix(podNetwork);
  return `${formatAddress((network.network + index * 256) >>> 0)}/24`;
}

/** The `index`-th node address on the Docker network (0 is 172.18.0.2). */
export function nodeAddressAt(index: number): string {
  return addressIn(mustParsePrefix(DOCKER_NETWORK), index + 2);
}

/** A node's identity on the network; its namespace has the node's name. */
export function kindNode(options: {
  readonly name: string;
  readonly addressIndex: number;
  readonly podCidrIndex: number;
  readonly rng: Rng;
  /** kind's podSubnet (default 10.244.0.0/16, room for 256 nodes). */
  readonly podNetwork?: string;
}): NodeNetwork {
  const address = nodeAddressAt(options.addressIndex);
  return {
    name: options.name,
    ns: options.name,
    ifname: 'eth0',
    address,
    prefixLength: 16,
    gateway: DOCKER_GATEWAY,
    podCidr: podCidrAt(options.podCidrIndex, options.podNetwork),
    tunnelMac: seededMac(options.rng),
    bridgeMac: seededMac(options.rng),
  };
}

/** The node's eth0 on the Docker network. */
export function nodePort(node: NodeNetwork): SegmentPort {
  return { ns: node.ns, ifname: node.ifname, mac: dockerMac(node.address), mtu: DOCKER_MTU };
}

/**
 * What Docker and kind's entrypoint leave on a node before kubelet starts: lo up, eth0's address and the default
 * route via the gateway, forwarding on (kind's entrypoint; kubelet and kube-proxy want it), br_netfilter's
 * bridge-nf-call-iptables on (the host's module is loaded for kube-proxy).
 */
export function nodeSetup(node: NodeNetwork): Command[] {
  const ns = node.ns;
  return [
    { ns, argv: ['ip', 'link', 'set', 'dev', 'lo', 'up'] },
    { ns, argv: ['ip', 'addr', 'add', `${node.address}/${node.prefixLength}`, 'dev', node.ifname] },
    { ns, argv: ['ip', 'route', 'add', 'default', 'via', node.gateway, 'dev', node.ifname] },
    { ns, argv: ['sysctl', '-q', '-w', 'net.ipv4.ip_forward=1'] },
    { ns, argv: ['sysctl', '-q', '-w', 'net.bridge.bridge-nf-call-iptables=1'] },
  ];
}

/** The outside's eth0 on the Docker network (the gateway's port). */
export function outsidePort(): SegmentPort {
  return { ns: OUTSIDE_NS, ifname: 'eth0', mac: dockerMac(DOCKER_GATEWAY), mtu: DOCKER_MTU };
}

/**
 * The Docker host as a router: the gateway address on the network, a veth to the Internet host, forwarding on, and
 * Docker's masquerade of the network's traffic leaving by another interface
 * (`-A POSTROUTING -s 172.18.0.0/16 ! -o br-... -j MASQUERADE`, here `! -o eth0`).
 */
export function outsideSetup(): Command[] {
  const o = OUTSIDE_NS;
  const i = INTERNET_NS;
  return [
    { ns: o, argv: ['ip', 'link', 'set', 'dev', 'lo', 'up'] },
    { ns: o, argv: ['ip', 'addr', 'add', `${DOCKER_GATEWAY}/16`, 'dev', 'eth0'] },
    {
      ns: o,
      argv: ['ip', 'link', 'add', 'eth1', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', { ns: i }],
    },
    { ns: o, argv: ['ip', 'link', 'set', 'dev', 'eth1', 'address', '02:cb:00:71:00:01'] },
    { ns: i, argv: ['ip', 'link', 'set', 'dev', 'eth0', 'address', '02:cb:00:71:00:0a'] },
    { ns: o, argv: ['ip', 'addr', 'add', `${INTERNET_GATEWAY}/24`, 'dev', 'eth1'] },
    { ns: o, argv: ['ip', 'link', 'set', 'dev', 'eth1', 'up'] },
    { ns: o, argv: ['sysctl', '-q', '-w', 'net.ipv4.ip_forward=1'] },
    {
      ns: o,
      argv: [
        'iptables',
        '-t',
        'nat',
        '-A',
        'POSTROUTING',
        '-s',
        DOCKER_NETWORK,
        '!',
        '-o',
        'eth0',
        '-j',
        'MASQUERADE',
      ],
    },
    { ns: i, argv: ['ip', 'link', 'set', 'dev', 'lo', 'up'] },
    { ns: i, argv: ['ip', 'addr', 'add', `${INTERNET_ADDRESS}/24`, 'dev', 'eth0'] },
    { ns: i, argv: ['ip', 'link', 'set', 'dev', 'eth0', 'up'] },
    { ns: i, argv: ['ip', 'route', 'add', 'default', 'via', INTERNET_GATEWAY, 'dev', 'eth0'] },
  ];
}
