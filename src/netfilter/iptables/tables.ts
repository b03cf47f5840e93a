// The iptables tables and their built-in chains as iptables-nft creates them (nft.c: xtables_ipv4): family ip,
// base-chain types, hooks and priorities; created lazily, one chain at a time, as iptables-nft 1.8.9 does.

import type { BaseChainSpec, Chain, ChainType, HookName, Table } from '../ir.ts';
import type { RulesetDraft, RulesetError } from '../ruleset.ts';

export interface BuiltinChain {
  readonly name: string;
  readonly hook: HookName;
  readonly type: ChainType;
  readonly priority: number;
}

function chain(name: string, hook: HookName, type: ChainType, priority: number): BuiltinChain {
  return { name, hook, type, priority };
}

/** In iptables-save's table order (enum nft_table_type: mangle, security, raw, filter, nat). */
export const TABLES: ReadonlyMap<string, readonly BuiltinChain[]> = new Map([
  [
    'mangle',
    [
      chain('PREROUTING', 'prerouting', 'filter', -150),
      chain('INPUT', 'input', 'filter', -150),
      chain('FORWARD', 'forward', 'filter', -150),
      chain('OUTPUT', 'output', 'route', -150),
      chain('POSTROUTING', 'postrouting', 'filter', -150),
    ],
  ],
  [
    'security',
    [
      chain('INPUT', 'input', 'filter', 150),
      chain('FORWARD', 'forward', 'filter', 150),
      chain('OUTPUT', 'output', 'filter', 150),
    ],
  ],
  ['raw', [chain('PREROUTING', 'prerouting', 'filter', -300), chain('OUTPUT', 'output', 'filter', -300)]],
  [
    'filter',
    [
      chain('INPUT', 'input', 'filter', 0),
      chain('FORWARD', 'forward', 'filter', 0),
      chain('OUTPUT', 'output', 'filter', 0),
    ],
  ],
  [
    'nat',
    [
      chain('PREROUTING', 'prerouting', 'nat', -100),
      chain('INPUT', 'input', 'nat', 100),
      chain('OUTPUT', 'output', 'nat', -100),
      chain('POSTROUTING', 'postrouting', 'nat', 100),
    ],
  ],
]);

export function builtinChain(table: string, name: string): BuiltinChain | undefined {
  return TABLES.get(table)?.find((entry) => entry.name === name);
}

/** Whether `name` is a built-in chain of any table (INPUT, PREROUTING...). */
export function isBuiltinName(name: string): boolean {
  for (const chains of TABLES.values()) if (chains.some((entry) => entry.name === name)) return true;
  return false;
}

export function findTable(
  draft: { table(family: 'ip', name: string): Table | undefined },
  name: string,
): Table | undefined {
  return draft.table('ip', name);
}

/** The table, created (empty) when missing, as iptables-nft's first change to it does. */
export function ensureTable(draft: RulesetDraft, name: string): Table | RulesetError {
  return draft.addTable('ip', name, { iptables: true });
}

/** The chain, creating the table and, for a built-in chain, the base chain with policy accept. */
export function ensureBuiltin(
  draft: RulesetDraft,
  tableName: string,
  name: string,
): Chain | RulesetError | undefined {
  const spec = builtinChain(tableName, name);
  if (spec === undefined) return undefined;
  const table = ensureTable(draft, tableName);
  if ('errno' in table) return table;
  const existing = table.chains.get(name);
  if (existing !== undefined) return existing;
  const base: BaseChainSpec = { type: spec.type, hook: spec.hook, priority: spec.priority, policy: 'accept' };
  // nft_chain_builtin_add sends no counters: the chain counts its policy only once -P, -Z or a restore sets them.
  return draft.addChain(table, name, base, { counters: false });
}

/** The hooks each chain of `table` can be reached from (its own hook for base chains, through jumps for others). */
export function chainHooks(table: Table): Map<string, Set<HookName>> {
  const hooks = new Map<string, Set<HookName>>();
  for (const name of table.chains.keys()) hooks.set(name, new Set());
  const visit = (name: string, hook: HookName, depth: number): void => {
    const set = hooks.get(name);
    if (set === undefined || set.has(hook) || depth > 32) return;
    set.add(hook);
    const chain = table.chains.get(name);
    if (chain === undefined) return;
    for (const rule of chain.rules)
      for (const expr of rule.exprs)
        if (expr.kind === 'verdict' && (expr.verdict.kind === 'jump' || expr.verdict.kind === 'goto'))
          visit(expr.verdict.chain, hook, depth + 1);
  };
  for (const chain of table.chains.values())
    if (chain.base !== undefined) visit(chain.name, chain.base.hook, 0);
  return hooks;
}
