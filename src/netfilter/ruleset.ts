// A namespace's Netfilter configuration (every table, chain, rule and set) and the atomic transaction both front
// ends use to change it: work on a copy, swap it in only if every step succeeded (nfnetlink batches).

import {
  type BaseChainSpec,
  type Chain,
  type Family,
  JUMP_STACK_MAX,
  type NamedSet,
  type Rule,
  type Ruleset,
  type SetElement,
  type Table,
} from './ir.ts';

/** Why a change was refused, in the kernel's errno terms; front ends turn it into their own message. */
export type RulesetError =
  | { readonly errno: 'ENOENT'; readonly what: string }
  | { readonly errno: 'EEXIST'; readonly what: string }
  | { readonly errno: 'EBUSY'; readonly what: string }
  | { readonly errno: 'EINVAL'; readonly what: string }
  | { readonly errno: 'ELOOP'; readonly what: string };

/**
 * One change a committed transaction made, in the order the kernel notifies it (nf_tables_commit walks the
 * transaction list: each object as the batch created or deleted it; a table or chain deleted with its contents
 * first deletes their rules, then the table's sets, then its chains, as nft_flush_table does).
 */
export type RulesetEvent =
  | { readonly op: 'add' | 'delete'; readonly kind: 'table'; readonly table: Table }
  | { readonly op: 'add' | 'delete'; readonly kind: 'chain'; readonly table: Table; readonly chain: Chain }
  | { readonly op: 'add' | 'delete'; readonly kind: 'set'; readonly table: Table; readonly set: NamedSet }
  | {
      readonly op: 'add' | 'delete';
      readonly kind: 'element';
      readonly table: Table;
      readonly set: NamedSet;
      readonly element: SetElement;
    }
  | {
      readonly op: 'add' | 'delete';
      readonly kind: 'rule';
      readonly table: Table;
      readonly chain: Chain;
      readonly rule: Rule;
    };

/** What a commit tells ruleset watchers (`nft monitor`): its changes and the NFT_MSG_NEWGEN that closes them. */
export interface RulesetCommit {
  readonly events: readonly RulesetEvent[];
  /** The namespace's generation after the commit (1 before the first). */
  readonly generation: number;
  /** The committing process: its pid (a counter here) and its name (`nft`, `iptables`...). */
  readonly pid: number;
  readonly process: string;
}

/** The first simulated pid of a process that commits (the harness compares pids as `PID`). */
const FIRST_PID = 1000;

export class RulesetStore {
  private current: Ruleset = { tables: [], nextHandle: 1 };
  private generation = 1;
  private nextPid = FIRST_PID;
  /** Called after every committed change, so the engine re-sorts its hook registrations. */
  onCommit: (ruleset: Ruleset) => void = () => {};
  /** Whether an ipset of that name exists, as libxt_set asks the kernel when a rule names one (set by Netfilter). */
  setExists: ((name: string) => boolean) | undefined = undefined;
  /** `nft monitor`s: told of every commit. */
  readonly watchers = new Set<(commit: RulesetCommit) => void>();

  get ruleset(): Ruleset {
    return this.current;
  }

  /**
   * Runs `change` on a copy of the ruleset; commits it when `change` returns no error.
   * Rules and sets are shared with the copy (their counters keep counting); tables, chain
   * maps and rule lists are copied, so a failed transaction leaves the live ruleset as it was.
   */
  transaction(
    change: (draft: RulesetDraft) => RulesetError | undefined,
    options: {
      /** The committing process's name, for `nft monitor` (default `nft`). */
      readonly process?: string;
      /** Listings only: nft sends no batch, so the generation stays and no monitor hears of it. */
      readonly readOnly?: boolean;
    } = {},
  ): RulesetError | undefined {
    const draft = new RulesetDraft(copyRuleset(this.current), this.watchers.size > 0);
    const error = change(draft);
    if (error !== undefined) return error;
    const loop = draft.findLoop();
    if (loop !== undefined) return loop;
    this.current = draft.ruleset;
    this.onCommit(this.current);
    if (options.readOnly === true) return undefined;
    this.generation++;
    const pid = this.nextPid++;
    if (this.watchers.size > 0) {
      const commit: RulesetCommit = {
        events: draft.events,
        generation: this.generation,
        pid,
        process: options.process ?? 'nft',
      };
      for (const watcher of this.watchers) watcher(commit);
    }
    return undefined;
  }
}

function copyRuleset(ruleset: Ruleset): Ruleset {
  return {
    nextHandle: ruleset.nextHandle,
    tables: ruleset.tables.map((table) => ({
      ...table,
      chains: new Map(
        [...table.chains].map(([name, chain]) => [name, { ...chain, rules: [...chain.rules] }]),
      ),
      sets: new Map([...table.sets].map(([name, set]) => [name, { ...set, elements: [...set.elements] }])),
    })),
  };
}

/** The operations a transaction may perform, each returning an error instead of throwing. */
export class RulesetDraft {
  /** The changes so far, for `nft monitor` (see RulesetEvent); kept only while a monitor watches. */
  readonly events: RulesetEvent[] = [];

  constructor(
    readonly ruleset: Ruleset,
    private readonly recording = false,
  ) {}

  private note(event: RulesetEvent): void {
    if (this.recording) this.events.push(event);
  }

  /** Elements a front end added to a set of this draft. */
  elementsAdded(table: Table, set: NamedSet, elements: readonly SetElement[]): void {
    for (const element of elements) this.note({ op: 'add', kind: 'element', table, set, element });
  }

  /** Elements a front end deleted from a set of this draft (`delete element`, `flush set`). */
  elementsDeleted(table: Table, set: NamedSet, elements: readonly SetElement[]): void {
    for (const element of elements) this.note({ op: 'delete', kind: 'element', table, set, element });
  }

  /** nft_flush_table's notifications: every chain's rules, then the sets, then the chains. */
  private contentsDeleted(table: Table): void {
    for (const chain of table.chains.values()) this.rulesDeleted(table, chain);
    for (const set of table.sets.values()) this.note({ op: 'delete', kind: 'set', table, set });
    for (const chain of table.chains.values()) this.note({ op: 'delete', kind: 'chain', table, chain });
  }

  private rulesDeleted(table: Table, chain: Chain): void {
    for (const rule of chain.rules) this.note({ op: 'delete', kind: 'rule', table, chain, rule });
  }

  private tableOf(chain: Chain): Table | undefined {
    return this.ruleset.tables.find((table) => table.chains.get(chain.name) === chain);
  }

  /** nf_tables_alloc_handle: the next handle of the table (chains, rules and sets share it). */
  allocateHandle(table: Table): number {
    return table.nextHandle++;
  }

  table(family: Family, name: string): Table | undefined {
    return this.ruleset.tables.find((table) => table.family === family && table.name === name);
  }

  /** `add table` is idempotent; `create table` fails on an existing one. */
  addTable(
    family: Family,
    name: string,
    options: { exclusive?: boolean; iptables?: boolean } = {},
  ): Table | RulesetError {
    const existing = this.table(family, name);
    if (existing !== undefined)
      return options.exclusive ? { errno: 'EEXIST', what: `table ${family} ${name}` } : existing;
    const table: Table = {
      family,
      name,
      handle: this.ruleset.nextHandle++,
      chains: new Map(),
      sets: new Map(),
      iptables: options.iptables ?? false,
      nextHandle: 1,
    };
    this.ruleset.tables.push(table);
    this.note({ op: 'add', kind: 'table', table });
    return table;
  }

  deleteTable(family: Family, name: string): RulesetError | undefined {
    const index = this.ruleset.tables.findIndex((table) => table.family === family && table.name === name);
    if (index < 0) return { errno: 'ENOENT', what: `table ${family} ${name}` };
    const [table] = this.ruleset.tables.splice(index, 1);
    if (table !== undefined) {
      this.contentsDeleted(table);
      this.note({ op: 'delete', kind: 'table', table });
    }
    return undefined;
  }

  /** `add chain`: creates, or updates the policy of an existing base chain. */
  addChain(
    table: Table,
    name: string,
    base: BaseChainSpec | undefined,
    options: { exclusive?: boolean; comment?: string | undefined; counters?: boolean } = {},
  ): Chain | RulesetError {
    const existing = table.chains.get(name);
    if (existing !== undefined) {
      if (options.exclusive) return { errno: 'EEXIST', what: `chain ${table.family} ${table.name} ${name}` };
      if (base !== undefined) {
        if (
          existing.base === undefined ||
          existing.base.hook !== base.hook ||
          existing.base.type !== base.type
        )
          return { errno: 'EBUSY', what: `chain ${name}` };
        existing.base = { ...existing.base, policy: base.policy };
      }
      // nf_tables_updchain: an `add chain` of an existing chain is an update, notified like a creation.
      this.note({ op: 'add', kind: 'chain', table, chain: existing });
      return existing;
    }
    const chain: Chain = {
      name,
      handle: this.allocateHandle(table),
      base,
      rules: [],
      policyPackets: 0,
      policyBytes: 0,
      policyCounters: options.counters ?? true,
      // The kernel keeps the comment of the chain's creation: a later `add chain` with another is ignored.
      ...(options.comment !== undefined ? { comment: options.comment } : {}),
    };
    table.chains.set(name, chain);
    this.note({ op: 'add', kind: 'chain', table, chain });
    return chain;
  }

  /**
   * nf_tables_delchain: a chain that rules or map elements still jump to cannot go (EBUSY), even when the jump
   * is one of its own rules (chain->use counts them apart from the chain's rules). Its own rules go with it
   * (`recursive`, what nft sends), unless the request says NLM_F_NONREC (iptables-nft's -X): then a chain with
   * rules is EBUSY too.
   */
  deleteChain(table: Table, name: string, options: { recursive?: boolean } = {}): RulesetError | undefined {
    const chain = table.chains.get(name);
    if (chain === undefined) return { errno: 'ENOENT', what: `chain ${name}` };
    if ((chain.rules.length > 0 && options.recursive !== true) || this.referenced(table, name))
      return { errno: 'EBUSY', what: `chain ${name}` };
    this.rulesDeleted(table, chain);
    table.chains.delete(name);
    this.note({ op: 'delete', kind: 'chain', table, chain });
    return undefined;
  }

  /**
   * Appends (or inserts at `position`, 0-based) a rule; jump targets must exist. A replacement keeps the handle of
   * the rule it replaces (`handle`), as nf_tables_newrule does with NLM_F_REPLACE.
   */
  addRule(
    table: Table,
    chain: Chain,
    rule: Omit<Rule, 'handle' | 'packets' | 'bytes'> & { packets?: number; bytes?: number },
    position?: number,
    handle?: number,
  ): Rule | RulesetError {
    for (const target of jumpTargets(rule.exprs)) {
      const targetChain = table.chains.get(target);
      if (targetChain === undefined) return { errno: 'ENOENT', what: `chain ${target}` };
      if (targetChain.base !== undefined) return { errno: 'EINVAL', what: `jump to base chain ${target}` };
    }
    const added = makeRule(
      handle ?? this.allocateHandle(table),
      rule.exprs,
      rule.comment,
      rule.iptables,
      rule.packets ?? 0,
      rule.bytes ?? 0,
    );
    if (position === undefined || position >= chain.rules.length) chain.rules.push(added);
    else chain.rules.splice(Math.max(0, position), 0, added);
    this.note({ op: 'add', kind: 'rule', table, chain, rule: added });
    return added;
  }

  deleteRule(chain: Chain, handle: number): RulesetError | undefined {
    const index = chain.rules.findIndex((rule) => rule.handle === handle);
    if (index < 0) return { errno: 'ENOENT', what: `rule handle ${handle}` };
    const [rule] = chain.rules.splice(index, 1);
    const table = this.tableOf(chain);
    if (rule !== undefined && table !== undefined)
      this.note({ op: 'delete', kind: 'rule', table, chain, rule });
    return undefined;
  }

  flushChain(chain: Chain): void {
    const table = this.tableOf(chain);
    if (table !== undefined) this.rulesDeleted(table, chain);
    chain.rules = [];
  }

  addSet(table: Table, set: NamedSet, options: { exclusive?: boolean } = {}): NamedSet | RulesetError {
    const existing = table.sets.get(set.name);
    if (existing !== undefined)
      return options.exclusive ? { errno: 'EEXIST', what: `set ${set.name}` } : existing;
    table.sets.set(set.name, set);
    this.note({ op: 'add', kind: 'set', table, set });
    return set;
  }

  deleteSet(table: Table, name: string): RulesetError | undefined {
    const set = table.sets.get(name);
    if (set === undefined || !table.sets.delete(name)) return { errno: 'ENOENT', what: `set ${name}` };
    this.note({ op: 'delete', kind: 'set', table, set });
    return undefined;
  }

  private referenced(table: Table, name: string): boolean {
    for (const chain of table.chains.values())
      for (const rule of chain.rules) if (jumpTargets(rule.exprs).includes(name)) return true;
    for (const set of table.sets.values())
      for (const element of set.elements)
        if (element.data !== undefined && 'chain' in element.data && element.data.chain === name) return true;
    return false;
  }

  /**
   * nft_chain_validate from every base chain: a jump cycle reachable from a hook is refused (ELOOP), and so is
   * a chain reached at level NFT_JUMP_STACK_SIZE (16 jumps below the base chain: the kernel's `ctx->level ==
   * NFT_JUMP_STACK_SIZE` check, EMLINK, "Too many links"; 15 nested jumps is the most that loads). The error
   * is still reported as ELOOP: RulesetError has no EMLINK yet. Unreachable chains are not checked, as the
   * kernel validates only what a hook can reach.
   */
  findLoop(): RulesetError | undefined {
    for (const table of this.ruleset.tables) {
      const onPath = new Set<string>();
      // The longest jump path below each fully explored chain, so shared chains are walked once.
      const heightOf = new Map<string, number>();
      const height = (name: string): number | RulesetError => {
        const known = heightOf.get(name);
        if (known !== undefined) return known;
        if (onPath.has(name)) return { errno: 'ELOOP', what: `chain ${name}` };
        const chain = table.chains.get(name);
        if (chain === undefined) return 0;
        onPath.add(name);
        let longest = 0;
        for (const target of new Set(chainTargets(table, chain))) {
          const below = height(target);
          if (typeof below !== 'number') return below;
          longest = Math.max(longest, below + 1);
        }
        onPath.delete(name);
        heightOf.set(name, longest);
        return longest;
      };
      const visit = (name: string): RulesetError | undefined => {
        const below = height(name);
        if (typeof below !== 'number') return below;
        return below >= JUMP_STACK_MAX ? { errno: 'ELOOP', what: `chain ${name}` } : undefined;
      };
      for (const chain of table.chains.values()) {
        if (chain.base === undefined) continue;
        const error = visit(chain.name);
        if (error !== undefined) return error;
      }
    }
    return undefined;
  }
}

/**
 * Every rule of every namespace is built here, so all rules share one V8 hidden class and the chain loop stays
 * monomorphic (a spread of objects made with conditional spreads gave each rule its own). The expressions and the
 * iptables form may be shared between namespaces (the iptables-restore line cache interns them): they are immutable;
 * the handle and counters are the rule's own.
 */
export function makeRule(
  handle: number,
  exprs: Rule['exprs'],
  comment: string | undefined,
  iptables: Rule['iptables'],
  packets: number,
  bytes: number,
): Rule {
  return { handle, exprs, comment, iptables, packets, bytes };
}

/** Chains a rule's jump/goto verdicts name (not those inside maps). */
function jumpTargets(exprs: readonly Rule['exprs'][number][]): string[] {
  const targets: string[] = [];
  for (const expr of exprs)
    if (expr.kind === 'verdict' && (expr.verdict.kind === 'jump' || expr.verdict.kind === 'goto'))
      targets.push(expr.verdict.chain);
  return targets;
}

/** Every chain a chain can continue in: its jumps, and the verdicts of the maps its rules use. */
function chainTargets(table: Table, chain: Chain): string[] {
  const targets: string[] = [];
  for (const rule of chain.rules) {
    targets.push(...jumpTargets(rule.exprs));
    for (const expr of rule.exprs) {
      if (expr.kind !== 'vmap') continue;
      const elements =
        expr.map.kind === 'named' ? (table.sets.get(expr.map.name)?.elements ?? []) : expr.map.elements;
      for (const element of elements)
        if (element.data !== undefined && 'chain' in element.data) targets.push(element.data.chain);
    }
  }
  return targets;
}
