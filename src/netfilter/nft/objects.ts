// Named stateful objects in nft's grammar and listings (parser_bison.y: counter_block, quota_block, limit_block,
// obj_spec; rule.c: obj_print_data, do_list_obj; json.c: obj_print_json): `counter c1 { packets 0 bytes 0 }`,
// `quota q1 { over 10 mbytes used 1 kbytes }`, `limit l1 { rate 10/second }`, each with an optional comment, as
// table-block items or `add|create counter|quota|limit TABLE NAME ...`. Not modelled: the other object types (ct
// helper, ct timeout, ct expectation, secmark, synproxy, tunnel), maps from a key to an object name.

import type { LimitExpr, NamedObject, NamedObjectType, QuotaExpr, Table } from '../ir.ts';
import type { Named } from './ast.ts';
import { errorAt, type Location, span } from './location.ts';
import {
  formatLimitConfig,
  formatQuotaConfig,
  parseLimitConfig,
  parseQuotaConfig,
  withDataUnit,
} from './stmt-limit.ts';
import type { TokenStream } from './stream.ts';

/** What an object's declaration says, before it has a handle. */
export type ObjectBody =
  | { readonly type: 'counter'; readonly packets: number; readonly bytes: number }
  | { readonly type: 'quota'; readonly quota: QuotaExpr }
  | { readonly type: 'limit'; readonly limit: LimitExpr };

export interface ObjectDef {
  readonly name: Named;
  readonly comment: string | undefined;
  readonly body: ObjectBody;
  readonly loc: Location;
}

/** The object keywords and the listing commands' plural words. */
export const OBJECT_TYPES: readonly NamedObjectType[] = ['counter', 'quota', 'limit'];
export const OBJECT_LISTS: Readonly<Record<string, NamedObjectType>> = {
  counters: 'counter',
  quotas: 'quota',
  limits: 'limit',
};

/** nft's comment_spec limit (NFTNL_UDATA_COMMENT_MAXLEN). */
const COMMENT_MAX = 128;

/**
 * An object's declaration after its name: `{ ITEMS }` (newline- or semicolon-separated: the configuration and a
 * comment), or, where `command` is given (the `add` command, from its first token), the configuration without
 * braces or nothing for a counter. The kernel's refusals point at the whole command, or in a table block at the name.
 */
export function parseObjectBody(
  s: TokenStream,
  type: NamedObjectType,
  name: Named,
  command: Location | undefined,
): ObjectDef {
  const start = s.peek();
  const firstError = s.evalErrors.length;
  const bare = command !== undefined;
  let comment: string | undefined;
  let body: ObjectBody | undefined;
  if (s.isPunct('{')) {
    s.next();
    for (;;) {
      while (s.peek().kind === 'newline' || s.peek().kind === 'semicolon') s.next();
      if (s.acceptPunct('}') !== undefined) break;
      const word = s.peek();
      if (word.kind === 'word' && word.text === 'comment') {
        s.next();
        const text = s.peek();
        if (text.kind !== 'quoted' && text.kind !== 'word') s.fail(text, 'quoted string');
        s.next();
        if (new TextEncoder().encode(text.text).length > COMMENT_MAX)
          s.failAt(text.loc, 'comment too long, 128 characters maximum allowed');
        comment = text.text;
        continue;
      }
      body = parseConfig(s, type, start.loc);
    }
  } else if (!bare) s.fail(start, "'{'");
  else if (type !== 'counter' || s.isWord('packets')) body = parseConfig(s, type, start.loc);
  const loc = span(name.loc, s.previous().loc);
  // A command's errors run through the newline or semicolon that ends it (parser.ts: loc).
  const end = s.peek();
  const last = end.kind === 'newline' || end.kind === 'semicolon' ? end : s.previous();
  const kernelLoc = command === undefined ? name.loc : span(command, last.loc);
  for (let i = firstError; i < s.evalErrors.length; i++) {
    const error = s.evalErrors[i]!;
    if (error.message.startsWith('Could not process rule'))
      s.evalErrors[i] = errorAt(kernelLoc, error.message);
  }
  return { name, comment, body: body ?? emptyBody(type), loc };
}

function emptyBody(type: NamedObjectType): ObjectBody {
  if (type === 'counter') return { type, packets: 0, bytes: 0 };
  if (type === 'quota')
    return { type, quota: { kind: 'quota', bytes: 0, invert: false, consumed: { bytes: 0 } } };
  return {
    type,
    limit: {
      kind: 'limit',
      mode: 'packets',
      rate: 1,
      unit: 1,
      burst: 0,
      invert: false,
      bucket: { tokens: 0, last: -1 },
    },
  };
}

/** counter_config (`packets N bytes N`, in that order), quota_config, limit_config (`rate ...`). */
function parseConfig(s: TokenStream, type: NamedObjectType, from: Location): ObjectBody {
  switch (type) {
    case 'counter': {
      if (!s.isWord('packets')) s.fail(s.peek());
      s.next();
      const packets = s.number().value;
      s.expectWord('bytes', 'bytes');
      return { type, packets, bytes: s.number().value };
    }
    case 'quota':
      return { type, quota: parseQuotaConfig(s, from) };
    case 'limit':
      s.expectWord('rate', 'rate');
      return { type, limit: parseLimitConfig(s, from) };
  }
}

/** A new object from its declaration, its state its own. */
export function objectOf(def: ObjectDef, handle: number): NamedObject {
  const base = { name: def.name.name, handle, comment: def.comment };
  const body = def.body;
  switch (body.type) {
    case 'counter':
      return { ...base, type: 'counter', counter: { packets: body.packets, bytes: body.bytes } };
    case 'quota':
      return {
        ...base,
        type: 'quota',
        quota: { ...body.quota, consumed: { bytes: body.quota.consumed.bytes } },
      };
    case 'limit':
      return { ...base, type: 'limit', limit: { ...body.limit, bucket: { tokens: 0, last: -1 } } };
  }
}

/**
 * nf_tables_newobj on an object that exists without NLM_F_EXCL: a quota takes the new size and mode and keeps what
 * it consumed (nft_quota_obj_update); counters and limits have no update and stay as they are.
 */
export function updatedObject(existing: NamedObject, def: ObjectDef): NamedObject {
  if (existing.type !== 'quota' || def.body.type !== 'quota') return existing;
  return { ...existing, quota: { ...def.body.quota, consumed: existing.quota.consumed } };
}

/** Whether a rule of the table names the object (nf_tables_delobj's EBUSY: obj->use). */
export function objectInUse(table: Table, object: NamedObject): boolean {
  for (const chain of table.chains.values())
    for (const rule of chain.rules)
      for (const expr of rule.exprs)
        if (expr.kind === 'objref' && expr.type === object.type && expr.name === object.name) return true;
  return false;
}

/** The object's state as NFT_MSG_GETOBJ_RESET leaves it: a counter at zero, a quota with nothing consumed. */
export function resetObject(object: NamedObject): NamedObject {
  if (object.type === 'counter') return { ...object, counter: { packets: 0, bytes: 0 } };
  if (object.type === 'quota') return { ...object, quota: { ...object.quota, consumed: { bytes: 0 } } };
  return object;
}

// ---- listings ---------------------------------------------------------------------------------------------

export interface ObjectPrintOptions {
  readonly handles?: boolean | undefined;
  readonly stateless?: boolean | undefined;
}

/** One object as `nft list` prints it inside its table (rule.c: obj_print_declaration with tabs and newlines). */
export function objectText(object: NamedObject, options: ObjectPrintOptions): string {
  const handle = options.handles === true ? ` # handle ${object.handle}` : '';
  let text = `\t${object.type} ${object.name} {${handle}\n`;
  if (object.comment !== undefined) text += `\t\tcomment "${object.comment}"\n`;
  const stateless = options.stateless === true;
  switch (object.type) {
    case 'counter':
      if (!stateless) text += `\t\tpackets ${object.counter.packets} bytes ${object.counter.bytes}\n`;
      break;
    case 'quota':
      text += `\t\t${formatQuotaConfig(object.quota, stateless)}\n`;
      break;
    case 'limit':
      text += `\t\t${formatLimitConfig(object.limit)}\n`;
      break;
  }
  return `${text}\t}\n`;
}

/**
 * `nft list counters|quotas|limits [table T]` and `list counter T NAME` (rule.c: do_list_obj): every table that has
 * objects of any type, with its objects of this type (those of `name` only when one is given). A reset's cache
 * holds only the objects it reset (netlink_reset_objs), so `reset` skips the tables with none of them.
 */
export function printObjects(
  tables: readonly Table[],
  type: NamedObjectType,
  name: string | undefined,
  options: ObjectPrintOptions & { readonly reset?: boolean },
): string {
  let text = '';
  for (const table of tables) {
    const all = table.objects ?? [];
    const objects =
      options.reset === true
        ? all.filter((object) => object.type === type && (name === undefined || object.name === name))
        : all;
    if (objects.length === 0) continue;
    text += `table ${table.family} ${table.name} {\n`;
    for (const object of objects)
      if (object.type === type && (name === undefined || object.name === name))
        text += objectText(object, options);
    text += '}\n';
  }
  return text;
}

// ---- JSON -------------------------------------------------------------------------------------------------

type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };

/** statement.c: get_rate, as a value and its unit. */
function rateParts(amount: number): [number, string] {
  const [value, unit] = withDataUnit(amount).split(' ') as [string, string];
  return [Number(value), unit];
}

/** json.c: obj_print_json for counters, quotas and limits. */
export function objectJson(table: Table, object: NamedObject): Json {
  const body: Record<string, Json> = {
    family: table.family,
    name: object.name,
    table: table.name,
    handle: object.handle,
  };
  if (object.comment !== undefined) body.comment = object.comment;
  switch (object.type) {
    case 'counter':
      body.packets = object.counter.packets;
      body.bytes = object.counter.bytes;
      break;
    case 'quota':
      body.bytes = object.quota.bytes;
      body.used = Math.min(object.quota.consumed.bytes, object.quota.bytes);
      body.inv = object.quota.invert;
      break;
    case 'limit': {
      const limit = object.limit;
      const bytes = limit.mode === 'bytes';
      const [rate, rateUnit] = bytes ? rateParts(limit.rate) : [limit.rate, undefined];
      // parser_bison.y: limit_burst_pkts is 5 when none is given.
      const burstValue = !bytes && limit.burst === 0 ? 5 : limit.burst;
      const [burst, burstUnit] = bytes && burstValue !== 0 ? rateParts(burstValue) : [burstValue, undefined];
      body.rate = rate;
      body.per = PER[limit.unit] ?? 'second';
      if (limit.invert) body.inv = true;
      if (rateUnit !== undefined) body.rate_unit = rateUnit;
      if (burst !== 0) {
        body.burst = burst;
        if (burstUnit !== undefined) body.burst_unit = burstUnit;
      }
      break;
    }
  }
  return { [object.type]: body };
}

const PER: Readonly<Record<number, string>> = {
  1: 'second',
  60: 'minute',
  3600: 'hour',
  86400: 'day',
  604800: 'week',
};
