// `nft -j -f FILE` (libnftables' JSON input, parser_json.c) for what `nft -j list ruleset` prints: a listing's
// objects, bare or inside `{"add": {...}}`, and `{"flush": {"ruleset": null}}`, translated to nft commands and run as
// one transaction like any input (a map whose element jumps to a chain listed after it fails, as on nft 1.0.6).
// Errors print as libnftables prints JSON errors (`internal:0:0-0: Error: ...`). Not supported: other commands
// (delete, insert, replace...), expressions json-print.ts does not print, and JSON syntax errors' exact texts.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** A translation failure: what to say. */
export class JsonInputError {
  constructor(
    readonly message: string,
    /** The index in the `nftables` array of the command that failed, when one did. */
    readonly index?: number,
  ) {}
}

function fail(message: string): never {
  throw new JsonInputError(message);
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function only(value: Json | undefined): [string, Json] {
  if (!isObject(value)) return fail('Invalid JSON object');
  const entries = Object.entries(value);
  if (entries.length !== 1) return fail('Invalid JSON object');
  return entries[0]!;
}

function str(value: Json | undefined, what: string): string {
  if (typeof value !== 'string') return fail(`Invalid ${what}`);
  return value;
}

function quoted(text: string): string {
  return `"${text}"`;
}

// ---- values and expressions -------------------------------------------------------------------------------

function leftText(value: Json): string {
  const [kind, body] = only(value);
  if (!isObject(body) && !Array.isArray(body)) return fail(`unsupported expression ${kind}`);
  switch (kind) {
    case 'payload':
      return `${str((body as JsonObject).protocol, 'payload')} ${str((body as JsonObject).field, 'payload')}`;
    case 'meta':
      return `meta ${str((body as JsonObject).key, 'meta')}`;
    case 'ct': {
      const ct = body as JsonObject;
      const dir = ct.dir === undefined ? '' : `${str(ct.dir, 'ct direction')} `;
      return `ct ${dir}${str(ct.key, 'ct')}`;
    }
    case 'fib': {
      const fib = body as JsonObject;
      const flags = Array.isArray(fib.flags)
        ? fib.flags.map((flag) => str(flag, 'fib flag'))
        : [str(fib.flags, 'fib flag')];
      return `fib ${flags.join(' . ')} ${str(fib.result, 'fib result')}`;
    }
    case 'numgen': {
      const numgen = body as JsonObject;
      const offset =
        typeof numgen.offset === 'number' && numgen.offset !== 0 ? ` offset ${numgen.offset}` : '';
      return `numgen ${str(numgen.mode, 'numgen mode')} mod ${String(numgen.mod)}${offset}`;
    }
    case 'concat':
      if (!Array.isArray(body)) return fail('Invalid concat');
      return body.map(leftText).join(' . ');
    case '&':
    case '|':
    case '^': {
      if (!Array.isArray(body) || body.length !== 2 || typeof body[1] !== 'number')
        return fail(`Invalid ${kind}`);
      const word = kind === '&' ? 'and' : kind === '|' ? 'or' : 'xor';
      return `${leftText(body[0]!)} ${word} ${body[1]}`;
    }
    default:
      return fail(`unsupported expression ${kind}`);
  }
}

function isStringTyped(left: string): boolean {
  return /(^|\s)(iifname|oifname)$/.test(left);
}

function valueText(value: Json, strings: boolean): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return strings ? quoted(value) : value;
  if (Array.isArray(value)) return value.map((item) => valueText(item, strings)).join(',');
  const [kind, body] = only(value);
  switch (kind) {
    case 'prefix':
      if (!isObject(body)) return fail('Invalid prefix');
      return `${valueText(body.addr ?? null, false)}/${String(body.len)}`;
    case 'range':
      if (!Array.isArray(body) || body.length !== 2) return fail('Invalid range');
      return `${valueText(body[0]!, strings)}-${valueText(body[1]!, strings)}`;
    case 'concat':
      if (!Array.isArray(body)) return fail('Invalid concat');
      return body.map((part) => valueText(part, false)).join(' . ');
    case 'set':
      if (!Array.isArray(body)) return fail('Invalid set');
      return `{ ${body.map((item) => elementText(item, strings)).join(', ')} }`;
    default:
      return fail(`unsupported value ${kind}`);
  }
}

function verdictText(value: Json): string {
  const [kind, body] = only(value);
  switch (kind) {
    case 'accept':
    case 'drop':
    case 'continue':
    case 'return':
      return kind;
    case 'jump':
    case 'goto':
      if (!isObject(body)) return fail('Invalid verdict');
      return `${kind} ${str(body.target, 'verdict')}`;
    default:
      return fail(`unsupported verdict ${kind}`);
  }
}

const VERDICTS = new Set(['accept', 'drop', 'continue', 'return', 'jump', 'goto']);

function isVerdict(value: Json): boolean {
  return isObject(value) && Object.keys(value).length === 1 && VERDICTS.has(Object.keys(value)[0]!);
}

/** A set element: a value, `{"elem": {"val": ..., options}}`, or a map's `[key, data]`. */
function elementText(item: Json, strings: boolean): string {
  if (
    Array.isArray(item) &&
    item.length === 2 &&
    !(typeof item[0] === 'string' && typeof item[1] === 'string')
  ) {
    const [key, data] = item as [Json, Json];
    return `${elementText(key, strings)} : ${isVerdict(data) ? verdictText(data) : valueText(data, false)}`;
  }
  if (isObject(item) && 'elem' in item) {
    const elem = item.elem;
    if (!isObject(elem)) return fail('Invalid set element');
    let text = valueText(elem.val ?? null, strings);
    const counter = elem.counter;
    if (isObject(counter))
      text += ` counter packets ${String(counter.packets)} bytes ${String(counter.bytes)}`;
    if (typeof elem.timeout === 'number') text += ` timeout ${elem.timeout}s`;
    if (typeof elem.expires === 'number') text += ` expires ${elem.expires}s`;
    if (typeof elem.comment === 'string') text += ` comment ${quoted(elem.comment)}`;
    return text;
  }
  return valueText(item, strings);
}

function statementText(value: Json): string {
  if (isVerdict(value)) return verdictText(value);
  const [kind, body] = only(value);
  switch (kind) {
    case 'match': {
      if (!isObject(body)) return fail('Invalid match');
      const left = leftText(body.left ?? null);
      const right = body.right ?? null;
      const op = str(body.op, 'match operator');
      const rightText =
        typeof right === 'string' && right.startsWith('@') ? right : valueText(right, isStringTyped(left));
      const binop = isObject(body.left ?? null) && ['&', '|', '^'].includes(only(body.left ?? null)[0]);
      if (op === 'in' || (op === '==' && !binop)) return `${left} ${rightText}`;
      return `${left} ${op} ${rightText}`;
    }
    case 'vmap': {
      if (!isObject(body)) return fail('Invalid vmap');
      const data = body.data ?? null;
      const dataText = typeof data === 'string' ? data : valueText(data, false);
      return `${leftText(body.key ?? null)} vmap ${dataText}`;
    }
    case 'counter':
      if (body === null) return 'counter';
      if (!isObject(body)) return fail('Invalid counter');
      return `counter packets ${String(body.packets)} bytes ${String(body.bytes)}`;
    case 'mangle': {
      if (!isObject(body)) return fail('Invalid mangle');
      const value = body.value ?? null;
      const valueWords = typeof value === 'number' ? String(value) : leftText(value);
      return `${leftText(body.key ?? null)} set ${valueWords}`;
    }
    case 'masquerade': {
      if (body === null) return 'masquerade';
      if (!isObject(body)) return fail('Invalid masquerade');
      const flags = body.flags;
      const names = Array.isArray(flags) ? flags.map((flag) => str(flag, 'flag')) : [str(flags, 'flag')];
      return `masquerade ${names.join(',')}`;
    }
    case 'dnat':
    case 'snat': {
      if (!isObject(body)) return fail(`Invalid ${kind}`);
      const port = body.port === undefined ? '' : `:${String(body.port)}`;
      return `${kind} to ${str(body.addr, kind)}${port}`;
    }
    case 'set': {
      if (!isObject(body)) return fail('Invalid set statement');
      return `${str(body.op, 'set statement')} ${str(body.set, 'set statement')} { ${leftText(body.elem ?? null)} }`;
    }
    default:
      return fail(`unsupported statement ${kind}`);
  }
}

// ---- objects ----------------------------------------------------------------------------------------------

function where(body: JsonObject): string {
  return `${str(body.family, 'family')} ${str(body.table, 'table')}`;
}

function setCommand(body: JsonObject, map: boolean): string {
  const type = body.type;
  const types = Array.isArray(type) ? type.map((t) => str(t, 'set type')) : [str(type, 'set type')];
  const parts = [`type ${types.join(' . ')}${map ? ` : ${str(body.map, 'map type')}` : ''}`];
  if (Array.isArray(body.flags) && body.flags.length > 0)
    parts.push(`flags ${body.flags.map((flag) => str(flag, 'flag')).join(',')}`);
  if (typeof body.timeout === 'number') parts.push(`timeout ${body.timeout}s`);
  if (typeof body['gc-interval'] === 'number') parts.push(`gc-interval ${body['gc-interval']}s`);
  if (typeof body.size === 'number') parts.push(`size ${body.size}`);
  // parser_json.c 1.0.6 (json_parse_cmd_add_set) reads no set comment: it is dropped.
  if (Array.isArray(body.stmt) && body.stmt.some((stmt) => isObject(stmt) && 'counter' in stmt))
    parts.push('counter');
  const strings = types.length === 1 && types[0] === 'ifname';
  if (Array.isArray(body.elem) && body.elem.length > 0)
    parts.push(`elements = { ${body.elem.map((item) => elementText(item, strings)).join(', ')} }`);
  return `add ${map ? 'map' : 'set'} ${where(body)} ${str(body.name, 'set name')} { ${parts.join('; ')}; }`;
}

function chainCommand(body: JsonObject): string {
  const name = `add chain ${where(body)} ${str(body.name, 'chain name')}`;
  if (body.type === undefined) return name;
  return `${name} { type ${str(body.type, 'chain type')} hook ${str(body.hook, 'hook')} priority ${String(body.prio)}; policy ${str(body.policy ?? 'accept', 'policy')}; }`;
}

function ruleCommand(body: JsonObject): string {
  if (!Array.isArray(body.expr)) return fail('Invalid rule');
  let text = `add rule ${where(body)} ${str(body.chain, 'chain')} ${body.expr.map(statementText).join(' ')}`;
  if (typeof body.comment === 'string') text += ` comment ${quoted(body.comment)}`;
  return text;
}

function objectCommand(kind: string, body: Json): string | undefined {
  if (kind === 'metainfo') return undefined;
  if (!isObject(body)) return fail('Invalid JSON object');
  switch (kind) {
    case 'table':
      return `add table ${str(body.family, 'family')} ${str(body.name, 'table name')}`;
    case 'chain':
      return chainCommand(body);
    case 'set':
    case 'map':
      return setCommand(body, kind === 'map');
    case 'rule':
      return ruleCommand(body);
    default:
      return fail('Unknown object passed to add command.');
  }
}

/** The nft commands a JSON input stands for, one per line; or what is wrong with it. */
export function jsonToCommands(text: string): string | JsonInputError {
  let root: Json;
  try {
    root = JSON.parse(text) as Json;
  } catch {
    return new JsonInputError('JSON input could not be parsed');
  }
  try {
    if (!isObject(root) || !Array.isArray(root.nftables)) return fail('No nftables array in JSON input');
    const lines: string[] = [];
    for (const [index, item] of root.nftables.entries()) {
      try {
        const line = commandLine(item);
        if (line !== undefined) lines.push(line);
      } catch (failure) {
        if (failure instanceof JsonInputError) return new JsonInputError(failure.message, index);
        throw failure;
      }
    }
    return `${lines.join('\n')}\n`;
  } catch (failure) {
    if (failure instanceof JsonInputError) return failure;
    throw failure;
  }
}

/** One item of the `nftables` array as an nft command (undefined for metainfo). */
function commandLine(item: Json): string | undefined {
  const [kind, body] = only(item);
  if (kind === 'add') {
    const [object, inner] = only(body);
    return objectCommand(object, inner);
  }
  if (kind === 'flush') {
    const [object] = only(body);
    if (object !== 'ruleset') return fail(`unsupported command flush ${object}`);
    return 'flush ruleset';
  }
  return objectCommand(kind, body);
}
