// Rebuilds a snapshot's node in a new simulation with the command façade, as an administrator would retype it:
// interfaces (a NIC or a device of a kind packetlab does not model becomes a veth whose peer sits in the `wire`
// namespace, a veth whose peer is in another namespace too), addresses, routes of every table, rules, neighbours,
// sysctls, ipsets (`ipset restore`), iptables (`iptables-restore -c`), nft tables (`nft -f`, one table at a time,
// iptables-nft's own tables left to iptables-restore). Every command and what it answered is kept; every part not
// built, or built differently, is an `unsupported` entry naming its snapshot line. Not rebuilt: IPv6, sockets,
// conntrack entries, tc, the nft JSON listing.

import type { Namespace } from '../netns/namespace.ts';
import { Simulation } from '../netns/simulation.ts';
import { runArgv } from '../tools/exec.ts';
import { type BuildCommand, Builder, type Unsupported } from './builder.ts';
import { loadIpset, loadIptables, loadNft } from './rulesets.ts';
import type { NodeSnapshot, SnapshotLink, SnapshotRoute, SnapshotRule } from './sections.ts';

export type { BuildCommand, Unsupported } from './builder.ts';

export interface RebuiltNode {
  readonly sim: Simulation;
  readonly node: Namespace;
  /** Holds the far end of every NIC and of every veth whose peer was in another namespace. */
  readonly wire: Namespace;
  readonly commands: readonly BuildCommand[];
  readonly unsupported: readonly Unsupported[];
  /** What was built, counted: `5 interfaces`, `12 routes`... */
  readonly summary: readonly string[];
}

/** The namespace holding the far ends. */
export const WIRE = 'wire';

const DEFAULT_RULES = new Map([
  [0, 'local'],
  [32766, 'main'],
  [32767, 'default'],
]);

/** Route keys the rebuild cannot express: such a route is not built. */
const UNBUILDABLE_ROUTE_KEYS = new Set(['nexthops', 'nhid', 'encap', 'via']);

/** Kinds packetlab models with the same kind. */
const MODELLED_KINDS = new Set(['veth', 'bridge', 'vxlan']);

/** Builds the node; never throws on what the snapshot says (a command's refusal is data). */
export function rebuildNode(snapshot: NodeSnapshot, options: { seed?: string } = {}): RebuiltNode {
  const sim = new Simulation({ seed: options.seed ?? 'snapshot' });
  const nodeName = snapshot.hostname !== undefined && snapshot.hostname !== WIRE ? snapshot.hostname : 'node';
  const node = sim.addNamespace(nodeName);
  const wire = sim.addNamespace(WIRE);
  const b = new Builder(node, wire);
  for (const problem of snapshot.problems) b.note(problem.line, problem.message);
  for (const missing of snapshot.missing)
    b.note(missing.line, `section ${missing.name} not loaded: ${missing.why}`);
  for (const section of snapshot.unread)
    b.note(
      section.line,
      section.name === 'nft-json'
        ? 'section nft-json is not read (the plain nft listing is what is loaded)'
        : `section ${section.name} is not one packetlab reads`,
    );

  const built = buildLinks(b, snapshot.links);
  const addresses = buildAddresses(b, snapshot.links, built);
  const routes = buildRoutes(b, snapshot.routes, built);
  const rules = buildRules(b, snapshot.rules);
  const neighbours = buildNeighbours(b, snapshot, built);
  const sysctls = buildSysctls(b, snapshot);
  const ipsets = loadIpset(b, snapshot.ipset);
  const iptables = loadIptables(b, snapshot.iptables, snapshot.nft);
  const nftTables = loadNft(b, snapshot.nft, iptables.tables, iptables.nfTables);
  const summary = [
    `${built.size} interfaces`,
    `${addresses} addresses`,
    `${routes.built} routes (and ${routes.implied} the kernel makes from the addresses)`,
    `${rules} rules`,
    `${neighbours} neighbours`,
    `${sysctls} sysctls`,
    `${ipsets} ipsets`,
    `iptables: ${iptables.tables.length === 0 ? 'nothing' : iptables.tables.join(', ')}`,
    `nft: ${nftTables.length === 0 ? 'no table' : nftTables.join(', ')}`,
  ];
  b.unsupported.sort((x, y) => x.line - y.line);
  return { sim, node, wire, commands: b.commands, unsupported: b.unsupported, summary };
}

/** Interfaces, in an order that lets each command find what it names: bridges, pairs and stand-ins, VXLANs. */
function buildLinks(b: Builder, links: readonly SnapshotLink[]): Set<string> {
  const built = new Set<string>(['lo']);
  const byName = new Map(links.map((link) => [link.name, link]));
  // In ifindex order, so each device gets the index it had (a VXLAN's lower device and a bridge come first anyway).
  const order = [...links].sort((x, y) => x.ifindex - y.ifindex);
  for (const link of order) {
    if (link.name === 'lo' || built.has(link.name)) continue;
    const kind = link.kind;
    const mac =
      link.mac !== undefined && /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/.test(link.mac) ? link.mac : undefined;
    if (link.linkType !== 'ether' && link.linkType !== 'loopback' && link.linkType !== 'none')
      b.note(
        link.line,
        `interface ${link.name}: link type ${link.linkType} is not modelled (an Ethernet veth stands for it)`,
      );
    if (kind === 'bridge' && link.vlanFiltering)
      b.note(link.line, `interface ${link.name}: vlan_filtering is not modelled (built without it)`);
    if (kind === 'bridge') {
      if (
        b.must(
          ['ip', 'link', 'add', link.name, ...(mac ? ['address', mac] : []), 'type', 'bridge'],
          link.line,
          `interface ${link.name}`,
        )
      )
        built.add(link.name);
    } else if (kind === 'vxlan' && link.vxlan !== undefined) {
      const v = link.vxlan;
      const words = [
        'ip',
        'link',
        'add',
        link.name,
        ...(mac ? ['address', mac] : []),
        'type',
        'vxlan',
        'id',
        String(v.id),
      ];
      if (v.local !== undefined) words.push('local', v.local);
      if (v.dev !== undefined && built.has(v.dev)) words.push('dev', v.dev);
      words.push('dstport', String(v.port));
      if (!v.learning) words.push('nolearning');
      if (b.must(words, link.line, `interface ${link.name}`)) built.add(link.name);
    } else if (kind === 'veth' && link.peer !== undefined && byName.get(link.peer)?.kind === 'veth') {
      if (
        b.must(
          ['ip', 'link', 'add', link.name, 'type', 'veth', 'peer', 'name', link.peer],
          link.line,
          `interface ${link.name}`,
        )
      ) {
        built.add(link.name);
        built.add(link.peer);
        const peer = byName.get(link.peer)!;
        if (peer.mac !== undefined)
          b.must(['ip', 'link', 'set', peer.name, 'address', peer.mac], peer.line, `interface ${peer.name}`);
      }
      if (mac) b.must(['ip', 'link', 'set', link.name, 'address', mac], link.line, `interface ${link.name}`);
    } else {
      // A NIC, a veth to another namespace, or a kind packetlab does not model: a veth to the wire.
      const why =
        kind === undefined
          ? 'a device with no kind (a NIC): a veth to namespace wire stands for it'
          : kind === 'veth'
            ? 'its peer is in another namespace: the peer is in namespace wire'
            : `kind ${kind} is not modelled: a veth to namespace wire stands for it`;
      if (kind !== undefined && !MODELLED_KINDS.has(kind))
        b.note(link.line, `interface ${link.name}: ${why}`);
      const ok = b.must(
        ['ip', 'link', 'add', link.name, 'type', 'veth', 'peer', 'name', link.name, 'netns', WIRE],
        link.line,
        `interface ${link.name}`,
        why,
      );
      if (!ok) continue;
      built.add(link.name);
      if (mac) b.must(['ip', 'link', 'set', link.name, 'address', mac], link.line, `interface ${link.name}`);
      if (link.mtu !== undefined)
        b.run(b.wire, ['ip', 'link', 'set', link.name, 'mtu', String(link.mtu)], {
          source: `line ${link.line}`,
        });
      b.run(b.wire, ['ip', 'link', 'set', link.name, 'up'], { source: `line ${link.line}` });
    }
  }
  for (const link of links) {
    if (!built.has(link.name)) continue;
    if (link.master !== undefined) {
      if (built.has(link.master))
        b.must(['ip', 'link', 'set', link.name, 'master', link.master], link.line, `interface ${link.name}`);
      else b.note(link.line, `interface ${link.name}: its master ${link.master} was not built`);
    }
    if (link.mtu !== undefined && link.name !== 'lo')
      b.must(['ip', 'link', 'set', link.name, 'mtu', String(link.mtu)], link.line, `interface ${link.name}`);
  }
  for (const link of links)
    if (built.has(link.name) && link.up)
      b.must(['ip', 'link', 'set', link.name, 'up'], link.line, `interface ${link.name}`);
  return built;
}

function buildAddresses(b: Builder, links: readonly SnapshotLink[], built: Set<string>): number {
  let count = 0;
  for (const link of links) {
    const v6 = link.addresses.filter((address) => address.family === 'inet6').length;
    if (v6 > 0)
      b.note(
        link.line,
        `interface ${link.name}: ${v6} IPv6 address${v6 === 1 ? '' : 'es'} not built (IPv6 is not modelled)`,
      );
    if (!built.has(link.name)) continue;
    for (const address of link.addresses) {
      if (address.family !== 'inet') continue;
      // lo has 127.0.0.1/8 from its creation; another address on it (a node-local DNS cache's) is added.
      if (link.name === 'lo' && address.local === '127.0.0.1' && address.prefixLen === 8) continue;
      const words = ['ip', 'addr', 'add', `${address.local}/${address.prefixLen}`];
      if (address.broadcast !== undefined) words.push('broadcast', address.broadcast);
      words.push('dev', link.name);
      if (b.must(words, link.line, `address ${address.local}/${address.prefixLen} on ${link.name}`)) count++;
    }
  }
  return count;
}

/** A route the kernel made itself when an address was added (the local table's, the prefix's), which comes back with it. */
function implied(route: SnapshotRoute): boolean {
  return (
    route.protocol === 'kernel' &&
    (route.table === 'local' || route.scope === 'link' || route.scope === 'host')
  );
}

/** A route's identity in `ip route show table all`: type, destination, device, table. */
function routeKey(type: string, dst: string, dev: string | undefined, table: string): string {
  return `${type} ${dst} ${dev ?? '-'} ${table}`;
}

/** The routes packetlab's tables hold, by routeKey, read from `ip route show table all`. */
function presentRoutes(node: Namespace): Set<string> {
  const keys = new Set<string>();
  for (const line of runArgv(node, ['ip', 'route', 'show', 'table', 'all'], '').stdout.split('\n')) {
    const words = line.trim().split(/\s+/);
    if (words[0] === '') continue;
    const type = [
      'local',
      'broadcast',
      'blackhole',
      'unreachable',
      'prohibit',
      'multicast',
      'anycast',
      'throw',
    ].includes(words[0]!)
      ? words.shift()!
      : 'unicast';
    const at = (key: string): string | undefined => {
      const index = words.indexOf(key);
      return index < 0 ? undefined : words[index + 1];
    };
    keys.add(routeKey(type, words[0]!, at('dev'), at('table') ?? 'main'));
  }
  return keys;
}

function buildRoutes(
  b: Builder,
  routes: readonly SnapshotRoute[],
  built: Set<string>,
): { built: number; implied: number } {
  let count = 0;
  let kernel = 0;
  const present = presentRoutes(b.node);
  for (const route of routes) {
    if (route.dst.includes(':')) {
      b.note(route.line, `route ${route.dst}: IPv6 is not modelled`);
      continue;
    }
    if (implied(route)) {
      // The address brought it back, or the listing says it did not.
      if (!present.has(routeKey(route.type, route.dst, route.dev, route.table)))
        b.note(
          route.line,
          `route ${route.dst} (table ${route.table}) the kernel made from an address is not in packetlab's table`,
        );
      kernel++;
      continue;
    }
    const blocking = route.unknown.filter((key) => UNBUILDABLE_ROUTE_KEYS.has(key));
    if (blocking.length > 0) {
      b.note(
        route.line,
        `route ${route.dst} (table ${route.table}): ${blocking.join(', ')} not modelled: not built`,
      );
      continue;
    }
    const others = route.unknown.filter((key) => key !== 'pref' && key !== 'expires' && key !== 'cache');
    if (others.length > 0)
      b.note(route.line, `route ${route.dst} (table ${route.table}): ${others.join(', ')} not rebuilt`);
    if (route.dev !== undefined && !built.has(route.dev)) {
      b.note(route.line, `route ${route.dst} (table ${route.table}): its device ${route.dev} was not built`);
      continue;
    }
    const words = ['ip', 'route', 'add'];
    if (route.type !== 'unicast') words.push(route.type);
    words.push(route.dst);
    if (route.gateway !== undefined) words.push('via', route.gateway);
    if (route.dev !== undefined) words.push('dev', route.dev);
    if (route.table !== 'main') words.push('table', route.table);
    if (route.protocol !== undefined && route.protocol !== 'boot') words.push('proto', route.protocol);
    if (route.scope !== undefined && route.scope !== 'global') words.push('scope', route.scope);
    if (route.prefsrc !== undefined) words.push('src', route.prefsrc);
    if (route.metric !== undefined) words.push('metric', String(route.metric));
    if (route.flags.includes('onlink')) words.push('onlink');
    if (b.must(words, route.line, `route ${route.dst} (table ${route.table})`)) count++;
  }
  return { built: count, implied: kernel };
}

function buildRules(b: Builder, rules: readonly SnapshotRule[]): number {
  let count = 0;
  for (const rule of rules) {
    const plain =
      !rule.not &&
      rule.src === undefined &&
      rule.dst === undefined &&
      rule.fwmark === undefined &&
      rule.iif === undefined &&
      rule.oif === undefined &&
      rule.tos === undefined &&
      rule.action === undefined;
    if (plain && DEFAULT_RULES.get(rule.priority) === rule.table) continue;
    const extra = rule.unknown.filter((key) => key !== 'flags' && key !== 'protocol');
    if (extra.length > 0)
      b.note(rule.line, `rule ${rule.priority}: ${extra.join(', ')} not modelled: not built`);
    if (extra.length > 0) continue;
    const words = ['ip', 'rule', 'add', 'priority', String(rule.priority)];
    if (rule.not) words.push('not');
    if (rule.src !== undefined) words.push('from', rule.src);
    if (rule.dst !== undefined) words.push('to', rule.dst);
    if (rule.tos !== undefined) words.push('tos', rule.tos);
    if (rule.fwmark !== undefined)
      words.push('fwmark', rule.fwmask === undefined ? rule.fwmark : `${rule.fwmark}/${rule.fwmask}`);
    if (rule.iif !== undefined) words.push('iif', rule.iif);
    if (rule.oif !== undefined) words.push('oif', rule.oif);
    if (rule.action !== undefined && rule.action !== 'goto') words.push(rule.action);
    else if (rule.table !== undefined) words.push('lookup', rule.table);
    if (b.must(words, rule.line, `rule ${rule.priority}`)) count++;
  }
  return count;
}

function buildNeighbours(b: Builder, snapshot: NodeSnapshot, built: Set<string>): number {
  let count = 0;
  for (const neighbour of snapshot.neighbours) {
    if (neighbour.dst.includes(':')) {
      b.note(neighbour.line, `neighbour ${neighbour.dst}: IPv6 is not modelled`);
      continue;
    }
    if (!built.has(neighbour.dev)) {
      b.note(neighbour.line, `neighbour ${neighbour.dst}: its device ${neighbour.dev} was not built`);
      continue;
    }
    const state = neighbour.state[0] ?? 'NONE';
    let nud: string;
    switch (state) {
      case 'PERMANENT':
      case 'NOARP':
      case 'REACHABLE':
      case 'STALE':
        nud = state.toLowerCase();
        break;
      case 'DELAY':
      case 'PROBE':
        // The kernel's timers for those states run on its own clock: the entry is taken as stale (it is used, then probed).
        nud = 'stale';
        b.note(neighbour.line, `neighbour ${neighbour.dst}: state ${state} built as STALE`);
        break;
      default:
        b.note(neighbour.line, `neighbour ${neighbour.dst}: state ${state} has no address to rebuild`);
        continue;
    }
    if (neighbour.lladdr === undefined) {
      b.note(neighbour.line, `neighbour ${neighbour.dst}: no lladdr: not built`);
      continue;
    }
    const words = [
      'ip',
      'neigh',
      'replace',
      neighbour.dst,
      'lladdr',
      neighbour.lladdr,
      'dev',
      neighbour.dev,
      'nud',
      nud,
    ];
    if (b.must(words, neighbour.line, `neighbour ${neighbour.dst}`)) count++;
  }
  return count;
}

/** Each sysctl packetlab knows and whose value differs from its default is written; one it does not know is listed. */
function buildSysctls(b: Builder, snapshot: NodeSnapshot): number {
  let count = 0;
  for (const sysctl of snapshot.sysctls) {
    const current = runArgv(b.node, ['sysctl', '-n', sysctl.key], '');
    if (current.exitCode !== 0) {
      // A device that was not built has no conf keys; that device is already listed.
      const dev = /^net\.ipv4\.conf\.([^.]+)\./.exec(sysctl.key)?.[1];
      if (dev !== undefined && dev !== 'all' && dev !== 'default' && b.node.byName(dev) === undefined) {
        if (!snapshot.links.some((link) => link.name === dev))
          b.note(sysctl.line, `sysctl ${sysctl.key}: the snapshot has no interface ${dev}`);
        continue;
      }
      b.note(sysctl.line, `sysctl ${sysctl.key} = ${sysctl.value} is not modelled`);
      continue;
    }
    if (current.stdout.trim().replace(/\s+/g, ' ') === sysctl.value.trim()) continue;
    if (b.must(['sysctl', '-w', `${sysctl.key}=${sysctl.value}`], sysctl.line, `sysctl ${sysctl.key}`))
      count++;
  }
  return count;
}
