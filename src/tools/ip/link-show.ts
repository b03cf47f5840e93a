// `ip link [show]` as iproute2 6.1 prints it (ip/ipaddress.c: print_linkinfo), plain, -br, -d, -s and -o, and the pieces
// `ip addr` and `bridge link` share; no JSON, no -h, no `-s -s` error block (it prints as `-s`), no alias/vf/xdp lines.
//
// Values Linux computes from things packetlab does not model are fixed at what a kernel shows for
// these device kinds: qlen 1000, group default, gso/gro sizes, bridge STP defaults, and every
// bridge timer at 0.00 (a real bridge shows the time left on its gc and forward-delay timers).

import type { Bridge } from '../../link/bridge.ts';
import type { NetDevice } from '../../link/device.ts';
import type { Veth } from '../../link/veth.ts';
import type { Vxlan } from '../../link/vxlan.ts';
import type { Namespace } from '../../netns/namespace.ts';
import { formatIpv4, formatMac } from '../../wire/address.ts';
import { type CommandResult, fail, ok } from '../result.ts';

/** The global `ip` options a listing reads (the subset of IpOptions it needs). */
export interface ShowOptions {
  readonly brief: boolean;
  readonly details: boolean;
  readonly stats: number;
  readonly oneline: boolean;
}

export type OperState = 'UP' | 'DOWN' | 'UNKNOWN' | 'LOWERLAYERDOWN';

/**
 * veth's num_tx_queues is num_possible_cpus() (veth_get_num_queues): packetlab models a
 * one-CPU host, so `numtxqueues 1` where a 2-CPU machine prints 2.
 */
const VETH_QUEUES = 1;
/** GSO_MAX_SIZE on 64-bit kernels (512 KiB − 8), the tso_max_size of veth and lo. */
const GSO_MAX_SIZE = 524280;
/** GSO_LEGACY_MAX_SIZE: what a device without a TSO-capable lower device keeps. */
const GSO_LEGACY_MAX_SIZE = 65536;

/** The ports' peer when it sits in another namespace (what IFLA_LINK_NETNSID points at). */
function vethPeerElsewhere(dev: NetDevice): Veth | undefined {
  if (dev.kind !== 'veth') return undefined;
  const peer = (dev as Veth).peer;
  return peer !== null && peer.owner !== dev.owner ? peer : undefined;
}

/**
 * rfc2863_policy: DOWN when administratively down; without carrier LOWERLAYERDOWN if the
 * device's iflink differs from its own ifindex (a veth whose peer has another number),
 * else DOWN; with carrier, UNKNOWN for devices that never report an operstate (lo, vxlan).
 */
export function operState(dev: NetDevice): OperState {
  if (!dev.adminUp) return 'DOWN';
  switch (dev.kind) {
    case 'loopback':
    case 'vxlan':
      return 'UNKNOWN';
    case 'bridge':
      return dev.operUp ? 'UP' : 'DOWN';
    case 'veth': {
      if (dev.operUp) return 'UP';
      const peer = (dev as Veth).peer;
      return peer !== null && peer.ifindex !== dev.ifindex ? 'LOWERLAYERDOWN' : 'DOWN';
    }
  }
}

/** print_link_flags: `<NO-CARRIER,BROADCAST,MULTICAST,UP,LOWER_UP>` with `,M-DOWN` last. */
export function linkFlags(dev: NetDevice, mDown: boolean): string {
  const flags: string[] = [];
  const state = operState(dev);
  const running = state === 'UP' || state === 'UNKNOWN';
  if (dev.adminUp && !running) flags.push('NO-CARRIER');
  if (dev.kind === 'loopback') flags.push('LOOPBACK');
  else flags.push('BROADCAST', 'MULTICAST');
  if (dev.adminUp) flags.push('UP');
  if (dev.operUp) flags.push('LOWER_UP');
  return `<${flags.join(',')}${mDown ? ',M-DOWN' : ''}>`;
}

/**
 * print_name_and_link: `veth1@eth0` for a peer in the same namespace (M-DOWN when that
 * peer is down), `veth1@if4` for a peer elsewhere; devices without an iflink print bare.
 */
export function nameAndLink(dev: NetDevice): { name: string; mDown: boolean } {
  if (dev.kind !== 'veth') return { name: dev.name, mDown: false };
  const peer = (dev as Veth).peer;
  if (peer === null) return { name: dev.name, mDown: false };
  if (peer.owner !== dev.owner) return { name: `${dev.name}@if${peer.ifindex}`, mDown: false };
  return { name: `${dev.name}@${peer.name}`, mDown: !peer.adminUp };
}

function masterOf(ns: Namespace, dev: NetDevice): Bridge | undefined {
  if (dev.masterIndex === 0) return undefined;
  const master = ns.byIndex(dev.masterIndex);
  return master?.kind === 'bridge' ? (master as Bridge) : undefined;
}

/** The first line of `ip link` (withMode) and `ip addr` (without `mode DEFAULT`), no newline. */
export function linkHeadline(ns: Namespace, dev: NetDevice, withMode: boolean): string {
  const { name, mDown } = nameAndLink(dev);
  const master = masterOf(ns, dev);
  return (
    `${dev.ifindex}: ${name}: ${linkFlags(dev, mDown)} mtu ${dev.mtu} ` +
    `qdisc ${dev.qdisc?.kind ?? (dev.adminUp ? 'noqueue' : 'noop')} ` +
    (master !== undefined ? `master ${master.name} ` : '') +
    `state ${operState(dev)} ` +
    (withMode ? 'mode DEFAULT ' : '') +
    'group default qlen 1000'
  );
}

/**
 * ` link-netns NAME` for a veth whose peer lives in another namespace with a name in /var/run/netns, else
 * ` link-netnsid N` (iproute2's print_linktype: get_name_from_nsid finds no name for the id).
 */
export function linkNetns(dev: NetDevice): string {
  const peer = vethPeerElsewhere(dev);
  if (peer === undefined) return '';
  const peerNs = peer.owner as Namespace;
  if (peerNs.listedInNetnsRun) return ` link-netns ${peerNs.name}`;
  return ` link-netnsid ${(dev.owner as Namespace).peerNsid(peerNs)}`;
}

/** The `    link/ether MAC brd ff:ff:ff:ff:ff:ff [link-netns NS]` line, no newline. */
export function linkAddressLine(dev: NetDevice): string {
  const lladdr =
    dev.kind === 'loopback'
      ? 'link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00'
      : `link/ether ${formatMac(dev.mac)} brd ff:ff:ff:ff:ff:ff`;
  return `    ${lladdr}${linkNetns(dev)}`;
}

function tsoMaxSize(ns: Namespace, dev: NetDevice, depth = 0): number {
  switch (dev.kind) {
    case 'loopback':
    case 'veth':
      return GSO_MAX_SIZE;
    case 'vxlan': {
      // netif_inherit_tso_max from the lower device.
      const lower = ns.byIndex((dev as Vxlan).config.lowerIfindex);
      return lower !== undefined && depth < 8 ? tsoMaxSize(ns, lower, depth + 1) : GSO_LEGACY_MAX_SIZE;
    }
    case 'bridge': {
      // br_set_gso_limits: the smallest of the ports'.
      const ports = [...(dev as Bridge).ports.values()];
      if (ports.length === 0 || depth >= 8) return GSO_LEGACY_MAX_SIZE;
      return Math.min(...ports.map((port) => tsoMaxSize(ns, port, depth + 1)));
    }
  }
}

/** `8000.a:58:a:f4:1:1`: priority, then the MAC with each octet in unpadded hex (br_dump_bridge_id). */
function bridgeId(bridge: Bridge): string {
  return `8000.${formatMac(bridge.mac)
    .split(':')
    .map((octet) => Number.parseInt(octet, 16).toString(16))
    .join(':')}`;
}

/** A port's number: ports are numbered from 1 in the order they joined (find_portno, without reuse of freed numbers). */
function portNumber(bridge: Bridge, port: NetDevice): number {
  return [...bridge.ports.keys()].indexOf(port.ifindex) + 1;
}

/** br_port_state: forwarding once both the bridge and the port are running (STP off), else disabled. */
export function portState(bridge: Bridge, port: NetDevice): 'forwarding' | 'disabled' {
  return bridge.adminUp && port.operUp ? 'forwarding' : 'disabled';
}

/** The STP path cost from the port's speed (br_port_cost): a veth reports 10 Gb/s, others no speed. */
export function portCost(port: NetDevice): number {
  return port.kind === 'veth' ? 2 : 100;
}

function bridgeDetails(bridge: Bridge): string {
  const id = bridgeId(bridge);
  const ageing = Math.round(bridge.fdb.ageingNs / 1e7);
  return (
    `bridge forward_delay 1500 hello_time 200 max_age 2000 ageing_time ${ageing} stp_state 0 priority 32768 ` +
    `vlan_filtering 0 bridge_id ${id} designated_root ${id} root_port 0 root_path_cost 0 topology_change 0 ` +
    'topology_change_detected 0 hello_timer    0.00 tcn_timer    0.00 topology_change_timer    0.00 ' +
    'gc_timer    0.00 group_fwd_mask 0 group_address 01:80:c2:00:00:00 mcast_snooping 1 no_linklocal_learn 0 ' +
    'mcast_vlan_snooping 0 mcast_router 1 mcast_query_use_ifaddr 0 mcast_querier 0 mcast_hash_elasticity 16 ' +
    'mcast_hash_max 4096 mcast_last_member_count 2 mcast_startup_query_count 2 mcast_last_member_interval 100 ' +
    'mcast_membership_interval 26000 mcast_querier_interval 25500 mcast_query_interval 12500 ' +
    'mcast_query_response_interval 1000 mcast_startup_query_interval 3124 mcast_stats_enabled 0 ' +
    'mcast_igmp_version 2 mcast_mld_version 1 nf_call_iptables 0 nf_call_ip6tables 0 nf_call_arptables 0 '
  );
}

function bridgeSlaveDetails(bridge: Bridge, port: NetDevice): string {
  const id = bridgeId(bridge);
  const portNo = portNumber(bridge, port);
  const portId = 0x8000 | portNo;
  return (
    `bridge_slave state ${portState(bridge, port)} priority 32 cost ${portCost(port)} ` +
    `hairpin ${bridge.hairpin.has(port.ifindex) ? 'on' : 'off'} guard off root_block off fastleave off ` +
    `learning on flood on port_id 0x${portId.toString(16)} port_no 0x${portNo.toString(16)} ` +
    `designated_port ${portId} designated_cost 0 designated_bridge ${id} designated_root ${id} ` +
    'hold_timer    0.00 message_age_timer    0.00 forward_delay_timer    0.00 topology_change_ack 0 ' +
    'config_pending 0 proxy_arp off proxy_arp_wifi off mcast_router 1 mcast_fast_leave off mcast_flood on ' +
    'bcast_flood on mcast_to_unicast off neigh_suppress off group_fwd_mask 0 group_fwd_mask_str 0x0 ' +
    'vlan_tunnel off isolated off locked off '
  );
}

/** iplink_vxlan.c: vxlan_print_opt, for the fields packetlab's VXLAN device has. */
function vxlanDetails(ns: Namespace, vxlan: Vxlan): string {
  const c = vxlan.config;
  const lower = c.lowerIfindex !== 0 ? ns.byIndex(c.lowerIfindex) : undefined;
  return (
    `vxlan id ${c.vni} ` +
    (c.local !== undefined ? `local ${formatIpv4(c.local)} ` : '') +
    (lower !== undefined ? `dev ${lower.name} ` : '') +
    `srcport ${c.srcPortMin} ${c.srcPortMax} dstport ${c.dstPort} ` +
    (c.learning ? '' : 'nolearning ') +
    `ttl ${c.ttl === 0 ? 'auto' : c.ttl} ageing ${c.ageingSeconds} ` +
    (c.udpChecksum ? 'udpcsum ' : 'noudpcsum ') +
    'noudp6zerocsumtx noudp6zerocsumrx '
  );
}

/**
 * What `-d` adds: the promiscuity/MTU range tail of the link/ether line, then the kind's
 * line, the bridge_slave line, and the queue/GSO numbers. `addrgenmode` comes from the
 * IPv6 af_spec, which `ip link` requests and `ip addr` does not.
 */
export function detailsText(ns: Namespace, dev: NetDevice, options: { addrgenmode: boolean }): string {
  const master = masterOf(ns, dev);
  const isPort = master !== undefined;
  const mtuRange = dev.kind === 'loopback' ? 'minmtu 0 maxmtu 0' : 'minmtu 68 maxmtu 65535';
  let text = ` promiscuity ${dev.promiscuity}  allmulti ${isPort ? 1 : 0} ${mtuRange} `;
  switch (dev.kind) {
    case 'loopback':
      break;
    case 'veth':
      text += '\n    veth ';
      break;
    case 'bridge':
      text += `\n    ${bridgeDetails(dev as Bridge)}`;
      break;
    case 'vxlan':
      text += `\n    ${vxlanDetails(ns, dev as Vxlan)}`;
      break;
  }
  if (isPort) text += `\n    ${bridgeSlaveDetails(master, dev)}`;
  if (options.addrgenmode) text += 'addrgenmode eui64 ';
  const queues = dev.kind === 'veth' ? VETH_QUEUES : 1;
  text +=
    `numtxqueues ${queues} numrxqueues ${queues} gso_max_size 65536 gso_max_segs 65535 ` +
    `tso_max_size ${tsoMaxSize(ns, dev)} tso_max_segs 65535 gro_max_size 65536 `;
  return text;
}

/**
 * print_link_stats64 without -h: column widths start at the header words' and grow to fit
 * the largest number. The multicast count is 0: veth, bridge, vxlan and lo never report one.
 */
export function statsText(dev: NetDevice, level = 1): string {
  const s = dev.stats;
  const rx = [s.rxBytes, s.rxPackets, s.rxErrors, s.rxDropped, 0, 0];
  const tx = [s.txBytes, s.txPackets, s.txErrors, s.txDropped, 0, 0];
  const cols = [10, 7, 6, 7, 7, 7];
  for (const values of [rx, tx])
    values.forEach((value, i) => {
      cols[i] = Math.max(cols[i]!, String(value).length);
    });
  const header = (label: string, words: string[]): string =>
    `    ${label}: ${'bytes'.padStart(cols[0]! - 4)} ${words.map((w, i) => w.padStart(cols[i + 1]!)).join(' ')} ${''.padStart(10)}`;
  const row = (values: number[]): string =>
    `    ${values.map((v, i) => `${String(v).padStart(cols[i]!)} `).join('')}`;
  // -s -s: the error breakdown under each direction; packetlab's devices have none of these errors, and the
  // last TX column is carrier_changes. The words and numbers skip the bytes column.
  const errorHeader = (label: string, words: string[]): string =>
    `    ${label} errors:${''.padStart(cols[0]! - 10)} ${words.map((w, i) => w.padStart(cols[i + 1]!)).join(' ')}`;
  const errorRow = (values: number[]): string =>
    `    ${''.padStart(cols[0]!)} ${values.map((v, i) => `${String(v).padStart(cols[i + 1]!)} `).join('')}`;
  const lines = [header('RX', ['packets', 'errors', 'dropped', 'missed', 'mcast']), row(rx)];
  if (level > 1)
    lines.push(errorHeader('RX', ['length', 'crc', 'frame', 'fifo', 'overrun']), errorRow([0, 0, 0, 0, 0]));
  lines.push(header('TX', ['packets', 'errors', 'dropped', 'carrier', 'collsns']), row(tx));
  if (level > 1)
    lines.push(
      errorHeader('TX', ['aborted', 'fifo', 'window', 'heartbt', 'transns']),
      errorRow([0, 0, 0, 0, s.carrierChanges]),
    );
  return lines.join('\n');
}

/** One device as `ip link` prints it (with a final newline); internal newlines become `\` under -o. */
function linkRecord(ns: Namespace, dev: NetDevice, options: ShowOptions): string {
  if (options.brief) return briefLink(dev);
  let text = `${linkHeadline(ns, dev, true)}\n${linkAddressLine(dev)}`;
  if (options.details) text += detailsText(ns, dev, { addrgenmode: true });
  if (options.stats > 0) text += `\n${statsText(dev, options.stats)}`;
  return `${options.oneline ? text.replaceAll('\n', '\\') : text}\n`;
}

/** `%-16s %-14s ` then what follows: the start of every -br line. */
export function briefPrefix(dev: NetDevice): string {
  return `${nameAndLink(dev).name.padEnd(16)} ${operState(dev).padEnd(14)} `;
}

function briefLink(dev: NetDevice): string {
  const { mDown } = nameAndLink(dev);
  const mac = dev.kind === 'loopback' ? '00:00:00:00:00:00' : formatMac(dev.mac);
  return `${briefPrefix(dev)}${mac} ${linkFlags(dev, mDown)} \n`;
}

/** The device filter `ip link show` and `ip addr show` share: `[dev] NAME`, `up`, `master BR`, `type KIND`. */
export interface LinkFilter {
  readonly dev: NetDevice | undefined;
  readonly up: boolean;
  readonly master: NetDevice | undefined;
  readonly type: string | undefined;
}

export function parseLinkFilter(ns: Namespace, args: string[]): LinkFilter | CommandResult {
  let devName: string | undefined;
  let up = false;
  let master: NetDevice | undefined;
  let type: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const value = args[i + 1];
    if (word === 'up') up = true;
    else if (word === 'master' || word === 'type' || word === 'dev') {
      if (value === undefined) return fail('Command line is not complete. Try option "help"\n', 255);
      i++;
      if (word === 'type') type = value;
      else if (word === 'master') {
        master = ns.byName(value);
        if (master === undefined)
          return fail(`Error: argument "${value}" is wrong: Device does not exist\n\n`, 255);
      } else {
        if (devName !== undefined)
          return fail(`Error: either "dev" is duplicate, or "${value}" is a garbage.\n`, 255);
        devName = value;
      }
    } else if (devName !== undefined)
      return fail(`Error: either "dev" is duplicate, or "${word}" is a garbage.\n`, 255);
    else devName = word;
  }
  let dev: NetDevice | undefined;
  if (devName !== undefined) {
    dev = ns.byName(devName);
    if (dev === undefined) return fail(`Device "${devName}" does not exist.\n`, 1);
  }
  return { dev, up, master, type };
}

/** The devices a filter selects, in ifindex order. */
export function filterDevices(ns: Namespace, filter: LinkFilter): NetDevice[] {
  return ns.all().filter((dev) => {
    if (filter.dev !== undefined && dev !== filter.dev) return false;
    if (filter.up && !dev.adminUp) return false;
    if (filter.master !== undefined && dev.masterIndex !== filter.master.ifindex) return false;
    if (filter.type !== undefined) {
      if (filter.type === 'bridge_slave') return masterOf(ns, dev) !== undefined;
      if (filter.type !== dev.kind || dev.kind === 'loopback') return false;
    }
    return true;
  });
}

/** `ip link [show|list] [DEV] [up] [master BR] [type KIND]`. */
export function linkShow(ns: Namespace, args: string[], options: ShowOptions): CommandResult {
  const filter = parseLinkFilter(ns, args);
  if ('exitCode' in filter) return filter;
  return ok(
    filterDevices(ns, filter)
      .map((dev) => linkRecord(ns, dev, options))
      .join(''),
  );
}
