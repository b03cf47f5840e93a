// `tc` as iproute2 6.1 runs it for root qdiscs: `tc [-s] [-d] qdisc add|change|replace|delete|show` with netem and
// tbf, and the ingress/clsact placeholders, printed as tc prints them; no classes, filters, actions, parents, JSON or
// batch mode.
//
// Written from iproute2's tc/tc.c and tc_qdisc.c (netem's and tbf's options are in tc-netem.ts and
// tc-tbf.ts, tc_util.c's units in tc-units.ts), and from the kernel's tc_modify_qdisc and
// tc_get_qdisc (net/sched/sch_api.c) for which request does what: `add` refuses an existing root of
// the same kind ("Exclusivity flag on"), the same kind is changed in place by `change` and
// `replace`, another kind is grafted anew by all three (Linux 6.18), and a handle naming another
// qdisc needs `replace`. `ingress` and `clsact` share the ingress slot; they are listed and counted
// (zeros) but hold no filters. Userspace parse errors exit 1 with tc's texts; kernel refusals print
// `Error: MSG.` and exit 2. A device without a root qdisc shows `noqueue` once it has been up, as
// Linux's virtual devices do. Handles are allocated from 8001: upward per simulation (the kernel's
// counter is global to the host). `refcnt` is 1 plus the device's transmit queues: one, as
// packetlab models a one-CPU host (a 2-CPU machine prints refcnt 3 for a qdisc on a veth, which
// has a queue per CPU).

import type { NetDevice } from '../link/device.ts';
import { Netem, type NetemConfig } from '../link/qdisc/netem.ts';
import type { Qdisc } from '../link/qdisc/qdisc.ts';
import { Tbf, type TbfConfig } from '../link/qdisc/tbf.ts';
import type { Namespace } from '../netns/namespace.ts';
import type { Simulation } from '../netns/simulation.ts';
import { type CommandResult, fail, ok, unsupported } from './result.ts';
import { describeNetem, parseNetem } from './tc-netem.ts';
import { checkTbf, describeTbf, parseTbf } from './tc-tbf.ts';
import { formatSize, incomplete, matches } from './tc-units.ts';

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

/** get_qdisc_handle: a hexadecimal major, with or without the trailing colon. */
function parseHandle(text: string): number | undefined {
  if (text === 'none') return 0;
  const match = /^([0-9a-fA-F]+)(:?)$/.exec(text);
  if (match === null) return undefined;
  const major = Number.parseInt(match[1]!, 16);
  return major >= 0x10000 ? undefined : major;
}

function parseKind(kind: string, args: string[]): QdiscSpec | CommandResult {
  if (kind === 'netem') {
    const config = parseNetem(args);
    return 'stderr' in config ? config : { kind: 'netem', config };
  }
  if (kind === 'tbf') {
    const config = parseTbf(args);
    return 'stderr' in config ? config : { kind: 'tbf', config };
  }
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
  if (qdisc instanceof Tbf) return describeTbf(qdisc.dump(), options.details);
  if (qdisc instanceof Netem) return describeNetem(qdisc.settings);
  return '';
}
