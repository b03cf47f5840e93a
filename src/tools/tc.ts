// `tc` as iproute2 6.1 runs it for root qdiscs: `tc [-s] [-d] qdisc add|change|replace|delete|show` with netem and
// tbf, and the ingress/clsact placeholders, printed as tc prints them; no classes, filters, actions, parents, JSON or
// batch mode.
//
// Written from iproute2's tc/tc.c, tc_qdisc.c, q_netem.c, q_tbf.c and tc_util.c (6.1), and from
// the kernel's tc_modify_qdisc / tc_get_qdisc (net/sched/sch_api.c) for which request does what:
// `add` refuses an existing root of the same kind ("Exclusivity flag on"), the same kind is changed
// in place by `change` and `replace`, another kind is grafted anew by all three (Linux 6.18), and a
// handle naming another qdisc needs `replace`. `ingress` and `clsact` share the ingress slot; they
// are listed and counted (zeros) but hold no filters. Userspace
// parse errors exit 1 with tc's texts; kernel refusals print `Error: MSG.` and exit 2. A device
// without a root qdisc shows `noqueue` once it has been up, as Linux's virtual devices do.
// Handles are allocated from 8001: upward per simulation (the kernel's counter is global to the
// host). `refcnt` is 1 plus the device's transmit queues: one, as packetlab models a one-CPU host
// (a 2-CPU machine prints refcnt 3 for a qdisc on a veth, which has a queue per CPU).

import type { NetDevice } from '../link/device.ts';
import { NETEM_DEFAULTS, Netem, type NetemConfig, percentToProbability } from '../link/qdisc/netem.ts';
import type { NetemDistribution } from '../link/qdisc/netem-tables.ts';
import { nsToTicks, TICKS_PER_US, ticksToNs } from '../link/qdisc/psched.ts';
import type { Qdisc } from '../link/qdisc/qdisc.ts';
import { Tbf, type TbfConfig } from '../link/qdisc/tbf.ts';
import type { Namespace } from '../netns/namespace.ts';
import type { Simulation } from '../netns/simulation.ts';
import { type CommandResult, fail, ok, unsupported } from './result.ts';
import {
  formatG,
  formatRate,
  formatSize,
  formatTime,
  parsePercent,
  parseRate,
  parseSize,
  parseTime,
} from './tc-units.ts';

const TC_USAGE = `Usage:\ttc [ OPTIONS ] OBJECT { COMMAND | help }
\ttc [-force] -batch filename
where  OBJECT := { qdisc | class | filter | chain |
\t\t    action | monitor | exec }
       OPTIONS := { -V[ersion] | -s[tatistics] | -d[etails] | -r[aw] |
\t\t    -o[neline] | -j[son] | -p[retty] | -c[olor]
\t\t    -b[atch] [filename] | -n[etns] name | -N[umeric] |
\t\t     -nm | -nam[es] | { -cf | -conf } path
\t\t     -br[ief] }
`;

const NETEM_USAGE = `Usage: ... netem [ limit PACKETS ]
                 [ delay TIME [ JITTER [CORRELATION]]]
                 [ distribution {uniform|normal|pareto|paretonormal} ]
                 [ corrupt PERCENT [CORRELATION]]
                 [ duplicate PERCENT [CORRELATION]]
                 [ loss random PERCENT [CORRELATION]]
                 [ loss state P13 [P31 [P32 [P23 P14]]]
                 [ loss gemodel PERCENT [R [1-H [1-K]]]
                 [ ecn ]
                 [ reorder PERCENT [CORRELATION] [ gap DISTANCE ]]
                 [ rate RATE [PACKETOVERHEAD] [CELLSIZE] [CELLOVERHEAD]]
                 [ slot MIN_DELAY [MAX_DELAY] [packets MAX_PACKETS] [bytes MAX_BYTES]]
                 [ slot distribution {uniform|normal|pareto|paretonormal|custom}
                   DELAY JITTER [packets MAX_PACKETS] [bytes MAX_BYTES]]
`;

const TBF_USAGE = `Usage: ... tbf limit BYTES burst BYTES[/BYTES] rate KBPS [ mtu BYTES[/BYTES] ]
\t[ peakrate KBPS ] [ latency TIME ] [ overhead BYTES ] [ linklayer TYPE ]
`;

/** Where Debian's tc looks for distribution tables (get_tc_lib), as its error text names it. */
const TC_LIB = '/usr/lib/x86_64-linux-gnu/tc/';

/** Qdisc kinds iproute2 knows that packetlab does not model: asking for one is "not supported". */
const UNMODELLED_KINDS = new Set([
  'bfifo',
  'cake',
  'cbs',
  'choke',
  'codel',
  'drr',
  'etf',
  'ets',
  'fq',
  'fq_codel',
  'fq_pie',
  'gred',
  'hfsc',
  'hhf',
  'htb',
  'mq',
  'mqprio',
  'multiq',
  'noqueue',
  'pfifo',
  'pfifo_fast',
  'pfifo_head_drop',
  'pie',
  'plug',
  'prio',
  'qfq',
  'red',
  'sfb',
  'sfq',
  'skbprio',
  'taprio',
]);

/** iproute2's matches(): `arg` is a non-empty prefix of `word`. */
function matches(arg: string, word: string): boolean {
  return arg.length > 0 && word.startsWith(arg);
}

interface TcOptions {
  stats: boolean;
  details: boolean;
}

export function tc(ns: Namespace, args: string[]): CommandResult {
  const options: TcOptions = { stats: false, details: false };
  let at = 0;
  for (; at < args.length; at++) {
    const arg = args[at]!;
    if (!arg.startsWith('-')) break;
    if (matches(arg, '-stats') || matches(arg, '-statistics')) options.stats = true;
    else if (matches(arg, '-details')) options.details = true;
    else if (matches(arg, '-Version')) return ok('tc utility, iproute2-6.1.0, libbpf 1.1.2\n');
    else return unsupported('tc', arg);
  }
  const object = args[at];
  if (object === undefined) return fail(TC_USAGE, 0);
  const rest = args.slice(at + 1);
  if (matches(object, 'qdisc')) return qdiscCommand(ns, rest, options);
  for (const other of ['class', 'filter', 'chain', 'actions', 'monitor', 'exec'])
    if (matches(object, other)) return unsupported('tc', other);
  return fail(`Object "${object}" is unknown, try "tc help".\n`, 255);
}

function qdiscCommand(ns: Namespace, args: string[], options: TcOptions): CommandResult {
  const [command, ...rest] = args;
  if (command === undefined) return showQdiscs(ns, [], options);
  if (matches(command, 'add')) return modifyQdisc(ns, 'add', rest);
  if (matches(command, 'change')) return modifyQdisc(ns, 'change', rest);
  if (matches(command, 'replace')) return modifyQdisc(ns, 'replace', rest);
  if (matches(command, 'link')) return unsupported('tc', 'qdisc link');
  if (matches(command, 'delete')) return modifyQdisc(ns, 'delete', rest);
  if (
    matches(command, 'show') ||
    matches(command, 'list') ||
    matches(command, 'lst') ||
    matches(command, 'ls')
  )
    return showQdiscs(ns, rest, options);
  return fail(`Command "${command}" is unknown, try "tc qdisc help".\n`, 255);
}

type Verb = 'add' | 'change' | 'replace' | 'delete';

/** A parsed qdisc: its kind and the kernel-side configuration. */
type QdiscSpec =
  | { readonly kind: 'netem'; readonly config: NetemConfig }
  | { readonly kind: 'tbf'; readonly config: TbfConfig }
  | { readonly kind: 'none' }
  /** A kind neither tc nor packetlab knows: the kernel refuses to create it, and it matches no qdisc. */
  | { readonly kind: 'unknown'; readonly name: string };

/** Where a request points: the root, or the ingress slot that `ingress` and `clsact` share (ffff:fff1). */
type Parent = 'none' | 'root' | IngressKind;

/** The qdiscs of the ingress slot: placeholders here, since packetlab has no tc filters to hang on them. */
type IngressKind = 'ingress' | 'clsact';

/** tc_qdisc_modify: `dev`, `root` / `ingress` / `clsact`, `handle`, then the kind and its options. */
function modifyQdisc(ns: Namespace, verb: Verb, args: string[]): CommandResult {
  let devName = '';
  let parent: Parent = 'none';
  let handle = 0;
  let spec: QdiscSpec = { kind: 'none' };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = (): string | undefined => args[++i];
    if (arg === 'dev') {
      const value = next();
      if (value === undefined) return incomplete();
      if (devName !== '') return fail(`Error: duplicate "dev": "${value}" is the second value.\n`, 255);
      devName = value;
    } else if (arg === 'handle') {
      const value = next();
      if (value === undefined) return incomplete();
      const parsed = parseHandle(value);
      if (parsed === undefined) return fail(`Error: argument "${value}" is wrong: invalid qdisc ID\n`, 255);
      handle = parsed;
    } else if (arg === 'root') {
      if (parent !== 'none') return fail('Error: "root" is duplicate parent ID\n', 255);
      parent = 'root';
    } else if (arg === 'ingress' || arg === 'clsact') {
      if (parent !== 'none') return fail(`Error: "${arg}" is a duplicate parent ID\n`, 255);
      parent = arg;
      const rest = args[i + 1];
      if (rest !== undefined) return fail(`What is "${rest}"?\nUsage: ... ${arg}\n`, 1);
      break;
    } else if (arg === 'parent' || arg === 'ingress_block' || arg === 'egress_block') {
      return unsupported('tc', `qdisc ${arg}`);
    } else if (matches(arg, 'estimator') || matches(arg, 'stab')) {
      return unsupported('tc', `qdisc ${arg}`);
    } else {
      const parsed = parseKind(arg, args.slice(i + 1));
      if ('stderr' in parsed) return parsed;
      spec = parsed;
      break;
    }
  }
  if (devName === '') return fail('RTNETLINK answers: No such device\n', 2);
  const dev = ns.byName(devName);
  if (dev === undefined) return fail(`Cannot find device "${devName}"\n`, 1);
  if (parent === 'ingress' || parent === 'clsact') return graftIngress(dev, verb, parent);
  if (parent === 'none') return unsupported('tc', 'qdisc without root');
  if (verb === 'delete') return deleteRoot(dev, handle, spec);
  return graftRoot(ns, dev, verb, handle, spec);
}

const ingressQdiscs = new WeakMap<NetDevice, IngressKind>();

/** The ingress slot as tc_modify_qdisc / tc_get_qdisc treat it: one qdisc, ingress or clsact, handle ffff:. */
function graftIngress(dev: NetDevice, verb: Verb, kind: IngressKind): CommandResult {
  const current = ingressQdiscs.get(dev);
  if (verb === 'delete') {
    if (current === undefined) return kernelError('Invalid handle');
    if (current !== kind) return kernelError(KIND_MISMATCH);
    ingressQdiscs.delete(dev);
    return ok('');
  }
  if (current !== undefined) {
    if (verb === 'add') return kernelError('Exclusivity flag on, cannot modify');
    if (current !== kind) return kernelError(KIND_MISMATCH);
    return ok('');
  }
  if (verb === 'change') return kernelError('Qdisc not found. To create specify NLM_F_CREATE flag');
  ingressQdiscs.set(dev, kind);
  return ok('');
}

function incomplete(): CommandResult {
  return fail('Command line is not complete. Try option "help"\n', 255);
}

/** get_qdisc_handle: a hexadecimal major, with or without the trailing colon. */
function parseHandle(text: string): number | undefined {
  if (text === 'none') return 0;
  const match = /^([0-9a-fA-F]+)(:?)$/.exec(text);
  if (match === null) return undefined;
  const major = Number.parseInt(match[1]!, 16);
  return major >= 0x10000 ? undefined : major;
}

function parseKind(kind: string, args: string[]): QdiscSpec | CommandResult {
  if (kind === 'netem') return parseNetem(args);
  if (kind === 'tbf') return parseTbf(args);
  if (UNMODELLED_KINDS.has(kind)) return unsupported('tc', `qdisc ${kind}`);
  if (args.length > 0) return fail(`Unknown qdisc "${kind}", hence option "${args[0]}" is unparsable\n`, 1);
  return { kind: 'unknown', name: kind };
}

const KIND_MISMATCH = 'Invalid qdisc name: must match existing qdisc';

/**
 * The kernel's decisions for a root request (tc_modify_qdisc of Linux 6.18 with add / change /
 * replace flags): a handle naming another qdisc needs replace; without a handle, another kind
 * grafts a new qdisc (create_n_graft2) and the same kind changes it in place, except for add.
 */
function graftRoot(
  ns: Namespace,
  dev: NetDevice,
  verb: Verb,
  handle: number,
  spec: QdiscSpec,
): CommandResult {
  if (spec.kind === 'none') return unsupported('tc', `qdisc ${verb} without a kind`);
  if (spec.kind === 'unknown') return kernelError('Specified qdisc kind is unknown');
  if (spec.kind === 'tbf') {
    const refused = checkTbf(spec.config);
    if (refused !== undefined) return refused;
  }
  const current = dev.qdisc;
  if (current !== null && handle !== 0 && current.handle !== handle) {
    if (verb !== 'replace') return kernelError('NLM_F_REPLACE needed to override');
    return graftNew(ns, dev, handle, spec);
  }
  if (current !== null && handle === 0 && current.kind !== spec.kind) return graftNew(ns, dev, 0, spec);
  if (current !== null) {
    if (verb === 'add') return kernelError('Exclusivity flag on, cannot modify');
    if (current.kind !== spec.kind) return kernelError(KIND_MISMATCH);
    changeInPlace(current, spec);
    return ok('');
  }
  if (verb === 'change') return kernelError('Qdisc not found. To create specify NLM_F_CREATE flag');
  return graftNew(ns, dev, handle, spec);
}

function graftNew(ns: Namespace, dev: NetDevice, handle: number, spec: QdiscSpec): CommandResult {
  const major = handle !== 0 ? handle : allocateHandle(ns.sim);
  dev.setQdisc(createQdisc(ns, dev, major, spec));
  return ok('');
}

/** tbf_change's refusals: a peak rate not above the rate, an empty bucket. */
function checkTbf(config: TbfConfig): CommandResult | undefined {
  if (config.peakrate > 0 && config.peakrate <= config.rate)
    return fail('RTNETLINK answers: Invalid argument\n', 2);
  if (config.burst === 0) return fail('RTNETLINK answers: Invalid argument\n', 2);
  return undefined;
}

function changeInPlace(qdisc: Qdisc, spec: QdiscSpec): void {
  if (spec.kind === 'netem' && qdisc instanceof Netem) qdisc.change(spec.config);
  else if (spec.kind === 'tbf' && qdisc instanceof Tbf) qdisc.change(spec.config);
}

const netemForks = new WeakMap<Namespace, number>();

function createQdisc(ns: Namespace, dev: NetDevice, major: number, spec: QdiscSpec): Qdisc {
  switch (spec.kind) {
    case 'netem': {
      const n = (netemForks.get(ns) ?? 0) + 1;
      netemForks.set(ns, n);
      return new Netem(major, spec.config, ns.rng.fork(`netem:${dev.name}:${n}`));
    }
    case 'tbf':
      return new Tbf(major, spec.config);
    case 'none':
    case 'unknown':
      throw new Error('tc: no qdisc to create');
    default: {
      const never: never = spec;
      throw new Error(`tc: unknown spec ${String(never)}`);
    }
  }
}

const handleCounters = new WeakMap<Simulation, number>();

/** qdisc_alloc_handle: the next of 8001:, 8002: ... (per simulation here; global to the host on Linux). */
function allocateHandle(sim: Simulation): number {
  const next = (handleCounters.get(sim) ?? 0x8000) + 1;
  handleCounters.set(sim, next >= 0xffff ? 0x8000 : next);
  return next;
}

/** tc_get_qdisc for RTM_DELQDISC on the root. */
function deleteRoot(dev: NetDevice, handle: number, spec: QdiscSpec): CommandResult {
  const current = dev.qdisc;
  if (current !== null && handle !== 0 && current.handle !== handle) return kernelError('Invalid handle');
  if (current !== null && spec.kind !== 'none' && spec.kind !== current.kind)
    return kernelError(KIND_MISMATCH);
  if (current === null) {
    // The root is then noqueue, whose handle is 0; a kind named must match it first.
    if (spec.kind !== 'none') return kernelError(KIND_MISMATCH);
    return kernelError('Cannot delete qdisc with handle of zero');
  }
  dev.setQdisc(null);
  return ok('');
}

function kernelError(message: string): CommandResult {
  return fail(`Error: ${message}.\n`, 2);
}

/** q_netem.c's NEXT_IS_NUMBER: the next word starts with a digit. */
function isNumber(word: string | undefined): boolean {
  return word !== undefined && /^[0-9]/.test(word);
}

/** get_ticks: a time in microseconds as psched ticks (tc_core_time2tick), what tc 6.1 sends for delay and jitter. */
function timeToTicks(text: string): number | undefined {
  const us = parseTime(text);
  if (us === undefined) return undefined;
  const ticks = Math.trunc(us * TICKS_PER_US);
  return ticks > 0xffff_ffff ? undefined : ticks;
}

function netemError(message: string, usage: boolean): CommandResult {
  return fail(`${message}\n${usage ? NETEM_USAGE : ''}`, 1);
}

/** netem_parse_opt of iproute2 6.1 (the options packetlab models). */
function parseNetem(args: string[]): QdiscSpec | CommandResult {
  const c: { -readonly [K in keyof NetemConfig]: NetemConfig[K] } = { ...NETEM_DEFAULTS };
  let latencyTicks = 0;
  let jitterTicks = 0;
  let distribution: string | null = null;
  let lossGiven = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const nextIsNumber = (): boolean => isNumber(args[i + 1]);
    const value = (): string | undefined => args[++i];
    const percent = (label: string): number | CommandResult => {
      const text = value();
      if (text === undefined) return incomplete();
      const fraction = parsePercent(text);
      if (fraction === undefined) return netemError(`Illegal "${label}"`, false);
      return percentToProbability(fraction * 100);
    };
    if (matches(arg, 'limit')) {
      const text = value();
      if (text === undefined) return incomplete();
      const size = parseSize(text);
      if (size === undefined) return netemError('Illegal "limit"', false);
      c.limit = size;
    } else if (matches(arg, 'latency') || matches(arg, 'delay')) {
      const text = value();
      if (text === undefined) return incomplete();
      const ticks = timeToTicks(text);
      if (ticks === undefined) return netemError('Illegal "latency"', false);
      latencyTicks = ticks;
      if (nextIsNumber()) {
        const jitter = timeToTicks(value()!);
        if (jitter === undefined) return netemError('Illegal "latency"', false);
        jitterTicks = jitter;
        if (nextIsNumber()) {
          const corr = percent('latency');
          if (typeof corr !== 'number') return corr;
          c.delayCorrelation = corr;
        }
      }
    } else if (matches(arg, 'loss') || matches(arg, 'drop')) {
      if (lossGiven) return netemError('Illegal "duplicate loss argument\n"', false);
      lossGiven = true;
      let text = value();
      if (text === undefined) return incomplete();
      if (!/^[0-9]/.test(text)) {
        if (text === 'state' || text === 'gemodel') return unsupported('tc', `netem loss ${text}`);
        if (text !== 'random') return fail(`Unknown loss parameter: ${text}\n`, 1);
        text = value();
        if (text === undefined) return incomplete();
      }
      const fraction = parsePercent(text);
      if (fraction === undefined) return netemError('Illegal "loss percent"', false);
      c.loss = percentToProbability(fraction * 100);
      if (nextIsNumber()) {
        const corr = parsePercent(value()!);
        if (corr === undefined) return netemError('Illegal "loss correllation"', false);
        c.lossCorrelation = percentToProbability(corr * 100);
      }
    } else if (matches(arg, 'ecn')) {
      return unsupported('tc', 'netem ecn');
    } else if (matches(arg, 'reorder')) {
      const p = percent('reorder');
      if (typeof p !== 'number') return p;
      c.reorder = p;
      if (nextIsNumber()) {
        const corr = percent('reorder');
        if (typeof corr !== 'number') return corr;
        c.reorderCorrelation = corr;
      }
    } else if (matches(arg, 'corrupt')) {
      const p = percent('corrupt');
      if (typeof p !== 'number') return p;
      c.corrupt = p;
      if (nextIsNumber()) {
        const corr = percent('corrupt');
        if (typeof corr !== 'number') return corr;
        c.corruptCorrelation = corr;
      }
    } else if (matches(arg, 'gap')) {
      const text = value();
      if (text === undefined) return incomplete();
      const gap = parseU32(text);
      if (gap === undefined) return netemError('Illegal "gap"', false);
      c.gap = gap;
    } else if (matches(arg, 'duplicate')) {
      const p = percent('duplicate');
      if (typeof p !== 'number') return p;
      c.duplicate = p;
      if (nextIsNumber()) {
        const corr = percent('duplicate');
        if (typeof corr !== 'number') return corr;
        c.duplicateCorrelation = corr;
      }
    } else if (matches(arg, 'distribution')) {
      const text = value();
      if (text === undefined) return incomplete();
      if (text !== 'normal' && text !== 'pareto' && text !== 'paretonormal') {
        if (text === 'experimental') return unsupported('tc', 'netem distribution experimental');
        return fail(
          `No distribution data for ${text} (${TC_LIB}/${text}.dist: No such file or directory)\n`,
          1,
        );
      }
      distribution = text;
    } else if (matches(arg, 'rate')) {
      const text = value();
      if (text === undefined) return incomplete();
      if (text.includes('%')) return unsupported('tc', 'netem rate PERCENT');
      const rate = parseRate(text);
      if (rate === undefined) return netemError('Illegal "rate"', false);
      c.rate = rate;
      const signed = (word: string | undefined): boolean => word !== undefined && /^[0-9-]/.test(word);
      if (signed(args[i + 1])) {
        const v = parseS32(value()!);
        if (v === undefined) return netemError('Illegal "rate"', false);
        c.packetOverhead = v;
      }
      if (nextIsNumber()) {
        const v = parseU32(value()!);
        if (v === undefined) return netemError('Illegal "rate"', false);
        c.cellSize = v;
      }
      if (signed(args[i + 1])) {
        const v = parseS32(value()!);
        if (v === undefined) return netemError('Illegal "rate"', false);
        c.cellOverhead = v;
      }
    } else if (matches(arg, 'slot')) {
      return unsupported('tc', 'netem slot');
    } else if (arg === 'help') {
      return fail(NETEM_USAGE, 1);
    } else {
      return fail(`What is "${arg}"?\n${NETEM_USAGE}`, 1);
    }
  }
  if (c.reorder !== 0) {
    if (latencyTicks === 0) return netemError('reordering not possible without specifying some delay', true);
    if (c.gap === 0) c.gap = 1;
  } else if (c.gap > 0) {
    return netemError('gap specified without reorder probability', true);
  }
  if (distribution !== null && (latencyTicks === 0 || jitterTicks === 0))
    return netemError('distribution specified but no latency and jitter values', true);
  c.latencyNs = ticksToNs(latencyTicks);
  c.jitterNs = ticksToNs(jitterTicks);
  c.distribution = distribution as NetemDistribution | null;
  return { kind: 'netem', config: c };
}

function parseU32(text: string): number | undefined {
  if (!/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(text)) return undefined;
  const v = Number(text);
  return v > 0xffff_ffff ? undefined : v;
}

function parseS32(text: string): number | undefined {
  if (!/^-?[0-9]+$/.test(text)) return undefined;
  const v = Number(text);
  return v < -0x8000_0000 || v > 0x7fff_ffff ? undefined : v;
}

function tbfError(text: string): CommandResult {
  return fail(text, 1);
}

/** tbf_parse_opt of iproute2 6.1. */
function parseTbf(args: string[]): QdiscSpec | CommandResult {
  let limit = 0;
  let latency = 0;
  let buffer = 0;
  let mtu = 0;
  let rate = 0;
  let peakrate = 0;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = (): string | undefined => args[++i];
    const illegal = (name: string, text: string): CommandResult =>
      tbfError(`tbf: illegal value for "${name}": "${text}"\n`);
    if (matches(arg, 'limit')) {
      const text = value();
      if (text === undefined) return incomplete();
      if (limit !== 0) return tbfError('tbf: duplicate "limit" specification\n');
      if (latency !== 0) return tbfError('tbf: specifying both "latency" and "limit" is not allowed\n');
      const size = parseSize(text);
      if (size === undefined) return illegal('limit', text);
      limit = size;
    } else if (matches(arg, 'latency')) {
      const text = value();
      if (text === undefined) return incomplete();
      if (latency !== 0) return tbfError('tbf: duplicate "latency" specification\n');
      if (limit !== 0) return tbfError('tbf: specifying both "limit" and "/latency" is not allowed\n');
      const time = parseTime(text);
      if (time === undefined) return illegal('latency', text);
      latency = time;
    } else if (matches(arg, 'burst') || arg === 'buffer' || arg === 'maxburst') {
      const text = value();
      if (text === undefined) return incomplete();
      if (buffer !== 0) return tbfError('tbf: duplicate "buffer/burst/maxburst" specification\n');
      if (text.includes('/')) return unsupported('tc', 'tbf burst BYTES/CELL');
      const size = parseSize(text);
      if (size === undefined) return illegal(arg, text);
      buffer = size;
    } else if (arg === 'mtu' || arg === 'minburst') {
      const text = value();
      if (text === undefined) return incomplete();
      if (mtu !== 0) return tbfError('tbf: duplicate "mtu/minburst" specification\n');
      if (text.includes('/')) return unsupported('tc', 'tbf mtu BYTES/CELL');
      const size = parseSize(text);
      if (size === undefined) return illegal(arg, text);
      mtu = size;
    } else if (arg === 'rate') {
      const text = value();
      if (text === undefined) return incomplete();
      if (rate !== 0) return tbfError('tbf: duplicate "rate" specification\n');
      const parsed = parseRate(text);
      if (parsed === undefined) return illegal('rate', text);
      rate = parsed;
    } else if (matches(arg, 'peakrate')) {
      const text = value();
      if (text === undefined) return incomplete();
      if (peakrate !== 0) return tbfError('tbf: duplicate "peakrate" specification\n');
      const parsed = parseRate(text);
      if (parsed === undefined) return illegal('peakrate', text);
      peakrate = parsed;
    } else if (arg === 'mpu' || matches(arg, 'overhead') || matches(arg, 'linklayer')) {
      return unsupported('tc', `tbf ${arg}`);
    } else if (arg === 'help') {
      return tbfError(TBF_USAGE);
    } else {
      return tbfError(`tbf: unknown parameter "${arg}"\n${TBF_USAGE}`);
    }
  }
  let errors = '';
  if (rate === 0) errors += 'tbf: the "rate" parameter is mandatory.\n';
  if (buffer === 0) errors += 'tbf: the "burst" parameter is mandatory.\n';
  if (peakrate !== 0 && mtu === 0)
    errors += 'tbf: when "peakrate" is specified, "mtu" must also be specified.\n';
  if (limit === 0 && latency === 0) errors += 'tbf: either "limit" or "latency" is required.\n';
  if (errors !== '') return tbfError(errors + TBF_USAGE);
  if (limit === 0) {
    let lim = (rate * latency) / 1e6 + buffer;
    if (peakrate !== 0) lim = Math.min(lim, (peakrate * latency) / 1e6 + mtu);
    limit = Math.trunc(lim);
  }
  return { kind: 'tbf', config: { rate, burst: buffer, limit, peakrate, mtu: peakrate !== 0 ? mtu : 0 } };
}

/** `tc qdisc show [dev DEV]`: each device's root qdisc in ifindex order, noqueue for a device that has been up. */
function showQdiscs(ns: Namespace, args: string[], options: TcOptions): CommandResult {
  let devName: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === 'dev') {
      devName = args[++i];
      if (devName === undefined) return incomplete();
    } else if (arg === 'root') {
      // Only root qdiscs exist here.
    } else return unsupported('tc', `qdisc show ${arg}`);
  }
  let devices: NetDevice[];
  if (devName !== undefined) {
    const dev = ns.byName(devName);
    if (dev === undefined) return fail(`Cannot find device "${devName}"\n`, 1);
    devices = [dev];
  } else devices = [...ns.all()].sort((a, b) => a.ifindex - b.ifindex);
  let out = '';
  for (const dev of devices) {
    const qdisc = dev.qdisc;
    const where = devName === undefined ? `dev ${dev.name} ` : '';
    if (qdisc !== null || dev.adminUp) {
      if (qdisc === null) out += `qdisc noqueue 0: ${where}root refcnt 2 \n`;
      else
        out += `qdisc ${qdisc.kind} ${qdisc.handle.toString(16)}: ${where}root refcnt 2 ${describe(qdisc, options)}\n`;
      if (options.stats) out += statsLines(qdisc);
    }
    const ingress = ingressQdiscs.get(dev);
    if (ingress !== undefined) {
      // q_ingress.c prints a row of dashes; q_clsact.c prints nothing.
      out += `qdisc ${ingress} ffff: ${where}parent ffff:fff1 ${ingress === 'ingress' ? '---------------- ' : ''}\n`;
      if (options.stats) out += statsLines(null);
    }
  }
  return ok(out);
}

/** print_tcstats_attr: the basic and queue counters, two lines. */
function statsLines(qdisc: Qdisc | null): string {
  const s = qdisc?.stats;
  const bytes = s?.bytes ?? 0;
  const packets = s?.packets ?? 0;
  const requeues = s?.requeues ?? 0;
  return (
    ` Sent ${bytes} bytes ${packets} pkt (dropped ${s?.drops ?? 0}, overlimits ${s?.overlimits ?? 0} requeues ${requeues}) \n` +
    ` backlog ${formatSize(s?.backlog ?? 0)} ${s?.qlen ?? 0}p requeues ${requeues}\n`
  );
}

function describe(qdisc: Qdisc, options: TcOptions): string {
  if (qdisc instanceof Tbf) return describeTbf(qdisc, options);
  if (qdisc instanceof Netem) return describeNetem(qdisc.settings);
  return '';
}

/** tc_core_tick2time: microseconds in `ticks`, truncated. */
function tickToTime(ticks: number): number {
  return Math.trunc(ticks / TICKS_PER_US);
}

/** tc_calc_xmitsize: the bytes `ticks` of transmission carry at `rate`, truncated to unsigned. */
function xmitSize(rate: number, ticks: number): number {
  return Math.trunc((rate * tickToTime(ticks)) / 1e6);
}

/** tbf_print_opt: rate, burst (back from the bucket's ticks), peak rate and minburst, then latency or limit. */
function describeTbf(tbf: Tbf, options: TcOptions): string {
  const d = tbf.dump();
  let text = `rate ${formatRate(d.rate)} `;
  const burst = formatSize(xmitSize(d.rate, d.bufferTicks));
  text += options.details ? `burst ${burst}/1 mpu 0b ` : `burst ${burst} `;
  if (d.peakrate !== 0) {
    text += `peakrate ${formatRate(d.peakrate)} `;
    if (d.mtuTicks !== 0) {
      const mtu = formatSize(xmitSize(d.peakrate, d.mtuTicks));
      text += options.details ? `mtu ${mtu}/1 mpu 0b ` : `minburst ${mtu} `;
    }
  }
  let latency = 1e6 * (d.limit / d.rate) - tickToTime(d.bufferTicks);
  if (d.peakrate !== 0) {
    const lat2 = 1e6 * (d.limit / d.peakrate) - tickToTime(d.mtuTicks);
    if (lat2 > latency) latency = lat2;
  }
  if (latency >= 0) text += `lat ${formatTime(Math.trunc(latency))} `;
  else text += `limit ${formatSize(d.limit)} `;
  if (options.details) text += 'linklayer ethernet ';
  return text;
}

/** __print_percent: `%g%%` of the u32 probability as a percentage. */
function percentText(probability: number): string {
  return `${formatG((100 * probability) / 0xffff_ffff, 6)}%`;
}

/** netem_print_opt of iproute2 6.1 over what netem_dump reports (delay and jitter in psched ticks). */
function describeNetem(c: NetemConfig): string {
  let text = `limit ${c.limit}`;
  const latencyTicks = Math.min(nsToTicks(c.latencyNs), 0xffff_ffff);
  const jitterTicks = Math.min(nsToTicks(c.jitterNs), 0xffff_ffff);
  if (latencyTicks !== 0) {
    text += ` delay ${formatTime(tickToTime(latencyTicks))}`;
    if (jitterTicks !== 0) {
      text += `  ${formatTime(tickToTime(jitterTicks))}`;
      if (c.delayCorrelation !== 0) text += ` ${percentText(c.delayCorrelation)}`;
    }
  }
  if (c.loss !== 0) {
    text += ` loss ${percentText(c.loss)}`;
    if (c.lossCorrelation !== 0) text += ` ${percentText(c.lossCorrelation)}`;
  }
  if (c.duplicate !== 0) {
    text += ` duplicate ${percentText(c.duplicate)}`;
    if (c.duplicateCorrelation !== 0) text += ` ${percentText(c.duplicateCorrelation)}`;
  }
  if (c.reorder !== 0) {
    text += ` reorder ${percentText(c.reorder)}`;
    if (c.reorderCorrelation !== 0) text += ` ${percentText(c.reorderCorrelation)}`;
  }
  if (c.corrupt !== 0) {
    text += ` corrupt ${percentText(c.corrupt)}`;
    if (c.corruptCorrelation !== 0) text += ` ${percentText(c.corruptCorrelation)}`;
  }
  if (c.rate !== 0) {
    text += ` rate ${formatRate(c.rate)}`;
    if (c.packetOverhead !== 0) text += ` packetoverhead ${c.packetOverhead}`;
    if (c.cellSize !== 0) text += ` cellsize ${c.cellSize}`;
    if (c.cellOverhead !== 0) text += ` celloverhead ${c.cellOverhead}`;
  }
  if (c.gap !== 0) text += ` gap ${c.gap}`;
  return text;
}
