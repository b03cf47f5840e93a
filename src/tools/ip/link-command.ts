// `ip link add/set/del` (the changes), as iproute2 parses them; the listing lives in link-show.ts.

import type { Bridge } from '../../link/bridge.ts';
import type { NetDevice } from '../../link/device.ts';
import type { Namespace } from '../../netns/namespace.ts';
import { parseIpv4, parseMac } from '../../wire/address.ts';
import { VXLAN_PORT_LINUX } from '../../wire/vxlan.ts';
import { type CommandResult, fail, ok } from '../result.ts';

const LINK_USAGE = 'Usage: ip link add [link DEV | parentdev NAME] [ name ] NAME\n';

function cannotFind(name: string): CommandResult {
  return fail(`Cannot find device "${name}"\n`, 1);
}

/** `ip link add NAME type veth|bridge|vxlan ...`. */
export function linkAdd(ns: Namespace, args: string[]): CommandResult {
  let name: string | undefined;
  let type: string | undefined;
  let i = 0;
  let mtu: number | undefined;
  let mac: number | undefined;
  for (; i < args.length; i++) {
    const word = args[i]!;
    if (word === 'type') {
      type = args[++i];
      i++;
      break;
    }
    if (word === 'name') name = args[++i];
    else if (word === 'mtu') mtu = Number(args[++i]);
    else if (word === 'address') mac = parseMac(args[++i] ?? '');
    else if (name === undefined) name = word;
    else return fail(`Error: either "dev" is duplicate, or "${word}" is a garbage.\n`, 255);
  }
  if (name === undefined) return fail('Not enough information: "dev" argument is required.\n', 255);
  const rest = args.slice(i);
  switch (type) {
    case 'veth': {
      let peerName: string | undefined;
      let peerMtu: number | undefined;
      let peerNs = ns;
      for (let j = 0; j < rest.length; j++) {
        const word = rest[j]!;
        if (word === 'peer') continue;
        if (word === 'name') peerName = rest[++j];
        else if (word === 'mtu') peerMtu = Number(rest[++j]);
        else if (word === 'netns') {
          const target = rest[++j] ?? '';
          if (!ns.sim.hasNamespace(target))
            return fail(`Cannot open network namespace "${target}": No such file or directory\n`, 1);
          peerNs = ns.sim.namespace(target);
        } else return fail(`Error: argument "${word}" is wrong: unknown option\n`, 255);
      }
      const result = ns.addVeth(name, peerName ?? `veth${ns.allocateIfindex()}`, peerNs, {
        ...(mtu !== undefined ? { mtu } : {}),
        ...(peerMtu !== undefined ? { peerMtu } : {}),
      });
      return result.ok ? ok('') : fail('RTNETLINK answers: File exists\n', 2);
    }
    case 'bridge': {
      const result = ns.addBridge(name, {
        ...(mac !== undefined ? { mac } : {}),
        ...(mtu !== undefined ? { mtu } : {}),
      });
      return result.ok ? ok('') : fail('RTNETLINK answers: File exists\n', 2);
    }
    case 'vxlan':
      return vxlanAdd(ns, name, rest, { mtu, mac });
    case undefined:
      return fail(LINK_USAGE, 255);
    default:
      return fail(`Error: Unknown device type.\n`, 2);
  }
}

function vxlanAdd(
  ns: Namespace,
  name: string,
  args: string[],
  extra: { mtu: number | undefined; mac: number | undefined },
): CommandResult {
  let vni: number | undefined;
  // vxlan_nl2conf: learning is on unless `nolearning` is given.
  const options: {
    local?: number;
    lowerIfindex?: number;
    dstPort?: number;
    learning?: boolean;
    ttl?: number;
  } = { learning: true };
  let stderr = '';
  for (let j = 0; j < args.length; j++) {
    const word = args[j]!;
    const value = args[j + 1];
    switch (word) {
      case 'id':
      case 'vni':
        vni = Number(value);
        j++;
        break;
      case 'local': {
        const addr = parseIpv4(value ?? '');
        if (addr === undefined) return fail(`Error: inet address is expected rather than "${value}".\n`, 1);
        options.local = addr;
        j++;
        break;
      }
      case 'dev': {
        const dev = ns.byName(value ?? '');
        if (dev === undefined) return cannotFind(value ?? '');
        options.lowerIfindex = dev.ifindex;
        j++;
        break;
      }
      case 'dstport':
        options.dstPort = Number(value);
        j++;
        break;
      case 'ttl':
        options.ttl = value === 'auto' ? 0 : Number(value);
        j++;
        break;
      case 'nolearning':
        options.learning = false;
        break;
      case 'learning':
        options.learning = true;
        break;
      default:
        return fail(`vxlan: unknown command "${word}"?\n`, 255);
    }
  }
  if (vni === undefined || !Number.isInteger(vni) || vni < 0 || vni > 0xffffff)
    return fail('vxlan: missing virtual network identifier\n', 255);
  // iplink_vxlan.c warns when no port is given; the kernel's default is 8472, also for `dstport 0`.
  if (options.dstPort === undefined)
    stderr =
      'vxlan: destination port not specified\nWill use Linux kernel default (non-standard value)\n' +
      "Use 'dstport 4789' to get the IANA assigned value\nUse 'dstport 0' to get default and quiet this message\n";
  if (options.dstPort === undefined || options.dstPort === 0) options.dstPort = VXLAN_PORT_LINUX;
  const result = ns.addVxlan(name, {
    vni,
    ...options,
    ...(extra.mtu !== undefined ? { mtu: extra.mtu } : {}),
    ...(extra.mac !== undefined ? { mac: extra.mac } : {}),
  });
  return result.ok ? { stdout: '', stderr, exitCode: 0 } : fail('RTNETLINK answers: File exists\n', 2);
}

/** `ip link set DEV up|down|mtu N|master BR|nomaster|netns NS|address MAC|name NEW`. */
export function linkSet(ns: Namespace, args: string[]): CommandResult {
  let devName: string | undefined;
  const changes: ((dev: NetDevice) => CommandResult | undefined)[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const value = args[i + 1];
    switch (word) {
      case 'dev':
        devName = value;
        i++;
        break;
      case 'up':
        changes.push((dev) => void ns.setUp(dev));
        break;
      case 'down':
        changes.push((dev) => void ns.setDown(dev));
        break;
      case 'mtu': {
        const mtu = Number(value);
        i++;
        changes.push((dev) =>
          ns.setMtu(dev, mtu).ok ? undefined : fail(`Error: mtu less than device minimum.\n`, 2),
        );
        break;
      }
      case 'master': {
        i++;
        changes.push((dev) => {
          const bridge = ns.byName(value ?? '');
          if (bridge === undefined) return cannotFind(value ?? '');
          if (bridge.kind !== 'bridge') return fail('RTNETLINK answers: Operation not supported\n', 2);
          ns.setMaster(dev, bridge as Bridge);
          return undefined;
        });
        break;
      }
      case 'nomaster':
        changes.push((dev) => {
          const bridge = ns.byIndex(dev.masterIndex) as Bridge | undefined;
          bridge?.removePort(dev);
          return undefined;
        });
        break;
      case 'netns': {
        i++;
        changes.push((dev) => {
          if (!ns.sim.hasNamespace(value ?? ''))
            return fail(`Cannot open network namespace "${value}": No such file or directory\n`, 1);
          ns.moveDevice(dev, ns.sim.namespace(value!));
          return undefined;
        });
        break;
      }
      case 'address': {
        i++;
        const mac = parseMac(value ?? '');
        if (mac === undefined) return fail(`"${value}" is invalid lladdr.\n`, 1);
        changes.push((dev) => {
          changeBridgeLocalAddress(ns, dev, mac);
          dev.mac = mac;
          return undefined;
        });
        break;
      }
      case 'type': {
        if (value === undefined) return fail(NOT_COMPLETE, 255);
        const parsed = bridgeSlaveOptions(value, args.slice(i + 2));
        if ('exitCode' in parsed) return parsed;
        i = args.length;
        changes.push((dev) => {
          const bridge = dev.masterIndex !== 0 ? ns.byIndex(dev.masterIndex) : undefined;
          if (bridge?.kind !== 'bridge') return fail('RTNETLINK answers: Operation not supported\n', 2);
          if (parsed.hairpin !== undefined) (bridge as Bridge).setHairpin(dev, parsed.hairpin);
          return undefined;
        });
        break;
      }
      default:
        if (devName === undefined) devName = word;
        else return fail(`Error: either "dev" is duplicate, or "${word}" is a garbage.\n`, 255);
    }
  }
  if (devName === undefined) return fail('Not enough information: "dev" argument is required.\n', 255);
  const dev = ns.byName(devName);
  if (dev === undefined) return cannotFind(devName);
  for (const change of changes) {
    const error = change(dev);
    if (error !== undefined) return error;
  }
  return ok('');
}

const NOT_COMPLETE = 'Command line is not complete. Try option "help"\n';

const BRIDGE_SLAVE_USAGE = `Usage: ... bridge_slave [ fdb_flush ]
\t\t\t[ state STATE ]
\t\t\t[ priority PRIO ]
\t\t\t[ cost COST ]
\t\t\t[ guard {on | off} ]
\t\t\t[ hairpin {on | off} ]
\t\t\t[ fastleave {on | off} ]
\t\t\t[ root_block {on | off} ]
\t\t\t[ learning {on | off} ]
\t\t\t[ flood {on | off} ]
\t\t\t[ proxy_arp {on | off} ]
\t\t\t[ proxy_arp_wifi {on | off} ]
\t\t\t[ mcast_router MULTICAST_ROUTER ]
\t\t\t[ mcast_fast_leave {on | off} ]
\t\t\t[ mcast_flood {on | off} ]
\t\t\t[ bcast_flood {on | off} ]
\t\t\t[ mcast_to_unicast {on | off} ]
\t\t\t[ group_fwd_mask MASK ]
\t\t\t[ neigh_suppress {on | off} ]
\t\t\t[ vlan_tunnel {on | off} ]
\t\t\t[ isolated {on | off} ]
\t\t\t[ locked {on | off} ]
\t\t\t[ backup_port DEVICE ] [ nobackup_port ]
`;

/** `type bridge_slave hairpin on|off` (iplink_bridge_slave.c); the other port options are not modelled. */
function bridgeSlaveOptions(kind: string, args: string[]): { hairpin: boolean | undefined } | CommandResult {
  if (kind !== 'bridge_slave') return fail('RTNETLINK answers: Operation not supported\n', 2);
  let hairpin: boolean | undefined;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word !== 'hairpin') return fail(`bridge_slave: unknown option "${word}"?\n${BRIDGE_SLAVE_USAGE}`, 1);
    const value = args[++i];
    if (value === undefined) return fail(NOT_COMPLETE, 255);
    if (value !== 'on' && value !== 'off')
      return fail(`Error: argument of "hairpin" must be one of "off", "on", not "${value}"\n`, 1);
    hairpin = value === 'on';
  }
  return { hairpin };
}

/**
 * br_fdb_change_mac_address / br_fdb_changeaddr: a bridge's or a port's new MAC replaces
 * its old local entry in the bridge's forwarding database.
 */
function changeBridgeLocalAddress(ns: Namespace, dev: NetDevice, mac: number): void {
  const bridge =
    dev.kind === 'bridge' ? dev : dev.masterIndex !== 0 ? ns.byIndex(dev.masterIndex) : undefined;
  if (bridge?.kind !== 'bridge') return;
  const fdb = (bridge as Bridge).fdb;
  const old = fdb.lookup(dev.mac, ns.sim.now);
  if (old?.local && old.port === dev.ifindex) fdb.remove(dev.mac);
  fdb.install(mac, dev.ifindex, { local: true });
}

/** `ip link del DEV`. */
export function linkDel(ns: Namespace, args: string[]): CommandResult {
  const name = args[0] === 'dev' ? args[1] : args[0];
  if (name === undefined) return fail('Not enough information: "dev" argument is required.\n', 255);
  const dev = ns.byName(name);
  if (dev === undefined) return cannotFind(name);
  ns.deleteDevice(dev);
  return ok('');
}
