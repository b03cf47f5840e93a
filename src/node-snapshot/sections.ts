// The sections of a snapshot as records: interfaces (`ip -d -j addr`, `ip -d -j link` when addr is missing),
// routes, rules and neighbours (iproute2's JSON), sysctls (`KEY = VALUE`) and the rule texts (iptables-save,
// nft list ruleset, ipset save) with the snapshot line each starts at. Whatever a section holds that cannot be
// read is a problem naming its line; nothing throws. IPv6 entries are kept (the rebuild reports them).

import type { SnapshotFile, SnapshotProblem, SnapshotSection } from './format.ts';

export interface SnapshotAddress {
  readonly family: string;
  readonly local: string;
  readonly prefixLen: number;
  readonly broadcast: string | undefined;
}

export interface SnapshotLink {
  readonly ifindex: number;
  readonly name: string;
  /** linkinfo.info_kind (veth, bridge, vxlan...); undefined for a device with none (a NIC, lo). */
  readonly kind: string | undefined;
  readonly linkType: string;
  readonly mtu: number | undefined;
  readonly mac: string | undefined;
  readonly up: boolean;
  readonly master: string | undefined;
  /** A veth's peer when it is in the same namespace (iproute2's `link`, without `link_netnsid`). */
  readonly peer: string | undefined;
  /** The peer lives in another namespace. */
  readonly peerElsewhere: boolean;
  /** A bridge's vlan_filtering (packetlab's bridges do not filter by VLAN). */
  readonly vlanFiltering: boolean;
  readonly vxlan:
    | { id: number; local: string | undefined; dev: string | undefined; port: number; learning: boolean }
    | undefined;
  readonly addresses: readonly SnapshotAddress[];
  readonly line: number;
}

/** One route as `ip -j route show table all` prints it. */
export interface SnapshotRoute {
  readonly type: string;
  readonly dst: string;
  readonly gateway: string | undefined;
  readonly dev: string | undefined;
  readonly table: string;
  readonly protocol: string | undefined;
  readonly scope: string | undefined;
  readonly prefsrc: string | undefined;
  readonly metric: number | undefined;
  readonly flags: readonly string[];
  /** Keys packetlab's rebuild does not turn into words (multipath nexthops, encap...). */
  readonly unknown: readonly string[];
  readonly line: number;
}

export interface SnapshotRule {
  readonly priority: number;
  readonly not: boolean;
  readonly src: string | undefined;
  readonly dst: string | undefined;
  readonly fwmark: string | undefined;
  readonly fwmask: string | undefined;
  readonly iif: string | undefined;
  readonly oif: string | undefined;
  readonly tos: string | undefined;
  readonly table: string | undefined;
  /** blackhole, unreachable, prohibit, goto, nop...; undefined for `lookup TABLE`. */
  readonly action: string | undefined;
  readonly unknown: readonly string[];
  readonly line: number;
}

export interface SnapshotNeighbour {
  readonly dst: string;
  readonly dev: string;
  readonly lladdr: string | undefined;
  readonly state: readonly string[];
  readonly line: number;
}

export interface SnapshotSysctl {
  readonly key: string;
  readonly value: string;
  readonly line: number;
}

/** A rule text (iptables-save, nft list ruleset, ipset save) and where its first line is in the snapshot. */
export interface SnapshotText {
  readonly text: string;
  readonly stderr: string;
  readonly lines: readonly number[];
  readonly line: number;
}

export interface NodeSnapshot {
  readonly hostname: string | undefined;
  readonly kernel: string | undefined;
  readonly links: readonly SnapshotLink[];
  readonly routes: readonly SnapshotRoute[];
  readonly rules: readonly SnapshotRule[];
  readonly neighbours: readonly SnapshotNeighbour[];
  readonly sysctls: readonly SnapshotSysctl[];
  readonly iptables: SnapshotText | undefined;
  readonly nft: SnapshotText | undefined;
  readonly ipset: SnapshotText | undefined;
  /** Sections present that nothing reads (nft-json: for later), or that are unknown. */
  readonly unread: readonly SnapshotSection[];
  /** Sections whose tool failed or was missing: name, status and its first error line. */
  readonly missing: readonly { readonly name: string; readonly line: number; readonly why: string }[];
  readonly problems: readonly SnapshotProblem[];
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const int = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) ? value : undefined;

/** The JSON array of an ip section, or a problem naming the line it fails on. */
function jsonArray(
  section: SnapshotSection,
  problems: SnapshotProblem[],
): { items: unknown[]; line: (at: number) => number } | undefined {
  const text = section.stdout;
  const lineAt = (offset: number): number => {
    let newlines = 0;
    for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) newlines++;
    // An error at the very end (JSON cut short) is on the last line, not after it.
    return section.stdoutLines[Math.min(newlines, section.stdoutLines.length - 1)] ?? section.line;
  };
  if (text.trim() === '') return { items: [], line: () => section.line };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /position (\d+)/.exec(message);
    problems.push({
      line: position === null ? (section.stdoutLines[0] ?? section.line) : lineAt(Number(position[1])),
      message: `${section.name}: not JSON as ${section.command || 'ip -j'} prints it: ${message}`,
    });
    return undefined;
  }
  if (!Array.isArray(value)) {
    problems.push({
      line: section.stdoutLines[0] ?? section.line,
      message: `${section.name}: expected a JSON array`,
    });
    return undefined;
  }
  // ip -j prints the whole array on one line; pretty-printed JSON maps each entry to its first line.
  const starts: number[] = [];
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      if (depth === 1) starts.push(i);
      depth++;
    } else if (c === ']' || c === '}') depth--;
  }
  return { items: value, line: (at) => lineAt(starts[at] ?? 0) };
}

function readLinks(section: SnapshotSection, problems: SnapshotProblem[]): SnapshotLink[] {
  const parsed = jsonArray(section, problems);
  if (parsed === undefined) return [];
  const links: SnapshotLink[] = [];
  parsed.items.forEach((item, at) => {
    const line = parsed.line(at);
    if (!isObject(item)) {
      problems.push({ line, message: `${section.name}: entry ${at + 1} is not an object` });
      return;
    }
    const name = str(item['ifname']);
    const ifindex = int(item['ifindex']);
    if (name === undefined || ifindex === undefined || name === '' || name.length > 15) {
      problems.push({ line, message: `${section.name}: entry ${at + 1} has no valid ifname and ifindex` });
      return;
    }
    const info = isObject(item['linkinfo']) ? item['linkinfo'] : undefined;
    const kind = str(info?.['info_kind']);
    const data = isObject(info?.['info_data']) ? info['info_data'] : undefined;
    const flags = Array.isArray(item['flags'])
      ? item['flags'].filter((flag) => typeof flag === 'string')
      : [];
    const addresses: SnapshotAddress[] = [];
    const infos = Array.isArray(item['addr_info']) ? item['addr_info'] : [];
    for (const entry of infos) {
      if (!isObject(entry)) continue;
      const family = str(entry['family']);
      const local = str(entry['local']);
      const prefixLen = int(entry['prefixlen']);
      if (family === undefined || local === undefined || prefixLen === undefined) {
        problems.push({
          line,
          message: `${section.name}: an address of ${name} lacks family, local or prefixlen`,
        });
        continue;
      }
      addresses.push({ family, local, prefixLen, broadcast: str(entry['broadcast']) });
    }
    let vxlan: SnapshotLink['vxlan'];
    if (kind === 'vxlan' && data !== undefined) {
      const id = int(data['id']);
      if (id === undefined) problems.push({ line, message: `${section.name}: vxlan ${name} has no id` });
      else
        vxlan = {
          id,
          local: str(data['local']),
          dev: str(data['link']),
          port: int(data['port']) ?? 8472,
          learning: data['learning'] !== false,
        };
    }
    const mtu = int(item['mtu']);
    links.push({
      ifindex,
      name,
      kind,
      linkType: str(item['link_type']) ?? 'ether',
      mtu,
      mac: str(item['address']),
      up: flags.includes('UP'),
      master: str(item['master']),
      peer: item['link_netnsid'] === undefined ? str(item['link']) : undefined,
      peerElsewhere: item['link_netnsid'] !== undefined,
      vlanFiltering: kind === 'bridge' && data?.['vlan_filtering'] === 1,
      vxlan,
      addresses,
      line,
    });
  });
  return links;
}

const ROUTE_KEYS = new Set([
  'type',
  'dst',
  'gateway',
  'dev',
  'table',
  'protocol',
  'scope',
  'prefsrc',
  'metric',
  'flags',
]);

function readRoutes(section: SnapshotSection, problems: SnapshotProblem[]): SnapshotRoute[] {
  const parsed = jsonArray(section, problems);
  if (parsed === undefined) return [];
  const routes: SnapshotRoute[] = [];
  parsed.items.forEach((item, at) => {
    const line = parsed.line(at);
    const dst = isObject(item) ? str(item['dst']) : undefined;
    if (!isObject(item) || dst === undefined) {
      problems.push({ line, message: `${section.name}: route ${at + 1} has no dst` });
      return;
    }
    const metric = item['metric'] === undefined ? undefined : int(item['metric']);
    routes.push({
      type: str(item['type']) ?? 'unicast',
      dst,
      gateway: str(item['gateway']),
      dev: str(item['dev']),
      table: item['table'] === undefined ? 'main' : String(item['table']),
      protocol: item['protocol'] === undefined ? undefined : String(item['protocol']),
      scope: str(item['scope']),
      prefsrc: str(item['prefsrc']),
      metric,
      flags: Array.isArray(item['flags']) ? item['flags'].filter((flag) => typeof flag === 'string') : [],
      unknown: Object.keys(item).filter((key) => !ROUTE_KEYS.has(key)),
      line,
    });
  });
  return routes;
}

const RULE_KEYS = new Set([
  'priority',
  'not',
  'src',
  'srclen',
  'dst',
  'dstlen',
  'fwmark',
  'fwmask',
  'iif',
  'oif',
  'tos',
  'table',
  'action',
  'flags',
  'protocol',
  'l3mdev',
]);

/** `from all` is the default; `src` with `srclen` is a prefix. */
function prefix(address: unknown, length: unknown): string | undefined {
  const text = str(address);
  if (text === undefined || text === 'all') return undefined;
  const bits = int(length);
  return bits === undefined ? text : `${text}/${bits}`;
}

function readRules(section: SnapshotSection, problems: SnapshotProblem[]): SnapshotRule[] {
  const parsed = jsonArray(section, problems);
  if (parsed === undefined) return [];
  const rules: SnapshotRule[] = [];
  parsed.items.forEach((item, at) => {
    const line = parsed.line(at);
    const priority = isObject(item) ? int(item['priority']) : undefined;
    if (!isObject(item) || priority === undefined) {
      problems.push({ line, message: `${section.name}: rule ${at + 1} has no priority` });
      return;
    }
    const fwmark = item['fwmark'] === undefined ? undefined : String(item['fwmark']);
    const action = str(item['action']);
    rules.push({
      priority,
      not: item['not'] !== undefined,
      src: prefix(item['src'], item['srclen']),
      dst: prefix(item['dst'], item['dstlen']),
      fwmark,
      fwmask: item['fwmask'] === undefined ? undefined : String(item['fwmask']),
      iif: str(item['iif']),
      oif: str(item['oif']),
      tos: item['tos'] === undefined ? undefined : String(item['tos']),
      table: item['table'] === undefined ? undefined : String(item['table']),
      action: action === 'to_tbl' ? undefined : action,
      unknown: Object.keys(item).filter((key) => !RULE_KEYS.has(key)),
      line,
    });
  });
  return rules;
}

function readNeighbours(section: SnapshotSection, problems: SnapshotProblem[]): SnapshotNeighbour[] {
  const parsed = jsonArray(section, problems);
  if (parsed === undefined) return [];
  const neighbours: SnapshotNeighbour[] = [];
  parsed.items.forEach((item, at) => {
    const line = parsed.line(at);
    const dst = isObject(item) ? str(item['dst']) : undefined;
    const dev = isObject(item) ? str(item['dev']) : undefined;
    if (!isObject(item) || dst === undefined || dev === undefined) {
      problems.push({ line, message: `${section.name}: neighbour ${at + 1} has no dst or dev` });
      return;
    }
    const state = Array.isArray(item['state'])
      ? item['state'].filter((entry) => typeof entry === 'string')
      : [];
    neighbours.push({ dst, dev, lladdr: str(item['lladdr']), state, line });
  });
  return neighbours;
}

function readSysctls(section: SnapshotSection, problems: SnapshotProblem[]): SnapshotSysctl[] {
  const sysctls: SnapshotSysctl[] = [];
  const lines = section.stdout.split('\n');
  lines.pop();
  lines.forEach((text, at) => {
    const line = section.stdoutLines[at] ?? section.line;
    const match = /^([A-Za-z0-9_./-]+) = (.*)$/.exec(text);
    if (match === null) {
      problems.push({ line, message: `sysctl: expected KEY = VALUE, got '${text.slice(0, 60)}'` });
      return;
    }
    sysctls.push({ key: match[1]!, value: match[2]!, line });
  });
  return sysctls;
}

function textOf(section: SnapshotSection | undefined): SnapshotText | undefined {
  if (section === undefined || section.status !== 0) return undefined;
  return { text: section.stdout, stderr: section.stderr, lines: section.stdoutLines, line: section.line };
}

/** The sections every rebuild needs, read into records; problems from the file come first. */
export function nodeSnapshot(file: SnapshotFile): NodeSnapshot {
  const problems: SnapshotProblem[] = [...file.problems];
  const missing: { name: string; line: number; why: string }[] = [];
  const usable = (name: string): SnapshotSection | undefined => {
    const section = file.sections.get(name);
    if (section === undefined) {
      missing.push({ name, line: 1, why: 'the snapshot has no such section' });
      return undefined;
    }
    if (section.status === 0) return section;
    const firstError = section.stderr.split('\n')[0] ?? '';
    missing.push({
      name,
      line: section.line,
      why:
        section.status === 127
          ? `${section.command.split(' ')[0]} is not installed on the node`
          : `${section.command} exited with status ${section.status ?? 'unknown'}${firstError === '' ? '' : `: ${firstError}`}`,
    });
    return undefined;
  };
  const uname = usable('uname')?.stdout.trim().split(/\s+/) ?? [];
  // ip-link is the fallback for ip-addr (the same interfaces, without addresses): read only when ip-addr is not usable.
  const addr = file.sections.has('ip-addr') || !file.sections.has('ip-link') ? usable('ip-addr') : undefined;
  const linkSection = addr ?? (file.sections.has('ip-link') ? usable('ip-link') : undefined);
  const known = new Set([
    'uname',
    'ip-addr',
    'ip-link',
    'ip-route',
    'ip-rule',
    'ip-neigh',
    'iptables-save',
    'nft',
    'ipset',
    'sysctl',
  ]);
  const route = usable('ip-route');
  const rule = usable('ip-rule');
  const neigh = usable('ip-neigh');
  const sysctl = usable('sysctl');
  return {
    hostname: uname[0],
    kernel: uname[1],
    links: linkSection === undefined ? [] : readLinks(linkSection, problems),
    routes: route === undefined ? [] : readRoutes(route, problems),
    rules: rule === undefined ? [] : readRules(rule, problems),
    neighbours: neigh === undefined ? [] : readNeighbours(neigh, problems),
    sysctls: sysctl === undefined ? [] : readSysctls(sysctl, problems),
    iptables: textOf(usable('iptables-save')),
    nft: textOf(usable('nft')),
    ipset: textOf(usable('ipset')),
    unread: [...file.sections.values()].filter((section) => !known.has(section.name)),
    missing,
    problems,
  };
}
