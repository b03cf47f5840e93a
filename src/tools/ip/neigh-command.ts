// `ip neigh` (iproute2 6.1 ip/ipneigh.c): show/flush with dev, nud and prefix filters, and add/replace/change/del;
// IPv4 only, no proxy entries, no `-s` usage counters, no `get`. Entries list in the table's insertion order, where
// Linux lists them in the order of its randomly seeded hash.
//
// Supported `nud` states for add/replace: permanent (the default), noarp, reachable, stale. The
// others are valid to iproute2 but have no packetlab equivalent and answer EOPNOTSUPP.

import type { Neighbour, NudState } from '../../net/neighbour.ts';
import type { Namespace } from '../../netns/namespace.ts';
import { formatIpv4, formatMac, type Ipv4Addr, parseIpv4, parseMac, prefixMask } from '../../wire/address.ts';
import { type CommandResult, fail, ok } from '../result.ts';

/** nud_state_a2n's names (`all` selects every state). */
const NUD_NAMES: Record<string, NudState | 'all' | 'none'> = {
  permanent: 'PERMANENT',
  reachable: 'REACHABLE',
  noarp: 'NOARP',
  none: 'none',
  stale: 'STALE',
  incomplete: 'INCOMPLETE',
  delay: 'DELAY',
  probe: 'PROBE',
  failed: 'FAILED',
  all: 'all',
};

/** NUD_VALID: the states in which the kernel reports a link-layer address. */
const VALID_STATES: ReadonlySet<NudState> = new Set([
  'PERMANENT',
  'NOARP',
  'REACHABLE',
  'PROBE',
  'STALE',
  'DELAY',
]);

const NOT_COMPLETE = 'Command line is not complete. Try option "help"\n';

function garbage(word: string): CommandResult {
  return fail(`Error: either "to" is duplicate, or "${word}" is a garbage.\n`, 255);
}

function badNud(word: string): CommandResult {
  return fail(`Error: argument "${word}" is wrong: nud state is bad\n`, 255);
}

function matchesWord(word: string, keyword: string): boolean {
  return word.length > 0 && keyword.startsWith(word);
}

export function neighCommand(ns: Namespace, args: string[]): CommandResult {
  const [verb, ...rest] = args;
  if (verb === undefined) return neighShowOrFlush(ns, [], 'show');
  if (verb === 'add') return neighModify(ns, rest, 'add');
  if (verb === 'replace') return neighModify(ns, rest, 'replace');
  if (verb === 'change' || verb === 'chg') return neighModify(ns, rest, 'change');
  if (matchesWord(verb, 'delete')) return neighModify(ns, rest, 'del');
  if (matchesWord(verb, 'show') || matchesWord(verb, 'list') || verb === 'lst')
    return neighShowOrFlush(ns, rest, 'show');
  if (matchesWord(verb, 'flush')) return neighShowOrFlush(ns, rest, 'flush');
  return fail(`Command "${verb}" is unknown, try "ip neigh help".\n`, 255);
}

/** get_prefix: `A.B.C.D[/LEN]`. */
function parsePrefix(text: string): { addr: Ipv4Addr; len: number } | undefined {
  const [addrText, lenText] = text.split('/');
  const addr = parseIpv4(addrText ?? '');
  const len = lenText === undefined ? 32 : Number(lenText);
  if (addr === undefined || !/^\d+$/.test(lenText ?? '32') || len > 32) return undefined;
  return { addr, len };
}

/** ip neigh show|flush: print or delete the entries the filter selects. */
function neighShowOrFlush(ns: Namespace, args: string[], mode: 'show' | 'flush'): CommandResult {
  let ifindex: number | undefined;
  let states: Set<NudState> | undefined;
  let prefix: { addr: Ipv4Addr; len: number } | undefined;
  for (let i = 0; i < args.length; i++) {
    let word = args[i]!;
    if (word === 'dev' || word === 'nud') {
      const value = args[++i];
      if (value === undefined) return fail(NOT_COMPLETE, 255);
      if (word === 'dev') {
        const dev = ns.byName(value);
        if (dev === undefined) return fail(`Cannot find device "${value}"\n`, 1);
        ifindex = dev.ifindex;
      } else {
        const state = NUD_NAMES[value];
        if (state === undefined) return badNud(value);
        states ??= new Set();
        if (state === 'all')
          for (const name of Object.values(NUD_NAMES)) {
            if (name !== 'all' && name !== 'none') states.add(name);
          }
        else if (state !== 'none') states.add(state);
      }
      continue;
    }
    if (word === 'all') continue;
    if (word === 'to') {
      const value = args[++i];
      if (value === undefined) return fail(NOT_COMPLETE, 255);
      word = value;
    }
    const parsed = parsePrefix(word);
    if (parsed === undefined) return fail(`Error: any valid prefix is expected rather than "${word}".\n`, 1);
    prefix = parsed;
  }
  if (mode === 'flush' && args.length === 0) return fail('Flush requires arguments.\n', 1);
  // The default filters: show hides NOARP entries, flush spares PERMANENT and NOARP ones.
  const selected = (neigh: Neighbour): boolean => {
    if (ifindex !== undefined && neigh.ifindex !== ifindex) return false;
    if (prefix !== undefined && ((neigh.addr ^ prefix.addr) & prefixMask(prefix.len)) !== 0) return false;
    if (states !== undefined) return states.has(neigh.state);
    if (neigh.state === 'NOARP') return false;
    return mode === 'show' || neigh.state !== 'PERMANENT';
  };
  const entries = ns.ipv4.neighbours.list().filter(selected);
  if (mode === 'flush') {
    for (const neigh of entries) ns.ipv4.neighbours.remove(neigh.ifindex, neigh.addr);
    return ok('');
  }
  return ok(entries.map((neigh) => neighLine(ns, neigh, ifindex === undefined)).join(''));
}

/** `10.244.1.5 dev cni0 lladdr 0a:58:0a:f4:01:05 REACHABLE ` (ipneigh.c: print_neigh). */
function neighLine(ns: Namespace, neigh: Neighbour, withDev: boolean): string {
  const dev = ns.byIndex(neigh.ifindex);
  return (
    `${formatIpv4(neigh.addr)} ` +
    (withDev ? `dev ${dev?.name ?? `if${neigh.ifindex}`} ` : '') +
    (VALID_STATES.has(neigh.state) && neigh.lladdr !== undefined
      ? `lladdr ${formatMac(neigh.lladdr)} `
      : '') +
    `${neigh.state} \n`
  );
}

/** ipneigh_modify: `ip neigh add|replace|change|del ADDR [lladdr MAC] dev DEV [nud STATE]`. */
function neighModify(
  ns: Namespace,
  args: string[],
  verb: 'add' | 'replace' | 'change' | 'del',
): CommandResult {
  let lladdrText: string | undefined;
  let devName: string | undefined;
  let dst: Ipv4Addr | undefined;
  let nud: NudState | 'none' = 'PERMANENT';
  for (let i = 0; i < args.length; i++) {
    let word = args[i]!;
    if (word === 'lladdr' || word === 'nud' || word === 'dev') {
      const value = args[++i];
      if (value === undefined) return fail(NOT_COMPLETE, 255);
      if (word === 'lladdr') lladdrText = value;
      else if (word === 'dev') devName = value;
      else {
        const state = NUD_NAMES[value];
        if (state === undefined || state === 'all') return badNud(value);
        nud = state;
      }
      continue;
    }
    if (word === 'to') {
      const value = args[++i];
      if (value === undefined) return fail(NOT_COMPLETE, 255);
      word = value;
    }
    if (dst !== undefined) return garbage(word);
    dst = parseIpv4(word);
    if (dst === undefined) return fail(`Error: any valid address is expected rather than "${word}".\n`, 1);
  }
  if (devName === undefined || dst === undefined)
    return fail('Device and destination are required arguments.\n', 255);
  let lladdr: number | undefined;
  if (lladdrText !== undefined && lladdrText !== 'null') {
    lladdr = parseMac(lladdrText);
    if (lladdr === undefined) return fail(`"${lladdrText}" is invalid lladdr.\n`, 1);
  }
  const dev = ns.byName(devName);
  if (dev === undefined) return fail(`Cannot find device "${devName}"\n`, 1);
  const table = ns.ipv4.neighbours;
  const existing = table.get(dev.ifindex, dst);
  if (verb === 'del') {
    if (existing === undefined) return fail('RTNETLINK answers: No such file or directory\n', 2);
    table.remove(dev.ifindex, dst);
    return ok('');
  }
  if (verb === 'add' && existing !== undefined) return fail('RTNETLINK answers: File exists\n', 2);
  if (verb === 'change' && existing === undefined)
    return fail('RTNETLINK answers: No such file or directory\n', 2);
  if (lladdr === undefined) return fail('Error: No link layer address given.\n', 2);
  switch (nud) {
    case 'PERMANENT':
    case 'NOARP': {
      const neigh = table.addPermanent(dev.ifindex, dst, lladdr);
      neigh.state = nud;
      return ok('');
    }
    case 'REACHABLE':
    case 'STALE':
      // neigh_update with NEIGH_UPDATE_F_ADMIN: a hand-made entry replaces a permanent one outright.
      if (existing?.permanent) table.remove(dev.ifindex, dst);
      table.update(dev.ifindex, dst, lladdr, { solicited: nud === 'REACHABLE', create: true });
      return ok('');
    case 'INCOMPLETE':
    case 'DELAY':
    case 'PROBE':
    case 'FAILED':
    case 'none':
      return fail('RTNETLINK answers: Operation not supported\n', 2);
  }
}
