// Flowtables in nft's grammar and listing (parser_bison.y: flowtable_block, flow_stmt; rule.c:
// flowtable_print_declaration; statement.c: flow_offload_stmt_print): `flowtable ft { hook ingress priority P;
// devices = { a, b }; counter; }`, `flow add @ft` (and the older `flow offload @ft`, listed as `flow add`), and the
// checks the kernel makes (a flowtable only in ip, ip6 and inet tables; `flow add` only in forward chains).
// Not modelled: `flags offload` (hardware offload), a flowtable without devices that devices join later.

import type { Family, Flowtable, Table } from '../ir.ts';
import type { FlowtableDef, Named } from './ast.ts';
import { formatFamilyPriority } from './families.ts';
import { errorAt, span } from './location.ts';
import type { TokenStream } from './stream.ts';

/** The body of `flowtable NAME { ... }`, from its `{` on. */
export function parseFlowtableBlock(s: TokenStream, name: Named): FlowtableDef {
  const start = s.peek();
  s.expectPunct('{', "'{'");
  let priority: number | undefined;
  let devices: string[] = [];
  let counter = false;
  for (;;) {
    while (s.peek().kind === 'newline' || s.peek().kind === 'semicolon') s.next();
    if (s.acceptPunct('}') !== undefined) break;
    const word = s.next();
    switch (word.text) {
      case 'hook': {
        const hook = s.next();
        if (hook.text !== 'ingress') s.report(errorAt(hook.loc, 'unknown chain hook'));
        s.expectWord('priority');
        priority = flowtablePriority(s);
        break;
      }
      case 'devices':
        s.expectPunct('=', "'='");
        devices = deviceList(s);
        break;
      case 'counter':
        counter = true;
        break;
      case 'flags': {
        const flag = s.next();
        s.report(errorAt(span(word.loc, flag.loc), 'flowtable flags are not supported by packetlab'));
        break;
      }
      default:
        s.fail(word);
    }
  }
  const loc = span(start.loc, s.previous().loc);
  if (priority === undefined)
    s.report(errorAt(name.loc, 'missing hook and priority in flowtable declaration'));
  return { name, priority: priority ?? 0, devices, counter, loc };
}

/** A number, `-N`, or `filter [+|- N]` (netdev priorities: filter is 0). */
function flowtablePriority(s: TokenStream): number {
  const token = s.peek();
  if (token.kind === 'punct' && token.text === '-') {
    s.next();
    return -s.number().value;
  }
  if (token.kind === 'number') return s.next().value;
  const name = s.next();
  if (name.text !== 'filter')
    s.report(errorAt(name.loc, 'invalid priority expression value in this context.'));
  const sign = s.peek();
  if (sign.kind === 'punct' && (sign.text === '+' || sign.text === '-')) {
    s.next();
    const offset = s.number().value;
    return sign.text === '-' ? -offset : offset;
  }
  return 0;
}

function deviceList(s: TokenStream): string[] {
  s.expectPunct('{', "'{'");
  const names: string[] = [];
  for (;;) {
    const token = s.next();
    if (token.kind !== 'word' && token.kind !== 'quoted') s.fail(token, 'string');
    names.push(token.text);
    if (s.acceptPunct(',') === undefined) break;
    if (s.isPunct('}')) break;
  }
  s.expectPunct('}', "comma or '}'");
  return [...new Set(names)].sort();
}

/** nf_tables_newflowtable: the families with a flowtable type (nf_flow_table_inet, _ipv4, _ipv6). */
export function familyHasFlowtables(family: Family): boolean {
  return family === 'ip' || family === 'ip6' || family === 'inet';
}

export function flowtableOf(def: FlowtableDef, handle: number): Flowtable {
  return { name: def.name.name, handle, priority: def.priority, devices: def.devices, counter: def.counter };
}

/** One flowtable as `nft list` prints it inside its table. */
export function flowtableText(flowtable: Flowtable, options: { handles?: boolean }): string {
  const handle = options.handles ? ` # handle ${flowtable.handle}` : '';
  let text = `\tflowtable ${flowtable.name} {${handle}\n`;
  // prio2str(NFPROTO_NETDEV, ...): netdev names its priorities.
  text += `\t\thook ingress priority ${formatFamilyPriority('netdev', 'ingress', flowtable.priority)}\n`;
  if (flowtable.devices.length > 0) text += `\t\tdevices = { ${flowtable.devices.join(', ')} }\n`;
  if (flowtable.counter) text += '\t\tcounter\n';
  return `${text}\t}\n`;
}

/** `nft list flowtables`: every table with its flowtables. */
export function printFlowtables(tables: readonly Table[], options: { handles?: boolean }): string {
  return tables
    .map((table) => {
      let text = `table ${table.family} ${table.name} {\n`;
      for (const flowtable of table.flowtables ?? []) text += flowtableText(flowtable, options);
      return `${text}}\n`;
    })
    .join('');
}
