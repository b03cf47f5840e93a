// The `bridge` command (iproute2 6.1 bridge/): `fdb show|add|append|replace|del` for bridge and VXLAN forwarding
// databases and `link show|set` for bridge ports (hairpin only); no mdb, vlan, monitor, JSON, and `-s` prints as without.
//
// `fdb show` also prints each Ethernet device's multicast list as `self permanent` lines
// (ndo_dflt_fdb_dump), derived as Linux builds it with IPv6 disabled (packetlab has no IPv6):
// 33:33:00:00:00:01 from registration, 01:00:5e:00:00:01 while up, and on a running bridge the
// multicast-router-discovery pair 01:00:5e:00:00:6a / 33:33:00:00:00:6a. VXLAN entries hold one
// remote per MAC (plus the all-zeros list), so appending a second remote to a MAC is refused.

import type { Bridge } from '../link/bridge.ts';
import type { NetDevice } from '../link/device.ts';
import type { Veth } from '../link/veth.ts';
import type { Vxlan } from '../link/vxlan.ts';
import type { Namespace } from '../netns/namespace.ts';
import { formatIpv4, formatMac, type Ipv4Addr, type MacAddr } from '../wire/address.ts';
import { linkFlags, portCost, portState } from './ip/link-show.ts';
import { type CommandResult, fail, ok } from './result.ts';

const USAGE = `Usage: bridge [ OPTIONS ] OBJECT { COMMAND | help }
       bridge [ -force ] -batch filename
where  OBJECT := { link | fdb | mdb | vlan | monitor }
       OPTIONS := { -V[ersion] | -s[tatistics] | -d[etails] |
                    -o[neline] | -t[imestamp] | -n[etns] name |
                    -c[ompressvlans] -color -p[retty] -j[son] }
`;

const LINK_USAGE = `Usage: bridge link set dev DEV [ cost COST ] [ priority PRIO ] [ state STATE ]
                               [ guard {on | off} ]
                               [ hairpin {on | off} ]
                               [ fastleave {on | off} ]
                               [ root_block {on | off} ]
                               [ learning {on | off} ]
                               [ learning_sync {on | off} ]
                               [ flood {on | off} ]
                               [ mcast_router MULTICAST_ROUTER ]
                               [ mcast_flood {on | off} ]
                               [ bcast_flood {on | off} ]
                               [ mcast_to_unicast {on | off} ]
                               [ neigh_suppress {on | off} ]
                               [ vlan_tunnel {on | off} ]
                               [ isolated {on | off} ]
                               [ locked {on | off} ]
                               [ hwmode {vepa | veb} ]
                               [ backup_port DEVICE ] [ nobackup_port ]
                               [ self ] [ master ]
       bridge link show [dev DEV]
`;

const NOT_COMPLETE = 'Command line is not complete. Try option "help"\n';
const MAC_ZERO = 0;

/** iproute2's `matches`: a word selects a keyword when it is a prefix of it. */
function matches(word: string, keyword: string): boolean {
  return word.length > 0 && keyword.startsWith(word);
}

export function bridge(ns: Namespace, args: string[]): CommandResult {
  let target = ns;
  let details = false;
  let i = 0;
  for (; i < args.length && args[i]!.startsWith('-'); i++) {
    const option = args[i]!.startsWith('--') ? args[i]!.slice(1) : args[i]!;
    if (matches(option, '-details')) details = true;
    else if (matches(option, '-statistics') || matches(option, '-stats') || matches(option, '-oneline'))
      continue;
    else if (matches(option, '-netns')) {
      const name = args[++i];
      if (name === undefined) return fail(NOT_COMPLETE, 255);
      if (!ns.sim.hasNamespace(name))
        return fail(`Cannot open network namespace "${name}": No such file or directory\n`, 255);
      target = ns.sim.namespace(name);
    } else return fail(`Option "${option}" is unknown, try "bridge help".\n`, 255);
  }
  const [object, ...rest] = args.slice(i);
  if (object === undefined || matches(object, 'help')) return fail(USAGE, 255);
  if (matches(object, 'link')) return linkObject(target, rest, details);
  if (matches(object, 'fdb')) return fdbObject(target, rest);
  return fail(`Object "${object}" is unknown, try "bridge help".\n`, 255);
}

// ---- bridge link ------------------------------------------------------------------------

function bridgeOf(ns: Namespace, dev: NetDevice): Bridge | undefined {
  if (dev.masterIndex === 0) return undefined;
  const master = ns.byIndex(dev.masterIndex);
  return master?.kind === 'bridge' ? (master as Bridge) : undefined;
}

function linkObject(ns: Namespace, args: string[], details: boolean): CommandResult {
  const [verb, ...rest] = args;
  if (verb === undefined || matches(verb, 'show') || matches(verb, 'list') || matches(verb, 'lst'))
    return linkShow(ns, rest, details);
  if (matches(verb, 'set') || matches(verb, 'change')) return linkSet(ns, rest);
  if (matches(verb, 'help')) return fail(LINK_USAGE, 255);
  return fail(`Command "${verb}" is unknown, try "bridge link help".\n`, 255);
}

/**
 * `N: veth1@eth0: <FLAGS> mtu M master BR state S priority 32 cost C`. The PF_BRIDGE dump
 * carries the peer's ifindex without its namespace, so the tool names it after whatever
 * device has that number here (or `ifN`), and takes M-DOWN from that device.
 */
function portLine(ns: Namespace, port: NetDevice, bridge: Bridge, details: boolean): string {
  let name = port.name;
  let mDown = false;
  if (port.kind === 'veth') {
    const peer = (port as Veth).peer;
    if (peer !== null) {
      const local = ns.byIndex(peer.ifindex);
      name += `@${local?.name ?? `if${peer.ifindex}`}`;
      mDown = !(local?.adminUp ?? false);
    }
  }
  let text =
    `${port.ifindex}: ${name}: ${linkFlags(port, mDown)} mtu ${port.mtu} master ${bridge.name} ` +
    `state ${portState(bridge, port)} priority 32 cost ${portCost(port)} \n`;
  if (details)
    text +=
      `    hairpin ${bridge.hairpin.has(port.ifindex) ? 'on' : 'off'} guard off root_block off fastleave off ` +
      'learning on flood on mcast_flood on bcast_flood on mcast_router 1 mcast_to_unicast off ' +
      'neigh_suppress off vlan_tunnel off isolated off locked off \n';
  return text;
}

function linkShow(ns: Namespace, args: string[], details: boolean): CommandResult {
  let filter: NetDevice | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== 'dev') continue;
    const name = args[++i];
    if (name === undefined) return fail(NOT_COMPLETE, 255);
    if (filter !== undefined)
      return fail(`Error: either "dev" is duplicate, or "${name}" is a garbage.\n`, 255);
    filter = ns.byName(name);
    if (filter === undefined) return fail(`Cannot find device "${name}"\n`, 255);
  }
  let text = '';
  for (const dev of ns.all()) {
    if (filter !== undefined && dev !== filter) continue;
    const master = bridgeOf(ns, dev);
    if (master !== undefined) text += portLine(ns, dev, master, details);
  }
  return ok(text);
}

/** `bridge link set dev DEV hairpin on|off` (brlink_modify); other port flags are not modelled. */
function linkSet(ns: Namespace, args: string[]): CommandResult {
  let devName: string | undefined;
  let hairpin: boolean | undefined;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === 'dev' || word === 'hairpin') {
      const value = args[++i];
      if (value === undefined) return fail(NOT_COMPLETE, 255);
      if (word === 'dev') devName = value;
      else if (value === 'on' || value === 'off') hairpin = value === 'on';
      else return fail(`Error: argument of "hairpin" must be one of "off", "on", not "${value}"\n`, 234);
    } else return fail(LINK_USAGE, 255);
  }
  if (devName === undefined) return fail('Device is a required argument.\n', 255);
  const dev = ns.byName(devName);
  if (dev === undefined) return fail(`Cannot find bridge device "${devName}"\n`, 255);
  const master = bridgeOf(ns, dev);
  if (master === undefined) return fail('RTNETLINK answers: Operation not supported\n', 255);
  if (hairpin !== undefined) master.setHairpin(dev, hairpin);
  return ok('');
}

// ---- bridge fdb -------------------------------------------------------------------------

function fdbObject(ns: Namespace, args: string[]): CommandResult {
  const [verb, ...rest] = args;
  if (verb === undefined || matches(verb, 'show') || matches(verb, 'list') || matches(verb, 'lst'))
    return fdbShow(ns, rest);
  if (verb === 'add' || verb === 'append' || verb === 'replace' || matches(verb, 'delete'))
    return fdbModify(ns, rest, verb === 'add' || verb === 'append' || verb === 'replace' ? verb : 'del');
  return fail(`Command "${verb}" is unknown, try "bridge fdb help".\n`, 255);
}

/** The device's multicast list, as ndo_dflt_fdb_dump prints it (see the file comment). */
function multicastList(dev: NetDevice): string[] {
  const list = ['33:33:00:00:00:01'];
  if (dev.adminUp && dev.kind === 'bridge') list.push('01:00:5e:00:00:6a', '33:33:00:00:00:6a');
  if (dev.adminUp) list.push('01:00:5e:00:00:01');
  return list;
}

/** A bridge's entries behind `port` (the bridge itself for its own addresses), newest first as br_fdb_dump walks them. */
function bridgeEntries(ns: Namespace, bridge: Bridge, port: NetDevice): string[] {
  return bridge.fdb
    .list(ns.sim.now)
    .filter(([, entry]) => entry.port === port.ifindex)
    .reverse()
    .map(([mac, entry]) => {
      const state = entry.local ? 'permanent' : entry.static ? 'static' : '';
      return `${formatMac(mac)} DEV master ${bridge.name} ${state}`;
    });
}

/** vxlan_fdb_dump: newest MAC first; the all-zeros entry, made first, lists its remotes in append order. */
function vxlanEntries(vxlan: Vxlan): string[] {
  const lines = [...vxlan.remotes]
    .reverse()
    .map(([mac, remote]) => `${formatMac(mac)} DEV dst ${formatIpv4(remote)} self permanent`);
  for (const remote of vxlan.defaultRemotes)
    lines.push(`00:00:00:00:00:00 DEV dst ${formatIpv4(remote)} self permanent`);
  return lines;
}

/** rtnl_fdb_dump for one device: the master's entries for it, then its own. */
function deviceEntries(ns: Namespace, dev: NetDevice): string[] {
  const lines: string[] = [];
  const master = bridgeOf(ns, dev);
  if (master !== undefined) lines.push(...bridgeEntries(ns, master, dev));
  switch (dev.kind) {
    case 'loopback':
      break;
    case 'vxlan':
      lines.push(...vxlanEntries(dev as Vxlan));
      break;
    case 'bridge':
      lines.push(...multicastList(dev).map((mac) => `${mac} DEV self permanent`));
      lines.push(...bridgeEntries(ns, dev as Bridge, dev));
      break;
    case 'veth':
      lines.push(...multicastList(dev).map((mac) => `${mac} DEV self permanent`));
      break;
  }
  return lines;
}

/** `bridge fdb [show] [dev|brport DEV] [br BRIDGE]`; unknown words are ignored, as fdb_show does. */
function fdbShow(ns: Namespace, args: string[]): CommandResult {
  let dev: NetDevice | undefined;
  let br: NetDevice | undefined;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word !== 'dev' && word !== 'brport' && word !== 'br') continue;
    const name = args[++i];
    if (name === undefined) return fail(NOT_COMPLETE, 255);
    const found = ns.byName(name);
    if (word === 'br') {
      if (found === undefined) return fail(`Cannot find bridge device "${name}"\n`, 255);
      br = found;
    } else {
      if (found === undefined) return fail(`Cannot find device "${name}"\n`, 255);
      dev = found;
    }
  }
  let text = '';
  for (const each of ns.all()) {
    if (dev !== undefined && each !== dev) continue;
    if (br !== undefined && each !== br && (br.kind !== 'bridge' || each.masterIndex !== br.ifindex))
      continue;
    if (br !== undefined && br.kind !== 'bridge') continue;
    const devText = dev !== undefined ? '' : `dev ${each.name} `;
    for (const line of deviceEntries(ns, each)) text += `${line.replace('DEV ', devText)}\n`;
  }
  return ok(text);
}

/** get_addr for IPv4: one to four dotted numbers, missing ones zero (`172.18.0` is 172.18.0.0). */
function parseInet(text: string): Ipv4Addr | undefined {
  const parts = text.split('.');
  if (parts.length > 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255))
    return undefined;
  while (parts.length < 4) parts.push('0');
  return parts.reduce((acc, part) => acc * 256 + Number(part), 0);
}

/** `aa:bb:cc:dd:ee:ff` read with `%hhx` six times, as fdb_modify does. */
function parseFdbMac(text: string): MacAddr | undefined {
  const parts = text.split(':');
  if (parts.length !== 6 || !parts.every((part) => /^[0-9a-fA-F]{1,2}$/.test(part))) return undefined;
  return parts.reduce((acc, part) => acc * 256 + Number.parseInt(part, 16), 0);
}

type FdbVerb = 'add' | 'append' | 'replace' | 'del';

/** fdb_modify: `bridge fdb add|append|replace|del MAC dev DEV [dst IP] [self|master] [permanent|static|dynamic]`. */
function fdbModify(ns: Namespace, args: string[], verb: FdbVerb): CommandResult {
  let devName: string | undefined;
  let macText: string | undefined;
  let dst: Ipv4Addr | undefined;
  let master = false;
  let state: 'permanent' | 'static' | 'dynamic' | undefined;
  for (let i = 0; i < args.length; i++) {
    let word = args[i]!;
    if (word === 'dev' || word === 'dst') {
      const value = args[++i];
      if (value === undefined) return fail(NOT_COMPLETE, 255);
      if (word === 'dev') devName = value;
      else {
        if (dst !== undefined)
          return fail(`Error: either "dst" is duplicate, or "${value}" is a garbage.\n`, 255);
        dst = parseInet(value);
        if (dst === undefined)
          return fail(`Error: any valid address is expected rather than "${value}".\n`, 1);
      }
    } else if (word === 'self') continue;
    else if (matches(word, 'master')) master = true;
    else if (matches(word, 'local') || matches(word, 'permanent')) state = 'permanent';
    else if (matches(word, 'temp') || matches(word, 'static')) state = 'static';
    else if (matches(word, 'dynamic')) state = 'dynamic';
    else {
      if (word === 'to') {
        const value = args[++i];
        if (value === undefined) return fail(NOT_COMPLETE, 255);
        word = value;
      }
      if (macText !== undefined)
        return fail(`Error: either "to" is duplicate, or "${word}" is a garbage.\n`, 255);
      macText = word;
    }
  }
  if (devName === undefined || macText === undefined)
    return fail('Device and address are required arguments.\n', 255);
  const mac = parseFdbMac(macText);
  if (mac === undefined) return fail(`Invalid mac address ${macText}\n`, 255);
  const dev = ns.byName(devName);
  if (dev === undefined) return fail(`Cannot find device "${devName}"\n`, 255);
  if (master) {
    const bridge = bridgeOf(ns, dev);
    if (bridge === undefined) return fail('RTNETLINK answers: Operation not supported\n', 255);
    return bridgeFdbModify(ns, bridge, dev, mac, verb, state);
  }
  if (dev.kind === 'bridge') return bridgeFdbModify(ns, dev as Bridge, dev, mac, verb, state);
  if (dev.kind === 'vxlan') return vxlanFdbModify(dev as Vxlan, mac, dst, verb, state);
  // `self` on a plain device edits its unicast address list, which packetlab does not model.
  return fail('RTNETLINK answers: Operation not supported\n', 255);
}

/** br_fdb_add / br_fdb_delete: a static or permanent entry behind `port` (the bridge itself for its own MACs). */
function bridgeFdbModify(
  ns: Namespace,
  bridge: Bridge,
  port: NetDevice,
  mac: MacAddr,
  verb: FdbVerb,
  state: 'permanent' | 'static' | 'dynamic' | undefined,
): CommandResult {
  const existing = bridge.fdb.lookup(mac, ns.sim.now);
  if (verb === 'del') {
    if (existing === undefined || existing.port !== port.ifindex)
      return fail('RTNETLINK answers: No such file or directory\n', 255);
    bridge.fdb.remove(mac);
    return ok('');
  }
  if (state === 'dynamic') return fail('RTNETLINK answers: Operation not permitted\n', 255);
  if (existing !== undefined && verb !== 'replace') return fail('RTNETLINK answers: File exists\n', 255);
  bridge.fdb.install(mac, port.ifindex, { local: state !== 'static' });
  return ok('');
}

/** vxlan_fdb_add / vxlan_fdb_delete over the device's remotes (one per MAC) and all-zeros list. */
function vxlanFdbModify(
  vxlan: Vxlan,
  mac: MacAddr,
  dst: Ipv4Addr | undefined,
  verb: FdbVerb,
  state: 'permanent' | 'static' | 'dynamic' | undefined,
): CommandResult {
  const zero = mac === MAC_ZERO;
  const exists = zero ? vxlan.defaultRemotes.length > 0 : vxlan.remotes.has(mac);
  if (verb === 'del') {
    if (!exists) return fail('RTNETLINK answers: No such file or directory\n', 255);
    if (zero) {
      if (dst === undefined) vxlan.defaultRemotes.length = 0;
      else {
        const at = vxlan.defaultRemotes.indexOf(dst);
        if (at >= 0) vxlan.defaultRemotes.splice(at, 1);
      }
    } else if (dst === undefined || vxlan.remotes.get(mac) === dst) vxlan.remotes.delete(mac);
    return ok('');
  }
  // Without `dst` the kernel falls back to the device's default remote, which packetlab's VXLAN has none of.
  if (dst === undefined) return fail('RTNETLINK answers: Invalid argument\n', 255);
  if (state === 'static' || state === 'dynamic')
    return fail('RTNETLINK answers: Operation not supported\n', 255);
  if (exists && verb === 'add') return fail('RTNETLINK answers: File exists\n', 255);
  if (zero) {
    if (verb === 'replace' && exists) vxlan.defaultRemotes[0] = dst;
    else if (!vxlan.defaultRemotes.includes(dst)) vxlan.defaultRemotes.push(dst);
    return ok('');
  }
  const current = vxlan.remotes.get(mac);
  if (verb === 'append' && current !== undefined && current !== dst)
    return fail('RTNETLINK answers: Operation not supported\n', 255);
  vxlan.remotes.set(mac, dst);
  return ok('');
}
