// `iptables -L` (xshared.c: print_header, print_rule_details, nft-ipv4.c: nft_ipv4_print_rule) and the rule
// echo of `-v` on changes; with iptables 1.8.9's quirk of numeric protocols under -n (`6` for tcp).

import type { Chain, Rule, Table } from '../ir.ts';
import { listAddrMask, protocolName } from './names.ts';
import type { RuleSpec } from './parser.ts';
import { ruleSpecOf } from './rule.ts';
import { TABLES } from './tables.ts';

export interface ListFormat {
  readonly numeric: boolean;
  readonly verbose: boolean;
  readonly exact: boolean;
  readonly lineNumbers: boolean;
  /** FMT_NOTABLE, as `-v` prints a rule it adds. */
  readonly notable?: boolean;
}

/** xtables_print_num: `123K`, padded to 5 (8 with -x), or bare in headers. */
export function printNum(value: number, format: { exact: boolean; notable: boolean }): string {
  if (format.exact) return format.notable ? `${value} ` : `${String(value).padStart(8)} `;
  let number = value;
  if (number <= 99999) return format.notable ? `${number} ` : `${String(number).padStart(5)} `;
  for (const unit of ['K', 'M', 'G']) {
    number = Math.floor((number + 500) / 1000);
    if (number <= 9999) return format.notable ? `${number}${unit} ` : `${String(number).padStart(4)}${unit} `;
  }
  number = Math.floor((number + 500) / 1000);
  return format.notable ? `${number}T ` : `${String(number).padStart(4)}T `;
}

function pad(text: string, width: number): string {
  return text.padEnd(width);
}

/** Rules of `table` that jump or go to `name` (the header's references). */
export function references(table: Table | undefined, name: string): number {
  let count = 0;
  if (table === undefined) return 0;
  for (const chain of table.chains.values())
    for (const rule of chain.rules)
      for (const expr of rule.exprs)
        if (expr.kind === 'verdict' && (expr.verdict.kind === 'jump' || expr.verdict.kind === 'goto'))
          if (expr.verdict.chain === name) count++;
  return count;
}

export function header(
  name: string,
  chain: Chain | undefined,
  builtin: boolean,
  table: Table | undefined,
  format: ListFormat,
): string {
  let text = `Chain ${name}`;
  if (builtin) {
    const policy = chain?.base?.policy === 'drop' ? 'DROP' : 'ACCEPT';
    text += ` (policy ${policy}`;
    if (format.verbose) {
      const counts = { exact: format.exact, notable: true };
      text += ` ${printNum(chain?.policyPackets ?? 0, counts)}packets, ${printNum(chain?.policyBytes ?? 0, counts)}bytes`;
    }
    text += ')\n';
  } else text += ` (${references(table, name)} references)\n`;
  if (format.lineNumbers) text += 'num  ';
  if (format.verbose)
    text += format.exact ? `${'pkts'.padStart(8)} ${'bytes'.padStart(10)} ` : ' pkts bytes ';
  text += `${pad('target', 9)} `;
  text += ' prot opt';
  if (format.verbose) text += ` ${pad('in', 6)} ${pad('out', 6)} `;
  text += ` ${pad('source', 19)} `;
  text += ` ${pad('destination', 19)} \n`;
  return text;
}

function targetName(spec: RuleSpec): string {
  const target = spec.target;
  if (target === undefined) return '';
  switch (target.kind) {
    case 'standard':
      return target.verdict;
    case 'jump':
    case 'goto':
      return target.chain;
    case 'xt':
      return target.target.listName;
  }
}

/** One rule line (without the newline). */
export function ruleLine(spec: RuleSpec, rule: Rule, num: number, format: ListFormat): string {
  const notable = format.notable === true;
  const fmt = (tab: string, plain: string): string => (notable ? plain : tab);
  let text = '';
  if (format.lineNumbers) text += fmt(`${pad(String(num), 4)} `, `${num} `);
  if (format.verbose && !notable) {
    const counts = { exact: format.exact, notable };
    text += printNum(rule.packets, counts) + printNum(rule.bytes, counts);
  }
  text += fmt(`${pad(targetName(spec), 9)} `, `${targetName(spec)} `);
  text += spec.protoInvert ? '!' : ' ';
  const name = protocolName(spec.proto);
  const showNumber = (format.numeric && !notable) || name === undefined;
  text += fmt(`${pad(showNumber ? String(spec.proto) : name, 4)} `, `${showNumber ? spec.proto : name} `);
  if (notable) text += 'opt ';
  text += spec.fragment === undefined ? '-- ' : spec.fragment.invert ? '!f ' : '-f ';
  if (format.verbose || notable) {
    const anyname = format.numeric || notable ? '*' : 'any';
    const iface = (sel: RuleSpec['iif']): string =>
      sel === undefined || sel.name === '+' ? anyname : `${sel.invert ? '!' : ''}${sel.name}`;
    text += fmt(` ${pad(iface(spec.iif), 6)} `, `in ${iface(spec.iif)} `);
    text += fmt(`${pad(iface(spec.oif), 6)} `, `out ${iface(spec.oif)} `);
  }
  const numeric = format.numeric || notable;
  text += spec.src?.invert && spec.src.mask !== 0 ? '!' : ' ';
  text += fmt(`${pad(listAddrMask(spec.src, numeric), 19)} `, `${listAddrMask(spec.src, numeric)} `);
  text += spec.dst?.invert && spec.dst.mask !== 0 ? '!' : ' ';
  text += fmt(`${pad(listAddrMask(spec.dst, numeric), 19)} `, `-> ${listAddrMask(spec.dst, numeric)}`);
  if (notable) text += '  ';
  if (spec.target?.kind === 'goto') text += '[goto] ';
  for (const match of spec.matches) text += match.print(numeric);
  if (spec.target?.kind === 'xt') text += spec.target.target.print(numeric);
  return text;
}

/** Built-in chains first (all of them, created or not), then user chains by name. */
export function chainOrder(
  tableName: string,
  table: Table | undefined,
): { name: string; builtin: boolean }[] {
  const builtins = (TABLES.get(tableName) ?? []).map((entry) => ({ name: entry.name, builtin: true }));
  const users =
    table === undefined ? [] : [...table.chains.values()].filter((chain) => chain.base === undefined);
  users.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return [...builtins, ...users.map((chain) => ({ name: chain.name, builtin: false }))];
}

/** `iptables -L [CHAIN [N]]`; `chain` must exist (checked by the caller). */
export function listChains(
  tableName: string,
  table: Table | undefined,
  chainName: string | undefined,
  ruleNum: number | undefined,
  format: ListFormat,
): string {
  const order = chainOrder(tableName, table).filter(
    (entry) => chainName === undefined || entry.name === chainName,
  );
  const blocks: string[] = [];
  for (const entry of order) {
    const chain = table?.chains.get(entry.name);
    const rules = chain?.rules ?? [];
    if (ruleNum !== undefined) {
      const rule = rules[ruleNum - 1];
      if (rule === undefined) return '';
      const spec = ruleSpecOf(rule, tableName);
      return spec === undefined ? '' : `${ruleLine(spec, rule, ruleNum, format)}\n`;
    }
    let text = header(entry.name, chain, entry.builtin, table, format);
    rules.forEach((rule, index) => {
      const spec = ruleSpecOf(rule, tableName);
      if (spec !== undefined) text += `${ruleLine(spec, rule, index + 1, format)}\n`;
    });
    blocks.push(text);
  }
  return blocks.join('\n');
}
