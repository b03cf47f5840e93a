// `nft list` output as nft 1.0.6 prints it (rule.c, statement.c, expression.c, netlink_delinearize.c): tables,
// chains with named priorities, sets with nft's element line breaks, and rules with its dependency elision
// (`meta l4proto tcp tcp dport 80` prints `tcp dport 80`) and bitwise normalisation (`mark and 0xff00 xor 0x1`).
// Rules from iptables-nft print as nft shows them: native expressions as nft's own, xt matches and targets in
// their libxtables translation (`meta mark set mark or 0x4000`, `reject with icmp type host-prohibited`,
// `xt match recent`, an empty string for `-m comment`). Not modelled: IPv6, objects, flowtables, `-s`, `-n`.

import type {
  CmpOp,
  Constant,
  Expr,
  Family,
  HookName,
  NamedSet,
  NatFlags,
  NatMap,
  Rule,
  Ruleset,
  SetElement,
  SetRef,
  Source,
  Table,
  Value,
  Verdict,
  XtMatchOptions,
} from '../ir.ts';
import { formatDevices, formatFamilyPriority } from './families.ts';
import { hiddenFamilyDependency } from './family-rule.ts';
import { flowtableText } from './flowtables.ts';
import { namedInterfaces } from './ifindex.ts';
import { objectText } from './objects.ts';
import { elementCounterText } from './set-elements.ts';
import { formatCtCount } from './stmt-ct-count.ts';
import { formatLimit, formatQuota } from './stmt-limit.ts';
import { formatLog } from './stmt-log.ts';
import { formatReject } from './stmt-reject.ts';
import { dynsetOptionsText } from './stmt-set.ts';
import { formatTproxy } from './stmt-tproxy.ts';
import {
  flagNames,
  formatConstant,
  fromDataType,
  hex8,
  isBitmask,
  type NftType,
  selectorType,
  symbolName,
  typeBits,
} from './types.ts';

export interface PrintOptions {
  /** `nft -a`: append `# handle N`. */
  readonly handles?: boolean;
  /** Counter values to print instead of the live ones (`nft monitor trace` prints its cache's). */
  readonly counters?: (rule: Rule) => { readonly packets: number; readonly bytes: number } | undefined;
  /** Virtual ns now: elements with a timeout print the time they have left, expired ones not at all. */
  readonly now?: number;
  /** `nft -s`: counters and quotas without their values. */
  readonly stateless?: boolean;
  /** if_indextoname: interface indexes list as the device's current name. */
  readonly ifname?: (ifindex: number) => string | undefined;
}

// ---- priorities -------------------------------------------------------------------------------------------

const STANDARD_PRIORITIES: readonly { name: string; value: number; hook: HookName | undefined }[] = [
  { name: 'raw', value: -300, hook: undefined },
  { name: 'mangle', value: -150, hook: undefined },
  { name: 'dstnat', value: -100, hook: 'prerouting' },
  { name: 'filter', value: 0, hook: undefined },
  { name: 'security', value: 50, hook: undefined },
  { name: 'srcnat', value: 100, hook: 'postrouting' },
];

/** rule.c: prio2str — a standard name within 10 of the value when valid for the hook, else the number. */
export function formatPriority(hook: HookName, priority: number): string {
  for (const standard of STANDARD_PRIORITIES) {
    const offset = priority - standard.value;
    if (Math.abs(offset) > 10) continue;
    if (standard.hook !== undefined && standard.hook !== hook) continue;
    if (offset === 0) return standard.name;
    return `${standard.name} ${offset > 0 ? '+' : '-'} ${Math.abs(offset)}`;
  }
  return String(priority);
}

// ---- values -----------------------------------------------------------------------------------------------

const TRANSPORT_NAMES: Record<number, string> = { 6: 'tcp', 17: 'udp', 1: 'icmp' };

interface RuleContext {
  readonly family: Family;
  readonly iptables: boolean;
  /** The transport protocol a preceding `meta l4proto X` established (th prints as tcp/udp then). */
  transport: number | undefined;
  /** `nft -s`: counters print without their values. */
  readonly stateless?: boolean | undefined;
  readonly ifname?: ((ifindex: number) => string | undefined) | undefined;
}

function selectorText(value: Value, ctx: RuleContext | undefined): string {
  const selector = value.selector;
  switch (selector.kind) {
    case 'payload': {
      if (selector.field.startsWith('th ') && ctx?.transport !== undefined) {
        const name = TRANSPORT_NAMES[ctx.transport];
        if (name === 'tcp' || name === 'udp') return `${name} ${selector.field.slice(3)}`;
      }
      return selector.field;
    }
    case 'meta':
      switch (selector.key) {
        case 'iifname':
        case 'oifname':
        case 'iif':
        case 'oif':
        case 'iifgroup':
        case 'oifgroup':
          return selector.key;
        default:
          return `meta ${selector.key}`;
      }
    case 'ct': {
      if (selector.dir === undefined) return `ct ${selector.key}`;
      if (selector.key === 'saddr' || selector.key === 'daddr')
        return `ct ${selector.dir} ip ${selector.key}`;
      return `ct ${selector.dir} ${selector.key}`;
    }
    case 'fib':
      return `fib ${orderFibFlags(selector.flags).join(' . ')} ${selector.result}`;
    case 'numgen':
      return `numgen ${selector.mode} mod ${selector.mod}${selector.offset !== 0 ? ` offset ${selector.offset}` : ''}`;
    case 'hash':
      return hashText(selector, ctx);
    case 'rt':
      return selector.key === 'nexthop' ? 'rt ip nexthop' : `rt ${selector.key}`;
    case 'socket':
      return `socket ${selector.key}`;
    case 'family-field':
      return selector.field;
  }
}

/** expression.c: hash_expr_print. */
function hashText(
  selector: Extract<Value['selector'], { kind: 'hash' }>,
  ctx: RuleContext | undefined,
): string {
  const inputs = selector.inputs.map((input) => valueText(input, ctx)).join(' . ');
  let text =
    selector.mode === 'jhash' ? `jhash ${inputs} mod ${selector.mod}` : `symhash mod ${selector.mod}`;
  if (selector.seed !== undefined) text += ` seed 0x${selector.seed.toString(16)}`;
  if (selector.offset !== 0) text += ` offset ${selector.offset}`;
  return text;
}

function orderFibFlags(flags: readonly string[]): string[] {
  return ['saddr', 'daddr', 'mark', 'iif', 'oif'].filter((flag) => flags.includes(flag));
}

function allOnes(type: NftType): number {
  const bits = typeBits(type);
  return bits >= 32 ? 0xffff_ffff : 2 ** bits - 1;
}

/**
 * A value with its nft_bitwise transform, split as netlink_parse_bitwise_bool does: the bits the xor sets where
 * the mask clears them print as `| o`, the rest as `& m` and `^ x`.
 */
function valueText(value: Value, ctx: RuleContext | undefined): string {
  const type = selectorType(value.selector);
  const all = allOnes(type);
  let text = selectorText(value, ctx);
  const mask = (value.mask ?? all) >>> 0;
  const xor = (value.xor ?? 0) >>> 0;
  const or = (xor & ~mask & all) >>> 0;
  const x = (xor & mask) >>> 0;
  const m = (mask | or) >>> 0;
  const format = (n: number): string => (isBitmask(type) ? bitmaskOperand(type, n) : numberText(type, n));
  if ((m & all) >>> 0 !== all) text += ` & ${format(m)}`;
  if (x !== 0) text += ` ^ ${format(x)}`;
  if (or !== 0) text += ` | ${format(or)}`;
  return text;
}

function numberText(type: NftType, value: number): string {
  return formatConstant(type, { kind: 'number', value });
}

/** A flag combination in a binary operation: `syn` or `(syn | ack)`. */
function bitmaskOperand(type: NftType, value: number): string {
  const names = flagNames(type, value);
  return names.length === 1 ? names[0]! : `(${names.join(' | ')})`;
}

function keyText(types: readonly NftType[], constant: Constant, inSet: boolean): string {
  if (constant.kind === 'concat' && types.length > 1)
    return constant.parts
      .map((part, i) => formatConstant(types[i] ?? 'integer', part, { inSet }))
      .join(' . ');
  return formatConstant(types[0] ?? 'integer', constant, { inSet });
}

function verdictText(verdict: Verdict, iptables: boolean): string {
  switch (verdict.kind) {
    case 'jump':
    case 'goto':
      return `${verdict.kind} ${verdict.chain}`;
    case 'queue':
      return iptables ? 'queue num 0' : 'queue to 0';
    default:
      return verdict.kind;
  }
}

function dataText(data: SetElement['data'], dataType: NftType): string {
  if (data === undefined) return '';
  if ('kind' in data && isVerdict(data)) return verdictText(data, false);
  return formatConstant(dataType, data as Constant);
}

function isVerdict(data: Verdict | Constant): data is Verdict {
  return ['accept', 'drop', 'continue', 'return', 'jump', 'goto', 'queue'].includes(data.kind);
}

/** Compares two keys as nft sorts set elements (mpz values; interface names as little-endian integers). */
function compareKeys(a: Constant, b: Constant): number {
  const rank = (c: Constant): number => {
    switch (c.kind) {
      case 'number':
        return c.value;
      case 'prefix':
        return c.addr;
      case 'range':
        return c.low;
      default:
        return 0;
    }
  };
  if (a.kind === 'string' && b.kind === 'string') {
    for (let i = 15; i >= 0; i--) {
      const ca = a.value.charCodeAt(i) || 0;
      const cb = b.value.charCodeAt(i) || 0;
      if (ca !== cb) return ca - cb;
    }
    return 0;
  }
  return rank(a) - rank(b);
}

/** The bytes of one part of a concatenation as nft exports it (its own length, network byte order). */
function concatPartBytes(type: NftType, part: Constant): number[] {
  const value =
    part.kind === 'number'
      ? part.value
      : part.kind === 'prefix'
        ? part.addr
        : part.kind === 'range'
          ? part.low
          : 0;
  const length =
    type === 'ipv4_addr' || type === 'mark' ? 4 : type === 'inet_service' ? 2 : type === 'inet_proto' ? 1 : 4;
  const bytes: number[] = [];
  for (let i = length - 1; i >= 0; i--) bytes.push((value >>> (8 * i)) & 0xff);
  return bytes;
}

/**
 * Concatenations sort as mergesort.c:concat_expr_msort_value reads them: the parts' bytes one after the other, taken
 * as one host-endian (little-endian) number, so the last byte weighs most.
 */
function compareConcat(types: readonly NftType[], a: Constant, b: Constant): number {
  if (a.kind !== 'concat' || b.kind !== 'concat') return 0;
  const bytesOf = (key: Extract<Constant, { kind: 'concat' }>): number[] =>
    key.parts.flatMap((part, i) => concatPartBytes(types[i] ?? 'integer', part));
  const x = bytesOf(a);
  const y = bytesOf(b);
  for (let i = Math.max(x.length, y.length) - 1; i >= 0; i--) {
    const diff = (x[i] ?? 0) - (y[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** Elements in the order nft lists them: sorted by key (list_expr_sort), concatenations by their bytes. */
export function sortedElements(elements: readonly SetElement[], types: readonly NftType[]): SetElement[] {
  if (types.length > 1) return [...elements].sort((a, b) => compareConcat(types, a.key, b.key));
  return [...elements].sort((a, b) => compareKeys(a.key, b.key));
}

/** nft's time_print: days, hours, minutes, seconds and milliseconds, the zero ones left out (`3h`, `9m59s988ms`). */
export function formatDuration(ms: number): string {
  const units: readonly [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
    ['ms', 1],
  ];
  let rest = Math.max(0, Math.floor(ms));
  let text = '';
  for (const [unit, size] of units) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) text += `${count}${unit}`;
  }
  return text === '' ? '0ms' : text;
}

function anonymousSetText(
  set: SetRef,
  types: readonly NftType[],
  ifname?: (ifindex: number) => string | undefined,
): string {
  if (set.kind === 'named') return `@${set.name}`;
  const elements = sortedElements(set.elements, types);
  const parts = elements.map((element) => {
    const key = keyText(types, namedInterfaces(types, element.key, ifname), true);
    return element.data === undefined ? key : `${key} : ${dataText(element.data, 'integer')}`;
  });
  // `iif { 1, "lo" }`: a name and its index are one element, which nft lists once (`iif { "lo" }`).
  return `{ ${(ifname === undefined ? parts : [...new Set(parts)]).join(', ')} }`;
}

// ---- rules ------------------------------------------------------------------------------------------------

function cmpOperator(op: CmpOp): string {
  switch (op) {
    case 'eq':
      return '==';
    case 'ne':
      return '!=';
    case 'lt':
      return '<';
    case 'gt':
      return '>';
    case 'le':
      return '<=';
    case 'ge':
      return '>=';
  }
}

/** The length of a mask made of leading ones (1 to width-1 bits) on a 32-bit type, else undefined. */
function prefixLength(mask: number | undefined, type: NftType): number | undefined {
  if (mask === undefined || typeBits(type) !== 32 || isBitmask(type)) return undefined;
  const m = mask >>> 0;
  const inverted = ~m >>> 0;
  if (m === 0 || inverted === 0 || (inverted & (inverted + 1)) !== 0) return undefined;
  return 32 - Math.log2(inverted + 1);
}

function flagList(type: NftType, value: number): string {
  return flagNames(type, value).join(',');
}

/** iptables-nft's pkttype comparisons list with libxt_pkttype's names for 0-2, a number otherwise (nft 1.0.6). */
const IPTABLES_PKTTYPES = ['unicast', 'broadcast', 'multicast'];

function cmpText(expr: Extract<Expr, { kind: 'cmp' }>, ctx: RuleContext): string {
  const types = expr.left.map((value) => selectorType(value.selector));
  const single = expr.left.length === 1 ? expr.left[0]! : undefined;
  if (
    ctx.iptables &&
    single?.selector.kind === 'meta' &&
    single.selector.key === 'pkttype' &&
    single.mask === undefined &&
    expr.right.kind === 'number' &&
    (expr.op === 'eq' || expr.op === 'ne')
  )
    return `pkttype ${expr.op === 'ne' ? '!= ' : ''}${IPTABLES_PKTTYPES[expr.right.value] ?? expr.right.value}`;
  // And its DSCP comparisons as two hexadecimal digits, without the class names (libxt_dscp's translation).
  if (
    ctx.iptables &&
    single?.selector.kind === 'payload' &&
    single.selector.field === 'ip dscp' &&
    single.mask === undefined &&
    expr.right.kind === 'number' &&
    (expr.op === 'eq' || expr.op === 'ne')
  )
    return `ip dscp ${expr.op === 'ne' ? '!= ' : ''}0x${expr.right.value.toString(16).padStart(2, '0')}`;
  const type = types[0]!;
  if (single !== undefined && isBitmask(type) && expr.right.kind === 'number') {
    const name = selectorText(single, ctx);
    const value = expr.right.value >>> 0;
    if (single.mask !== undefined && single.xor === undefined) {
      const mask = single.mask >>> 0;
      if (expr.op === 'ne' && value === 0) return `${name} ${flagList(type, mask)}`;
      if (expr.op === 'eq' && value === 0) return `${name} ! ${flagList(type, mask)}`;
      const singleBit = (mask & (mask - 1)) === 0;
      if ((expr.op === 'eq' || expr.op === 'ne') && !(singleBit && value === mask))
        return `${name} ${expr.op === 'ne' ? '!= ' : ''}${flagList(type, value)} / ${flagList(type, mask)}`;
      return `${name} & ${bitmaskOperand(type, mask)} ${cmpOperator(expr.op)} ${bitmaskOperand(type, value)}`;
    }
    if (single.mask === undefined && single.xor === undefined)
      return `${name} ${cmpOperator(expr.op)} ${numberText(type, value)}`;
  }
  if (
    single !== undefined &&
    single.selector.kind === 'fib' &&
    single.selector.present &&
    expr.right.kind === 'number'
  ) {
    const word = expr.right.value === 0 ? 'missing' : 'exists';
    return `${selectorText(single, ctx)} ${expr.op === 'eq' ? '' : '!= '}${word}`;
  }
  // A mask of leading ones on a value prints as a prefix (`meta mark 0x00010000/16`, `ip saddr 10.0.0.0/24`).
  const prefix = single?.xor === undefined ? prefixLength(single?.mask, type) : undefined;
  if (
    single !== undefined &&
    prefix !== undefined &&
    expr.right.kind === 'number' &&
    (expr.op === 'eq' || expr.op === 'ne')
  )
    return `${selectorText(single, ctx)} ${expr.op === 'ne' ? '!= ' : ''}${numberText(type, expr.right.value)}/${prefix}`;
  const left = expr.left.map((value) => valueText(value, ctx)).join(' . ');
  const right = keyText(types, expr.right, false);
  const binop = single !== undefined && (single.mask !== undefined || single.xor !== undefined);
  if (expr.op === 'eq' && !binop) return `${left} ${right}`;
  // nft 1.0.6 lists libxt_ttl's ordered comparisons with words (`ip ttl gt 5`); port ranges keep `>`.
  const ttl = single?.selector.kind === 'payload' && single.selector.field === 'ip ttl';
  if (ctx.iptables && ttl && (expr.op === 'lt' || expr.op === 'gt')) return `${left} ${expr.op} ${right}`;
  return `${left} ${cmpOperator(expr.op)} ${right}`;
}

function sourceText(source: Source, key: 'mark' | 'nftrace' | 'pkttype'): string {
  if (source.kind === 'constant') {
    if (key === 'pkttype') return symbolName('pkttype', source.value) ?? String(source.value);
    return key === 'mark' ? hex8(source.value) : String(source.value);
  }
  return valueText(source.value, undefined);
}

function natFlagsText(flags: NatFlags): string {
  const names: string[] = [];
  if (flags.random) names.push('random');
  if (flags.fullyRandom) names.push('fully-random');
  if (flags.persistent) names.push('persistent');
  return names.length === 0 ? '' : ` ${names.join(',')}`;
}

/** `ip daddr map { 10.0.0.1 : 192.168.0.1 }`, `tcp dport map { 80 : 10.0.0.1 . 8080 }`, `ip daddr map @m`. */
function natMapText(map: NatMap, ctx: RuleContext): string {
  const types = map.key.map((value) => selectorType(value.selector));
  const key = map.key.map((value) => valueText(value, ctx)).join(' . ');
  if (map.map.kind === 'named') return `${key} map @${map.map.name}`;
  const parts = sortedElements(map.map.elements, types).map((element) => {
    const data = element.data;
    const text =
      data !== undefined && 'kind' in data && data.kind === 'concat'
        ? data.parts
            .map((part, i) => formatConstant(i === 0 ? 'ipv4_addr' : 'inet_service', part))
            .join(' . ')
        : data !== undefined && 'kind' in data && data.kind === 'number'
          ? formatConstant('ipv4_addr', data)
          : '';
    return `${keyText(types, element.key, true)} : ${text}`;
  });
  return `${key} map { ${parts.join(', ')} }`;
}

function natText(expr: Extract<Expr, { kind: 'nat' }>, ctx: RuleContext): string {
  if (expr.map !== undefined)
    return `${expr.type}${expr.map.withPort || ctx.family === 'inet' ? ' ip' : ''} to ${natMapText(expr.map, ctx)}${natFlagsText(expr.flags)}`;
  const { range } = expr;
  let to = '';
  if (range.addrLow !== undefined) {
    const high = range.addrHigh ?? range.addrLow;
    to = formatConstant('ipv4_addr', { kind: 'range', low: range.addrLow, high }, { inSet: true });
  }
  if (range.portLow !== undefined) {
    to += `:${range.portLow}`;
    if (range.portHigh !== undefined && range.portHigh !== range.portLow) to += `-${range.portHigh}`;
  }
  const family = ctx.family === 'inet' && range.addrLow !== undefined ? ' ip' : '';
  const head = to === '' ? expr.type : `${expr.type}${family} to ${to}`;
  return `${head}${natFlagsText(expr.flags)}`;
}

/**
 * An xt match without a translation span from the iptables front end: libxt_statistic and libxt_comment
 * translations; the others print as nft does for an extension without one (`xt match NAME`).
 */
function xtMatchText(options: XtMatchOptions): string {
  switch (options.name) {
    case 'statistic':
      if (options.mode === 'random')
        return `meta random & 2147483647 ${options.invert ? '>=' : '<'} ${Math.round(options.probability * 0x8000_0000)}`;
      return `numgen inc mod ${options.every} ${options.invert ? '!= ' : ''}${options.packet}`;
    case 'comment':
      return '';
    case 'connlimit':
      if (options.nft === true) return formatCtCount(options.limit, options.above);
      return `xt match ${options.name}`;
    default:
      return `xt match ${options.name}`;
  }
}

/** The protocol a transport payload field belongs to, for dependency elision (undefined for th and others). */
function fieldProtocol(value: Value): number | 'any' | undefined {
  if (value.selector.kind !== 'payload') return undefined;
  const field = value.selector.field;
  if (field.startsWith('tcp ')) return 6;
  if (field.startsWith('udp ')) return 17;
  if (field.startsWith('icmp ')) return 1;
  if (field.startsWith('th ')) return 'any';
  return undefined;
}

function dependencyOf(expr: Expr): { base: 'transport' | 'network'; value: number } | undefined {
  if (expr.kind !== 'cmp' || expr.op !== 'eq' || expr.left.length !== 1 || expr.right.kind !== 'number')
    return undefined;
  const value = expr.left[0]!;
  if (value.mask !== undefined || value.xor !== undefined) return undefined;
  const selector = value.selector;
  if (
    (selector.kind === 'meta' && selector.key === 'l4proto') ||
    (selector.kind === 'payload' && selector.field === 'ip protocol')
  )
    return { base: 'transport', value: expr.right.value };
  if (selector.kind === 'meta' && selector.key === 'nfproto')
    return { base: 'network', value: expr.right.value };
  return undefined;
}

/** Pending protocol dependencies: the part printing `meta l4proto X` / `meta nfproto ipv4`, until a field uses it. */
interface Dependencies {
  transport: { index: number; value: number } | undefined;
  network: number | undefined;
}

/**
 * payload_dependency_kill: a protocol match followed (with only other matches between) by a field of that
 * protocol is implied by the field, so nft does not print it.
 */
function killDependencies(
  stmt: Expr,
  parts: (string | undefined)[],
  deps: Dependencies,
  family: Family,
): boolean {
  // A nat statement's map key (`dnat to tcp dport map ...`) implies its protocol like a map lookup's.
  const expr: Expr =
    stmt.kind === 'nat' && stmt.map !== undefined
      ? { kind: 'vmap', left: stmt.map.key, map: stmt.map.map }
      : stmt;
  if (expr.kind === 'cmp' || expr.kind === 'lookup' || expr.kind === 'vmap') {
    if (expr.left.length !== 1) {
      const dep = deps.transport;
      if (dep !== undefined && expr.left.some((value) => fieldProtocol(value) === dep.value)) {
        parts[dep.index] = undefined;
        deps.transport = undefined;
      }
      const network = deps.network;
      if (network !== undefined && expr.left.some((value) => isIpField(value))) {
        parts[network] = undefined;
        deps.network = undefined;
      }
      return false;
    }
    const value = expr.left[0]!;
    const protocol = fieldProtocol(value);
    const dep = deps.transport;
    if (protocol !== undefined && dep !== undefined && (protocol === 'any' || protocol === dep.value)) {
      if (protocol !== 'any' || dep.value === 6 || dep.value === 17) parts[dep.index] = undefined;
      deps.transport = undefined;
    }
    const selector = value.selector;
    if (selector.kind === 'payload' && selector.field.startsWith('ip ') && deps.network !== undefined) {
      parts[deps.network] = undefined;
      deps.network = undefined;
    }
  } else if (expr.kind === 'reject') {
    // stmt_reject_postprocess: only a dependency right before the reject goes (in inet, only the nfproto one,
    // which marks `reject with icmp` as opposed to inet's default icmpx reject).
    const dep = deps.transport;
    if (
      family === 'ip' &&
      expr.with.kind === 'tcp-reset' &&
      dep !== undefined &&
      dep.value === 6 &&
      dep.index === parts.length - 1
    )
      parts[dep.index] = undefined;
    // In inet tables a TCP reset after `meta nfproto ipv4` does not list the nfproto match.
    if (family === 'inet' && expr.with.kind === 'tcp-reset' && deps.network !== undefined) {
      parts[deps.network] = undefined;
      deps.network = undefined;
    }
    const explicit = (expr.with.kind === 'icmp' && !expr.with.abstract) || expr.with.kind === 'icmpv6';
    if (explicit && deps.network !== undefined && deps.network === parts.length - 1) {
      parts[deps.network] = undefined;
      return true;
    }
  }
  return false;
}

function isIpField(value: Value): boolean {
  return value.selector.kind === 'payload' && value.selector.field.startsWith('ip ');
}

/** A span of an iptables-nft rule printed as one text: native (`tcp sport != 1 tcp dport != 2`) or an xt extension. */
function isNativeSpan(exprs: readonly Expr[]): boolean {
  return exprs.every(
    (expr) => expr.kind === 'cmp' && expr.left.length === 1 && fieldProtocol(expr.left[0]!) !== undefined,
  );
}

/**
 * The expressions of a native rule nft lists, its implied protocol dependencies dropped as formatRule drops them
 * (for `nft -j`); undefined for rules iptables-nft wrote.
 */
export function visibleExprs(rule: Rule, table: Table): Expr[] | undefined {
  if (rule.iptables !== undefined) return undefined;
  const parts: (string | undefined)[] = [];
  const deps: Dependencies = { transport: undefined, network: undefined };
  for (const expr of rule.exprs) {
    killDependencies(expr, parts, deps, table.family);
    parts.push(String(parts.length));
    if (!(expr.kind === 'cmp' || expr.kind === 'lookup' || expr.kind === 'vmap')) {
      deps.transport = undefined;
      deps.network = undefined;
      continue;
    }
    const dep = dependencyOf(expr);
    if (dep?.base === 'transport') {
      if (table.family === 'ip' || !isIpField(expr.left[0]!))
        deps.transport = { index: parts.length - 1, value: dep.value };
    } else if (dep?.base === 'network' && table.family === 'inet' && dep.value === 2)
      deps.network = parts.length - 1;
  }
  return rule.exprs.filter((_, i) => parts[i] !== undefined);
}

/**
 * One rule in nft syntax (without indentation or handle). Exported for `nft monitor trace`, which prints the
 * rule that matched.
 */
export function formatRule(rule: Rule, table: Table, options: PrintOptions = {}): string {
  const ctx: RuleContext = {
    family: table.family,
    iptables: rule.iptables !== undefined,
    transport: undefined,
    stateless: options.stateless,
    ifname: options.ifname,
  };
  const parts: (string | undefined)[] = [];
  const deps: Dependencies = { transport: undefined, network: undefined };
  const counters = options.counters?.(rule) ?? rule;
  const spans = rule.iptables?.nft ?? [];
  for (let i = 0; i < rule.exprs.length; i++) {
    const span = spans.find((candidate) => candidate.at === i && candidate.count > 0);
    if (span !== undefined) {
      const covered = rule.exprs.slice(i, i + span.count);
      if (isNativeSpan(covered)) killDependencies(covered[0]!, parts, deps, table.family);
      else {
        deps.transport = undefined;
        deps.network = undefined;
      }
      parts.push(span.text);
      i += span.count - 1;
      continue;
    }
    const expr = rule.exprs[i]!;
    if (hiddenFamilyDependency(rule.exprs, i, table.family)) continue;
    const expression = expr.kind === 'cmp' || expr.kind === 'lookup' || expr.kind === 'vmap';
    killDependencies(expr, parts, deps, table.family);
    parts.push(exprText(expr, ctx, counters));
    if (!expression) {
      deps.transport = undefined;
      deps.network = undefined;
      continue;
    }
    const dep = dependencyOf(expr);
    if (dep?.base === 'transport') {
      // In inet tables transport fields depend on meta l4proto; an `ip protocol` match stays printed.
      if (table.family === 'ip' || !isIpField(expr.left[0]!))
        deps.transport = { index: parts.length - 1, value: dep.value };
      ctx.transport = dep.value;
    } else if (dep?.base === 'network' && table.family === 'inet' && (dep.value === 2 || dep.value === 10))
      deps.network = parts.length - 1;
  }
  let text = parts.filter((part): part is string => part !== undefined).join(' ');
  if (rule.comment !== undefined && !ctx.iptables) text += ` comment "${rule.comment}"`;
  return text;
}

function exprText(
  expr: Expr,
  ctx: RuleContext,
  counters: { readonly packets: number; readonly bytes: number },
): string {
  switch (expr.kind) {
    case 'cmp': {
      const types = expr.left.map((value) => selectorType(value.selector));
      // `fib ... oif exists` holds a flag, not an index.
      if (expr.left.some((value) => value.selector.kind === 'fib' && value.selector.present))
        return cmpText(expr, ctx);
      return cmpText({ ...expr, right: namedInterfaces(types, expr.right, ctx.ifname) }, ctx);
    }
    case 'lookup': {
      const types = expr.left.map((value) => selectorType(value.selector));
      const left = expr.left.map((value) => valueText(value, ctx)).join(' . ');
      return `${left}${expr.negate ? ' !=' : ''} ${anonymousSetText(expr.set, types, ctx.ifname)}`;
    }
    case 'vmap': {
      const types = expr.left.map((value) => selectorType(value.selector));
      const left = expr.left.map((value) => valueText(value, ctx)).join(' . ');
      return `${left} vmap ${anonymousSetText(expr.map, types)}`;
    }
    case 'match':
      return xtMatchText(expr.options);
    case 'counter':
      if (ctx.stateless === true) return 'counter';
      return `counter packets ${counters.packets} bytes ${counters.bytes}`;
    case 'meta-set':
      return `meta ${expr.key} set ${sourceText(expr.source, expr.key)}`;
    case 'ct-set':
      return `ct mark set ${sourceText(expr.source, 'mark')}`;
    case 'nat':
      return natText(expr, ctx);
    case 'reject':
      return formatReject(expr.with, ctx.family, ctx.iptables);
    case 'log':
      return formatLog(expr);
    case 'notrack':
      return 'notrack';
    case 'limit':
      return formatLimit(expr);
    case 'quota':
      return formatQuota(expr);
    case 'set-update':
      return `${expr.op} @${expr.set} { ${expr.key.map((value) => valueText(value, ctx)).join(' . ')}${dynsetOptionsText(expr)} }`;
    case 'ipset-update':
      return 'xt target SET';
    case 'tproxy':
      return expr.nft === true ? formatTproxy(expr, ctx.family) : 'xt target TPROXY';
    case 'tcpmss':
      return `tcp option maxseg size set ${expr.mss === 'pmtu' ? 'rt mtu' : expr.mss}`;
    case 'xt-target':
      return `xt target ${expr.options.name}`;
    case 'flow-offload':
      return `flow add @${expr.flowtable}`;
    case 'objref':
      return `${expr.type} name "${expr.name}"`;
    case 'verdict':
      return verdictText(expr.verdict, ctx.iptables);
  }
}

// ---- sets -------------------------------------------------------------------------------------------------

/** expression.c: calculate_delim — how many elements nft prints per line for each key type. */
function elementsPerLine(keyTypes: readonly NftType[]): number {
  if (keyTypes.length !== 1) return 1;
  switch (keyTypes[0]) {
    case 'integer':
    case 'inet_proto':
    case 'inet_service':
    case 'tcp_flag':
    case 'mark':
    case 'ct_dir':
    case 'nfproto':
      return 16;
    case 'ipv4_addr':
    case 'ct_state':
    case 'ct_status':
    case 'pkttype':
      return 2;
    default:
      return 1;
  }
}

/** The flags line; a default timeout implies the timeout flag, which then prints only beside others. */
function setFlagsText(set: NamedSet): string | undefined {
  const order = ['constant', 'dynamic', 'interval', 'timeout'] as const;
  const flags = order.filter(
    (flag) => set.flags.includes(flag) || (flag === 'timeout' && set.timeout !== undefined),
  );
  if (flags.length === 1 && flags[0] === 'timeout' && set.timeout !== undefined) return undefined;
  return flags.length === 0 ? undefined : flags.join(',');
}

/** An element's options as nft prints them: its own timeout, the time left, its comment. */
function elementOptionsText(
  set: NamedSet,
  element: SetElement,
  now: number | undefined,
  stateless = false,
): string {
  let text = elementCounterText(element, stateless);
  if (element.timeout !== undefined && element.timeout !== set.timeout)
    text += ` timeout ${formatDuration(element.timeout)}`;
  if (element.expires !== undefined && now !== undefined)
    text += ` expires ${formatDuration(Math.max(0, (element.expires - now) / 1e6))}`;
  if (element.comment !== undefined) text += ` comment "${element.comment}"`;
  return text;
}

/** One element as `nft monitor` prints it in `add element ... { E }`: its key, options and data. */
export function formatElement(set: NamedSet, element: SetElement): string {
  const keyTypes = set.keyType.map(fromDataType);
  const dataType = set.dataType === undefined ? 'integer' : fromDataType(set.dataType);
  let text = keyText(keyTypes, element.key, true) + elementOptionsText(set, element, undefined);
  if (element.data !== undefined) text += ` : ${dataText(element.data, dataType)}`;
  return text;
}

/** A set's declaration on one line, as `nft monitor` prints it: `type T; flags F;` (size and timeout not shown). */
export function formatSetDeclaration(set: NamedSet): string {
  const isMap = set.dataType !== undefined;
  const flags = setFlagsText(set);
  return `type ${set.keyType.join(' . ')}${isMap ? ` : ${set.dataType}` : ''};${flags === undefined ? '' : ` flags ${flags};`}`;
}

/** `type T [: D]`, or `typeof EXPR [: EXPR]` for a set declared by expressions. */
function setTypeText(set: NamedSet): string {
  const isMap = set.dataType !== undefined;
  if (set.typeofText !== undefined)
    return `typeof ${set.typeofText.key}${set.typeofText.data === undefined ? '' : ` : ${set.typeofText.data}`}`;
  return `type ${set.keyType.join(' . ')}${isMap ? ` : ${set.dataType}` : ''}`;
}

function setText(set: NamedSet, options: PrintOptions): string {
  const isMap = set.dataType !== undefined;
  const keyTypes = set.keyType.map(fromDataType);
  const handle = options.handles ? ` # handle ${set.handle ?? 0}` : '';
  let text = `\t${isMap ? 'map' : 'set'} ${set.name} {${handle}\n`;
  // rule.c: set_print_declaration's order.
  text += `\t\t${setTypeText(set)}\n`;
  if (set.policy !== undefined) text += `\t\tpolicy ${set.policy}\n`;
  if (set.size !== undefined) text += `\t\tsize ${set.size}\n`;
  const flags = setFlagsText(set);
  if (flags !== undefined) text += `\t\tflags ${flags}\n`;
  if (set.counter === true) text += '\t\tcounter\n';
  if (set.autoMerge === true) text += '\t\tauto-merge\n';
  if (set.timeout !== undefined) text += `\t\ttimeout ${formatDuration(set.timeout)}\n`;
  if (set.gcInterval !== undefined) text += `\t\tgc-interval ${formatDuration(set.gcInterval)}\n`;
  if (set.comment !== undefined) text += `\t\tcomment "${set.comment}"\n`;
  const now = options.now;
  const live = set.elements.filter(
    (element) => element.expires === undefined || now === undefined || element.expires > now,
  );
  if (live.length > 0) {
    const dataType = set.dataType === undefined ? 'integer' : fromDataType(set.dataType);
    const perLine = elementsPerLine(keyTypes);
    const elements = sortedElements(live, keyTypes);
    let body = '';
    elements.forEach((element, i) => {
      if (i > 0) body += i % perLine === 0 ? ',\n\t\t\t     ' : ', ';
      body += keyText(keyTypes, element.key, true);
      body += elementOptionsText(set, element, now, options.stateless);
      if (element.data !== undefined) body += ` : ${dataText(element.data, dataType)}`;
    });
    text += `\t\telements = { ${body} }\n`;
  }
  return `${text}\t}\n`;
}

// ---- chains and tables ------------------------------------------------------------------------------------

function chainText(table: Table, name: string, options: PrintOptions, withRules: boolean): string {
  const chain = table.chains.get(name)!;
  const handle = options.handles ? ` # handle ${chain.handle}` : '';
  let text = `\tchain ${chain.name} {${handle}\n`;
  // rule.c: chain_print_declaration prints the comment before the base chain's type line.
  if (chain.comment !== undefined) text += `\t\tcomment "${chain.comment}"\n`;
  if (chain.base !== undefined) {
    const { type, hook, priority, policy, devices } = chain.base;
    const bound = devices === undefined ? '' : formatDevices(devices);
    const named = formatFamilyPriority(table.family, hook, priority);
    text += `\t\ttype ${type} hook ${hook}${bound} priority ${named}; policy ${policy};\n`;
  }
  if (withRules)
    for (const rule of chain.rules)
      text += `\t\t${formatRule(rule, table, options)}${options.handles ? ` # handle ${rule.handle}` : ''}\n`;
  return `${text}\t}\n`;
}

/**
 * `table ip t {`, with the table's handle under `-a` only in listings of whole tables (table_print); listings of a
 * chain, a set or map, or of all chains, sets or maps print the bare header (rule.c: do_list_chain, do_list_set...).
 */
function tableHeader(table: Table, options: PrintOptions, whole = false): string {
  return `table ${table.family} ${table.name} {${options.handles && whole ? ` # handle ${table.handle}` : ''}\n`;
}

/** `nft list table`: the table with its comment, sets and maps, then chains, separated by blank lines. */
export function printTable(table: Table, options: PrintOptions = {}): string {
  const items: string[] = [];
  // rule.c: table_print lists the objects first, then the sets.
  for (const object of table.objects ?? []) items.push(objectText(object, options));
  for (const set of table.sets.values()) items.push(setText(set, options));
  // rule.c: table_print lists the flowtables after the sets, before the chains.
  for (const flowtable of table.flowtables ?? []) items.push(flowtableText(flowtable, options));
  for (const name of table.chains.keys()) items.push(chainText(table, name, options, true));
  const comment = table.comment === undefined ? '' : `\tcomment "${table.comment}"\n`;
  return `${tableHeader(table, options, true)}${comment}${items.join('\n')}}\n`;
}

function familyMatches(table: Table, family: string | undefined): boolean {
  return family === undefined || table.family === family;
}

/** `nft list ruleset [family]`. */
export function printRuleset(
  ruleset: Ruleset,
  options: PrintOptions & { family?: string | undefined } = {},
): string {
  return ruleset.tables
    .filter((table) => familyMatches(table, options.family))
    .map((table) => printTable(table, options))
    .join('');
}

/** `nft list chain`: the chain inside its table's braces. */
export function printChain(table: Table, chain: string, options: PrintOptions = {}): string {
  return `${tableHeader(table, options)}${chainText(table, chain, options, true)}}\n`;
}

/** `nft list set|map`. */
export function printSet(table: Table, set: NamedSet, options: PrintOptions = {}): string {
  return `${tableHeader(table, options)}${setText(set, options)}}\n`;
}

/** `nft list tables`. */
export function printTables(ruleset: Ruleset, family?: string): string {
  return ruleset.tables
    .filter((table) => familyMatches(table, family))
    .map((table) => `table ${table.family} ${table.name}\n`)
    .join('');
}

/** `nft list chains`: every chain without its rules. */
export function printChains(
  ruleset: Ruleset,
  options: PrintOptions & { family?: string | undefined } = {},
): string {
  return ruleset.tables
    .filter((table) => familyMatches(table, options.family))
    .map((table) => {
      let text = tableHeader(table, options);
      for (const name of table.chains.keys()) text += chainText(table, name, options, false);
      return `${text}}\n`;
    })
    .join('');
}

/** `nft list sets` / `nft list maps`. */
export function printSets(
  ruleset: Ruleset,
  options: PrintOptions & { family?: string | undefined; maps: boolean },
): string {
  return ruleset.tables
    .filter((table) => familyMatches(table, options.family))
    .map((table) => {
      let text = tableHeader(table, options);
      for (const set of table.sets.values())
        if ((set.dataType !== undefined) === options.maps) text += setText(set, options);
      return `${text}}\n`;
    })
    .join('');
}
