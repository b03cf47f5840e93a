// `nft -j list ruleset` as libnftables 1.0.6 prints it (json.c: do_list_ruleset_json and the *_print_json
// functions): one line `{"nftables": [{"metainfo": ...}, {"table": ...}, ...]}` with each table's sets and maps,
// chains and rules, values in their JSON forms (addresses as strings, ports and marks as numbers, protocol and
// flag names as strings). Not supported (refused with packetlab's unsupported message, never printed wrong): rules
// iptables-nft wrote, bitwise values other than one `&`, `|` or `^` with a constant, ct directions but for
// addresses, fib exists/missing, rt, log, reject, notrack,
// redirect, NAT ranges and dnat/snat flags, set statements with options, table comments (1.0.6 prints none).

import type {
  Constant,
  Expr,
  NamedObjectType,
  NamedSet,
  Rule,
  Ruleset,
  SetElement,
  SetRef,
  Table,
  Value,
  Verdict,
} from '../ir.ts';
import { formatClock } from './expr-time.ts';
import { objectJson } from './objects.ts';
import { sortedElements, visibleExprs } from './printer.ts';
import {
  flagNames,
  formatIpv4,
  formatMac,
  fromDataType,
  isBitmask,
  type NftType,
  selectorType,
  symbolName,
  typeBits,
} from './types.ts';

type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };

/** What the listing cannot show in JSON yet. */
export class JsonUnsupported {
  constructor(readonly what: string) {}
}

/** jansson's json_dumps without JSON_COMPACT: `", "` and `": "` between items. */
export function stringifyJson(value: Json): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(stringifyJson).join(', ')}]`;
  const entries = Object.entries(value as { readonly [key: string]: Json });
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}: ${stringifyJson(item)}`).join(', ')}}`;
}

function unsupported(what: string): never {
  throw new JsonUnsupported(what);
}

// ---- values -----------------------------------------------------------------------------------------------

function numberJson(type: NftType, value: number): Json {
  switch (type) {
    case 'ipv4_addr':
      return formatIpv4(value);
    case 'ether_addr':
      return formatMac(value);
    case 'inet_service':
    case 'integer':
    case 'mark':
    case 'iface':
      return value >>> 0;
    // A realm's name, or its number as a string (realm_type prints through the rt_realms table).
    case 'realm':
      return symbolName(type, value) ?? String(value >>> 0);
    // `"17:00"`, `"Monday"`, `"2024-01-01 00:00:00"`: the listing's text without its quotes.
    case 'date':
    case 'day':
    case 'hour':
      return formatClock(type, value).replace(/^"|"$/g, '');
    default:
      return symbolName(type, value) ?? value >>> 0;
  }
}

function constantJson(type: NftType, constant: Constant, types: readonly NftType[] = [type]): Json {
  switch (constant.kind) {
    case 'number':
      return numberJson(type, constant.value);
    case 'string':
      return `${constant.value}${constant.wildcard ? '*' : ''}`;
    case 'prefix':
      if (type === 'ipv4_addr' && constant.len === 32) return formatIpv4(constant.addr);
      return { prefix: { addr: numberJson(type, constant.addr), len: constant.len } };
    case 'range':
      return { range: [numberJson(type, constant.low), numberJson(type, constant.high)] };
    case 'concat':
      return { concat: constant.parts.map((part, i) => constantJson(types[i] ?? 'integer', part)) };
  }
}

/** A value with its bitwise as nft's JSON binops: `&` (mask only), `|` (mask ~xor), `^` (xor only). */
function valueJson(value: Value): Json {
  const bare = selectorJson({ selector: value.selector });
  const mask = value.mask === undefined ? 0xffff_ffff : value.mask >>> 0;
  const xor = (value.xor ?? 0) >>> 0;
  if (mask === 0xffff_ffff && xor === 0) return bare;
  if (xor === 0) return { '&': [bare, mask] };
  if (mask === 0xffff_ffff) return { '^': [bare, xor] };
  if (~mask >>> 0 === xor) return { '|': [bare, xor] };
  return unsupported('bitwise expressions');
}

function selectorJson(value: Value): Json {
  if (value.mask !== undefined || value.xor !== undefined) unsupported('bitwise expressions');
  const selector = value.selector;
  switch (selector.kind) {
    case 'payload': {
      const [protocol, field] = selector.field.split(' ') as [string, string];
      return { payload: { protocol, field } };
    }
    case 'meta':
      return { meta: { key: selector.key } };
    case 'ct':
      if (selector.dir === undefined) return { ct: { key: selector.key } };
      if (selector.key !== 'saddr' && selector.key !== 'daddr') return unsupported('ct directions');
      return { ct: { key: `ip ${selector.key}`, dir: selector.dir } };
    case 'fib':
      if (selector.present === true) unsupported('fib exists/missing');
      return {
        fib: {
          result: selector.result,
          flags: ['saddr', 'daddr', 'mark', 'iif', 'oif'].filter((flag) =>
            (selector.flags as readonly string[]).includes(flag),
          ),
        },
      };
    case 'numgen':
      return { numgen: { mode: selector.mode, mod: selector.mod, offset: selector.offset } };
    // json.c: rt_expr_json names the family of a next hop only; socket_expr_json its key.
    case 'rt':
      return { rt: selector.key === 'nexthop' ? { key: 'nexthop', family: 'ip' } : { key: selector.key } };
    case 'socket':
      return { socket: { key: selector.key } };
    default:
      return unsupported(`${selector.kind} expressions`);
  }
}

function leftJson(values: readonly Value[]): Json {
  return values.length === 1 ? selectorJson(values[0]!) : { concat: values.map(selectorJson) };
}

function verdictJson(verdict: Verdict): Json {
  switch (verdict.kind) {
    case 'accept':
    case 'drop':
    case 'continue':
    case 'return':
      return { [verdict.kind]: null };
    case 'jump':
    case 'goto':
      return { [verdict.kind]: { target: verdict.chain } };
    case 'queue':
      return unsupported('queue');
  }
}

function isVerdict(data: object): data is Verdict {
  return (
    'kind' in data &&
    ['accept', 'drop', 'continue', 'return', 'jump', 'goto', 'queue'].includes(data.kind as string)
  );
}

function setRefJson(set: SetRef, types: readonly NftType[], map: boolean): Json {
  if (set.kind === 'named') return `@${set.name}`;
  const elements = sortedElements(set.elements, types).map((element) => {
    const key = constantJson(types[0]!, element.key, types);
    if (!map) return key;
    const data = element.data;
    if (data === undefined || !isVerdict(data)) return unsupported('data maps in rules');
    return [key, verdictJson(data)];
  });
  return { set: elements };
}

// ---- statements -------------------------------------------------------------------------------------------

function prefixLength(mask: number): number | undefined {
  const inverted = ~mask >>> 0;
  if (mask >>> 0 === 0 || inverted === 0 || (inverted & (inverted + 1)) !== 0) return undefined;
  return 32 - Math.log2(inverted + 1);
}

const OPERATORS = { eq: '==', ne: '!=', lt: '<', gt: '>', le: '<=', ge: '>=' } as const;

function matchJson(expr: Extract<Expr, { kind: 'cmp' }>): Json {
  const types = expr.left.map((value) => selectorType(value.selector));
  const single = expr.left.length === 1 ? expr.left[0]! : undefined;
  const type = types[0]!;
  if (
    single !== undefined &&
    single.mask !== undefined &&
    single.xor === undefined &&
    expr.right.kind === 'number'
  ) {
    const bare = { selector: single.selector };
    // A flag test: `ct state established,related` is `in` the flags named.
    if (isBitmask(type) && expr.op === 'ne' && expr.right.value === 0) {
      const names = flagNames(type, single.mask);
      return { match: { op: 'in', left: selectorJson(bare), right: names.length === 1 ? names[0]! : names } };
    }
    const len = typeBits(type) === 32 && !isBitmask(type) ? prefixLength(single.mask) : undefined;
    if (len !== undefined && (expr.op === 'eq' || expr.op === 'ne'))
      return {
        match: {
          op: OPERATORS[expr.op],
          left: selectorJson(bare),
          right: { prefix: { addr: numberJson(type, expr.right.value), len } },
        },
      };
  }
  const left = single !== undefined ? valueJson(single) : leftJson(expr.left);
  return { match: { op: OPERATORS[expr.op], left, right: constantJson(type, expr.right, types) } };
}

function natFlags(flags: Extract<Expr, { kind: 'nat' }>['flags']): string[] {
  const names: string[] = [];
  if (flags.random) names.push('random');
  if (flags.fullyRandom) names.push('fully-random');
  if (flags.persistent) names.push('persistent');
  return names;
}

function natJson(expr: Extract<Expr, { kind: 'nat' }>): Json {
  const { range, flags } = expr;
  const names = natFlags(flags);
  if (expr.map !== undefined) {
    // nat_stmt_json: `dnat to KEY map { K : ADDR }` keeps the map as the address.
    if (expr.map.withPort || names.length > 0 || (expr.type !== 'dnat' && expr.type !== 'snat'))
      unsupported('NAT maps with ports or flags');
    const types = expr.map.key.map((value) => selectorType(value.selector));
    const data =
      expr.map.map.kind === 'named'
        ? `@${expr.map.map.name}`
        : {
            set: expr.map.map.elements.map((element) => [
              constantJson(types[0]!, element.key, types),
              constantJson('ipv4_addr', element.data as Constant),
            ]),
          };
    return { [expr.type]: { addr: { map: { key: leftJson(expr.map.key), data } } } };
  }
  if (expr.type === 'masquerade') {
    if (range.portLow !== undefined) unsupported('masquerade ports');
    return { masquerade: names.length === 0 ? null : { flags: names.length === 1 ? names[0]! : names } };
  }
  if (expr.type !== 'dnat' && expr.type !== 'snat') return unsupported(expr.type);
  if (names.length > 0) unsupported('NAT flags');
  if (range.addrLow === undefined || range.addrHigh !== range.addrLow || range.portHigh !== range.portLow)
    unsupported('NAT ranges');
  const addr = formatIpv4(range.addrLow);
  return { [expr.type]: range.portLow === undefined ? { addr } : { addr, port: range.portLow } };
}

function exprJson(expr: Expr, rule: Rule, family: string): Json {
  switch (expr.kind) {
    case 'cmp':
      return matchJson(expr);
    case 'lookup': {
      const types = expr.left.map((value) => selectorType(value.selector));
      return {
        match: {
          op: expr.negate ? '!=' : '==',
          left: leftJson(expr.left),
          right: setRefJson(expr.set, types, false),
        },
      };
    }
    case 'vmap': {
      const types = expr.left.map((value) => selectorType(value.selector));
      return { vmap: { key: leftJson(expr.left), data: setRefJson(expr.map, types, true) } };
    }
    case 'counter':
      return { counter: { packets: rule.packets, bytes: rule.bytes } };
    case 'objref':
      return { [expr.type]: expr.name };
    case 'match': {
      // json.c: connlimit_stmt_json, the count as a signed int.
      const options = expr.options;
      if (options.name !== 'connlimit' || options.nft !== true) return unsupported('xt matches');
      const val = options.limit | 0;
      return { 'ct count': options.above ? { val, inv: true } : { val } };
    }
    case 'verdict':
      return verdictJson(expr.verdict);
    case 'meta-set':
    case 'ct-set': {
      const key = expr.kind === 'meta-set' ? { meta: { key: expr.key } } : { ct: { key: expr.key } };
      const source = expr.source;
      if (source.kind === 'constant') return { mangle: { key, value: source.value } };
      if (source.kind !== 'value') return unsupported('values from two values');
      return { mangle: { key, value: valueJson(source.value) } };
    }
    case 'nat':
      return natJson(expr);
    case 'tproxy': {
      // json.c: tproxy_stmt_json, the address and port when given (the family only outside ip tables).
      if (expr.nft !== true) return unsupported('xt targets');
      if (family !== 'ip') return unsupported('tproxy outside ip tables');
      const body: Record<string, Json> = {};
      if (expr.addr !== 0) body.addr = formatIpv4(expr.addr);
      if (expr.port !== 0) body.port = expr.port;
      return { tproxy: body };
    }
    case 'set-update':
      if (expr.op === 'delete' || expr.timeout !== undefined || expr.counter === true)
        unsupported('set statements with options');
      return { set: { op: expr.op, elem: leftJson(expr.key), set: `@${expr.set}` } };
    default:
      return unsupported(`${expr.kind} statements`);
  }
}

// ---- objects ----------------------------------------------------------------------------------------------

function elementJson(set: NamedSet, element: SetElement, now: number | undefined): Json {
  const types = set.keyType.map(fromDataType);
  const key = constantJson(types[0]!, element.key, types);
  const options: Record<string, Json> = {};
  if (element.timeout !== undefined && element.timeout !== set.timeout)
    options.timeout = Math.floor(element.timeout / 1000);
  if (element.expires !== undefined && now !== undefined)
    options.expires = Math.floor(Math.max(0, element.expires - now) / 1e9);
  if (element.comment !== undefined) options.comment = element.comment;
  if (element.counter !== undefined)
    options.counter = { packets: element.counter.packets, bytes: element.counter.bytes };
  const value = Object.keys(options).length === 0 ? key : { elem: { val: key, ...options } };
  if (set.dataType === undefined) return value;
  const data = element.data;
  if (data === undefined) return value;
  return [value, isVerdict(data) ? verdictJson(data) : constantJson(fromDataType(set.dataType), data)];
}

function setJson(table: Table, set: NamedSet, now: number | undefined): Json {
  const map = set.dataType !== undefined;
  const body: Record<string, Json> = {
    family: table.family,
    name: set.name,
    table: table.name,
    type: set.keyType.length === 1 ? set.keyType[0]! : [...set.keyType],
    handle: set.handle ?? 0,
  };
  if (set.comment !== undefined) body.comment = set.comment;
  if (map) body.map = set.dataType!;
  if (set.size !== undefined) body.size = set.size;
  // json.c: set_print_json names constant, interval and timeout only.
  const flags = (['constant', 'interval', 'timeout'] as const).filter(
    (flag) => set.flags.includes(flag) || (flag === 'timeout' && set.timeout !== undefined),
  );
  if (flags.length > 0) body.flags = flags;
  if (set.timeout !== undefined) body.timeout = Math.floor(set.timeout / 1000);
  if (set.gcInterval !== undefined) body['gc-interval'] = Math.floor(set.gcInterval / 1000);
  const live = set.elements.filter((e) => e.expires === undefined || now === undefined || e.expires > now);
  if (live.length > 0)
    body.elem = sortedElements(live, set.keyType.map(fromDataType)).map((e) => elementJson(set, e, now));
  if (set.counter === true) body.stmt = [{ counter: null }];
  return { [map ? 'map' : 'set']: body };
}

function tableJson(table: Table, now: number | undefined): Json[] {
  const out: Json[] = [{ table: { family: table.family, name: table.name, handle: table.handle } }];
  // json.c: table_print_json_full lists the table's objects before its sets.
  for (const object of table.objects ?? []) out.push(objectJson(table, object));
  for (const set of table.sets.values()) out.push(setJson(table, set, now));
  for (const chain of table.chains.values()) {
    const body: Record<string, Json> = {
      family: table.family,
      table: table.name,
      name: chain.name,
      handle: chain.handle,
    };
    if (chain.base !== undefined) {
      body.type = chain.base.type;
      body.hook = chain.base.hook;
      body.prio = chain.base.priority;
      body.policy = chain.base.policy;
    }
    out.push({ chain: body });
  }
  for (const chain of table.chains.values())
    for (const rule of chain.rules) {
      const exprs = visibleExprs(rule, table);
      if (exprs === undefined) unsupported('rules written by iptables-nft');
      const body: Record<string, Json> = {
        family: table.family,
        table: table.name,
        chain: chain.name,
        handle: rule.handle,
      };
      if (rule.comment !== undefined) body.comment = rule.comment;
      body.expr = exprs.map((expr) => exprJson(expr, rule, table.family));
      out.push({ rule: body });
    }
  return out;
}

/** `nft -j list ruleset [FAMILY]`: the line libnftables prints, or what it cannot show yet. */
export function printJsonRuleset(
  ruleset: Ruleset,
  options: { family?: string | undefined; now?: number | undefined } = {},
): string | JsonUnsupported {
  const items: Json[] = [
    { metainfo: { version: '1.0.6', release_name: 'Lester Gooch #5', json_schema_version: 1 } },
  ];
  try {
    for (const table of ruleset.tables)
      if (options.family === undefined || table.family === options.family)
        items.push(...tableJson(table, options.now));
  } catch (failure) {
    if (failure instanceof JsonUnsupported) return failure;
    throw failure;
  }
  return `${stringifyJson({ nftables: items })}\n`;
}

/** `nft -j list counters|quotas|limits`: the objects of that type in `tables`, without their tables (json.c). */
export function printJsonObjects(tables: readonly Table[], type: NamedObjectType): string {
  const items: Json[] = [
    { metainfo: { version: '1.0.6', release_name: 'Lester Gooch #5', json_schema_version: 1 } },
  ];
  for (const table of tables)
    for (const object of table.objects ?? []) if (object.type === type) items.push(objectJson(table, object));
  return `${stringifyJson({ nftables: items })}\n`;
}
