// Small builders for the argument vectors CNI plugins and their agents run, so each plugin file reads as the list of
// netlink calls it mirrors. No logic beyond forming words.

import type { Command, Word } from '../plan.ts';

export function run(ns: string, ...argv: Word[]): Command {
  return { ns, argv };
}

/** `ip link add IFNAME mtu M type veth peer name HOST mtu M netns NODE`, then both ends' MACs, as SetupVethWithName. */
export function vethPair(options: {
  readonly podNs: string;
  readonly nodeNs: string;
  readonly ifname: string;
  readonly hostVeth: string;
  readonly mtu: number;
  readonly podMac: string;
  readonly hostMac: string;
}): Command[] {
  const mtu = String(options.mtu);
  return [
    run(
      options.podNs,
      'ip',
      'link',
      'add',
      options.ifname,
      'mtu',
      mtu,
      'type',
      'veth',
      'peer',
      'name',
      options.hostVeth,
      'mtu',
      mtu,
      'netns',
      { ns: options.nodeNs },
    ),
    run(options.podNs, 'ip', 'link', 'set', 'dev', options.ifname, 'address', options.podMac),
    run(options.nodeNs, 'ip', 'link', 'set', 'dev', options.hostVeth, 'address', options.hostMac),
    // SetupVethWithName: the host end goes up in the host namespace before the plugin returns to it.
    run(options.nodeNs, 'ip', 'link', 'set', 'dev', options.hostVeth, 'up'),
  ];
}

/** ipam.ConfigureIface: the addresses, the link up, then the result's routes (gateway the IP's when none given). */
export function configureIface(options: {
  readonly podNs: string;
  readonly ifname: string;
  readonly address: string;
  readonly prefixLength: number;
  readonly gateway: string;
  readonly routes: readonly string[];
}): Command[] {
  const { podNs, ifname, gateway } = options;
  return [
    run(
      podNs,
      'ip',
      'addr',
      'add',
      `${options.address}/${options.prefixLength}`,
      ...netlinkBroadcast(options.prefixLength),
      'dev',
      ifname,
    ),
    run(podNs, 'ip', 'link', 'set', 'dev', ifname, 'up'),
    ...options.routes.map((dst) =>
      run(podNs, 'ip', 'route', 'add', dst === '0.0.0.0/0' ? 'default' : dst, 'via', gateway, 'dev', ifname),
    ),
  ];
}

/**
 * The broadcast the CNI plugins' netlink library adds to an IPv4 address it assigns (vishvananda/netlink
 * addr_linux.go, addrHandle: the subnet's broadcast when none is given and the prefix is shorter than /31), as the
 * `brd +` of `ip addr add` (which by itself sets none).
 */
export function netlinkBroadcast(prefixLength: number): readonly string[] {
  return prefixLength < 31 ? ['brd', '+'] : [];
}
