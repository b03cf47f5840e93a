// Runs parsed nft commands against a namespace's ruleset in one transaction, as nft sends one netlink batch:
// every command is checked against the ruleset as earlier commands left it (nft's cache), and any error
// leaves the ruleset untouched. Errors carry nft's messages: its evaluation errors ("did you mean ...") and the
// kernel's errno strings ("Could not process rule: No such file or directory").

import { strerror } from '../../core/errno.ts';
import { findObject } from '../expr/objref.ts';
import {
  clearElements,
  hasSetIndex,
  pushElement,
  removeElementAt,
  setIndexOf,
  shareSetIndex,
} from '../expr/set-index.ts';
import type { Chain, Family, NamedObjectType, NamedSet, Rule, Ruleset, SetElement, Table } from '../ir.ts';
import type { RulesetDraft, RulesetError, RulesetStore } from '../ruleset.ts';
import type {
  ChainDef,
  Command,
  FlowtableDef,
  Named,
  ParsedRule,
  RawElement,
  SetDef,
  TableRef,
} from './ast.ts';
import { fibRefusedIn } from './expr-fib.ts';
import { rtRefusedIn } from './expr-rt.ts';
import { socketRefusedIn } from './expr-socket.ts';
import { kernelRefusesHook } from './families.ts';
import { familyHasFlowtables, flowtableOf, flowtableText, printFlowtables } from './flowtables.ts';
import { type ErrorRecord, errorAt, type Location } from './location.ts';
import { Misspell } from './misspell.ts';
import {
  type ObjectDef,
  objectInUse,
  objectOf,
  printObjects,
  resetObject,
  updatedObject,
} from './objects.ts';
import {
  type PrintOptions,
  printChain,
  printChains,
  printRuleset,
  printSet,
  printSets,
  printTable,
  printTables,
} from './printer.ts';
import { autoMerge, elementCounter, getElements } from './set-elements.ts';
import { tproxyRefusedIn } from './stmt-tproxy.ts';
import { fromDataType, type NftType } from './types.ts';
import { DESCRIPTIONS, isErrorRecord, resolveValue } from './values.ts';

export interface ApplyOptions {
  /** `nft -c`: check everything, change nothing. */
  readonly check: boolean;
  /** `nft -a`: listings show handles. */
  readonly handles: boolean;
  /** Virtual ns now, for the time set elements have left. */
  readonly now?: number | undefined;
  /** `nft -s`: listings without counter values. */
  readonly stateless?: boolean | undefined;
  /** The device names interface indexes list as (if_indextoname); absent: indexes list as numbers. */
  readonly ifname?: ((ifindex: number) => string | undefined) | undefined;
}

export interface ApplyResult {
  readonly stdout: string;
  /** Warnings nft prints on stderr with listings (tables iptables-nft manages). */
  readonly warnings: string;
  readonly error: ErrorRecord | undefined;
}

function kernelError(
  loc: Location,
  errno: 'ENOENT' | 'EEXIST' | 'EBUSY' | 'EINVAL' | 'EOPNOTSUPP' | 'ELOOP' | 'ENFILE',
): ErrorRecord {
  return errorAt(loc, `Could not process rule: ${strerror(errno)}`);
}

/** Aborts the transaction after a check-only run. */
const CHECKED: RulesetError = { errno: 'EINVAL', what: 'nft -c' };

export function applyCommands(
  store: RulesetStore,
  commands: readonly Command[],
  options: ApplyOptions,
): ApplyResult {
  const runner = new Runner(options, store.ruleset);
  let lastLoc: Location | undefined;
  const result = store.transaction(
    (draft) => {
      for (const command of commands) {
        lastLoc = command.loc;
        const error = runner.run(draft, command);
        if (error !== undefined) {
          runner.failure = error;
          return CHECKED;
        }
      }
      if (options.check) {
        const loop = draft.findLoop();
        if (loop !== undefined && lastLoc !== undefined) runner.failure = kernelError(lastLoc, 'ELOOP');
        return CHECKED;
      }
      return undefined;
    },
    {
      readOnly: commands.every(
        (command) =>
          command.kind.startsWith('list-') ||
          command.kind.startsWith('reset-') ||
          command.kind === 'get-element',
      ),
    },
  );
  if (runner.failure !== undefined) return { stdout: '', warnings: '', error: runner.failure };
  if (result === undefined) carrySetIndexes(runner.committed, store.ruleset);
  if (result !== undefined && result !== CHECKED && lastLoc !== undefined)
    return {
      stdout: '',
      warnings: '',
      error: kernelError(lastLoc, result.errno === 'ELOOP' ? 'ELOOP' : 'EINVAL'),
    };
  return { stdout: runner.stdout, warnings: runner.warnings, error: undefined };
}

class Runner {
  stdout = '';
  warnings = '';
  failure: ErrorRecord | undefined;
  private readonly print: PrintOptions;
  private readonly now: number | undefined;

  constructor(
    options: ApplyOptions,
    /** The ruleset before this input: nft's cache of what the kernel already has. */
    readonly committed: Ruleset,
  ) {
    this.now = options.now;
    this.print = {
      handles: options.handles,
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.stateless === true ? { stateless: true } : {}),
      ...(options.ifname === undefined ? {} : { ifname: options.ifname }),
    };
  }

  run(draft: RulesetDraft, command: Command): ErrorRecord | undefined {
    switch (command.kind) {
      case 'add-table':
        return this.addTable(draft, command);
      case 'delete-table': {
        const error = draft.deleteTable(family(command.ref), command.ref.table.name);
        return error === undefined ? undefined : kernelError(command.ref.table.loc, 'ENOENT');
      }
      case 'flush-table': {
        const table = this.table(draft, command.ref, 'kernel');
        if (isErrorRecord(table)) return table;
        for (const chain of table.chains.values()) draft.flushChain(chain);
        return undefined;
      }
      case 'list-table': {
        const table = this.table(draft, command.ref, 'plain');
        if (isErrorRecord(table)) return table;
        this.output([table], printTable(table, this.print));
        return undefined;
      }
      case 'add-chain': {
        const table = this.table(draft, command.ref, 'plain');
        if (isErrorRecord(table)) return table;
        const chain = this.addChain(draft, table, command.chain, command.exclusive, command.loc);
        if (isErrorRecord(chain)) return chain;
        for (const rule of command.chain.rules) {
          const error = this.addRule(draft, table, chain, rule, undefined, rule.loc);
          if (error !== undefined) return error;
        }
        return undefined;
      }
      case 'delete-chain': {
        const table = this.table(draft, command.ref, 'rule', command.chain);
        if (isErrorRecord(table)) return table;
        // nft's delete takes the chain's rules with it (no NLM_F_NONREC).
        const error = draft.deleteChain(table, command.chain.name, { recursive: true });
        if (error === undefined) return undefined;
        return kernelError(command.chain.loc, error.errno === 'EBUSY' ? 'EBUSY' : 'ENOENT');
      }
      case 'flush-chain':
      case 'list-chain': {
        const table = this.table(draft, command.ref, command.kind === 'list-chain' ? 'plain' : 'kernel');
        if (isErrorRecord(table)) return table;
        const chain = table.chains.get(command.chain.name);
        if (chain === undefined)
          return command.kind === 'list-chain'
            ? errorAt(command.chain.loc, strerror('ENOENT'))
            : kernelError(command.chain.loc, 'ENOENT');
        if (command.kind === 'flush-chain') draft.flushChain(chain);
        else this.output([table], printChain(table, chain.name, this.print));
        return undefined;
      }
      case 'add-rule':
        return this.ruleCommand(draft, command);
      case 'delete-rule': {
        const table = this.table(draft, command.ref, 'rule', command.chain);
        if (isErrorRecord(table)) return table;
        const chain = this.chain(table, command.chain, draft);
        if (isErrorRecord(chain)) return chain;
        const error = draft.deleteRule(chain, command.handle.value);
        return error === undefined ? undefined : kernelError(command.handle.loc, 'ENOENT');
      }
      case 'add-set': {
        const table = this.table(draft, command.ref, 'plain');
        if (isErrorRecord(table)) return table;
        return this.addSet(draft, table, command.set, command.exclusive);
      }
      case 'delete-set':
      case 'flush-set':
      case 'list-set':
        return this.setCommand(draft, command);
      case 'add-element':
      case 'create-element':
      case 'delete-element':
        return this.elementCommand(draft, command);
      case 'get-element': {
        const table = this.table(draft, command.ref, 'plain');
        if (isErrorRecord(table)) return table;
        const set = table.sets.get(command.set.name);
        if (set === undefined) return errorAt(command.set.loc, strerror('ENOENT'));
        const found = getElements(set, command.elements);
        if (isErrorRecord(found)) return found;
        if (found === undefined) return kernelError(command.loc, 'ENOENT');
        this.output([table], printSet(table, { ...set, elements: found }, this.print));
        return undefined;
      }
      case 'flush-ruleset':
        for (const table of [...draft.ruleset.tables])
          if (command.family === undefined || table.family === command.family)
            draft.deleteTable(table.family, table.name);
        return undefined;
      case 'list-ruleset':
        this.output(
          draft.ruleset.tables.filter((t) => command.family === undefined || t.family === command.family),
          printRuleset(draft.ruleset, { ...this.print, family: command.family }),
        );
        return undefined;
      case 'list-tables':
        this.stdout += printTables(draft.ruleset, command.family);
        return undefined;
      case 'list-flowtables':
        this.stdout += printFlowtables(
          draft.ruleset.tables.filter((t) => command.family === undefined || t.family === command.family),
          this.print,
        );
        return undefined;
      case 'add-flowtable':
      case 'delete-flowtable':
      case 'list-flowtable':
        return this.flowtableCommand(draft, command);
      case 'add-object':
      case 'delete-object':
      case 'list-object':
      case 'reset-object':
        return this.objectCommand(draft, command);
      case 'list-objects':
      case 'reset-objects':
        return this.objectsCommand(draft, command);
      case 'list-chains':
        this.stdout += printChains(draft.ruleset, { ...this.print, family: command.family });
        return undefined;
      case 'list-sets':
      case 'list-maps':
        this.stdout += printSets(draft.ruleset, {
          ...this.print,
          family: command.family,
          maps: command.kind === 'list-maps',
        });
        return undefined;
    }
  }

  /** Listing output, with nft's warning for each table iptables-nft manages. */
  private output(tables: readonly Table[], text: string): void {
    this.stdout += text;
    for (const table of tables)
      if (table.iptables)
        this.warnings += `# Warning: table ${table.family} ${table.name} is managed by iptables-nft, do not touch!\n`;
  }

  // ---- lookups with nft's suggestions -------------------------------------------------------------------------

  /**
   * The table a command names. When it is missing, nft 1.0.6 answers in three ways (evaluate.c): rule commands
   * look for a chain of that name in every table and suggest its table; chain, set, element and list commands
   * suggest a table with a close name or fail in nft itself; the rest reach the kernel (ENOENT).
   */
  private table(
    draft: RulesetDraft,
    ref: TableRef,
    mode: 'rule' | 'plain' | 'kernel',
    chain?: Named,
  ): Table | ErrorRecord {
    const table = draft.table(family(ref), ref.table.name);
    if (table !== undefined) return table;
    if (mode === 'kernel') return kernelError(ref.table.loc, 'ENOENT');
    if (mode === 'rule') {
      const found = chain === undefined ? undefined : chainLookupFuzzy(draft, chain.name);
      if (found === undefined) return kernelError(ref.table.loc, 'ENOENT');
      return errorAt(
        ref.table.loc,
        `${strerror('ENOENT')}; did you mean table ‘${found.table.name}’ in family ${found.table.family}?`,
      );
    }
    const misspell = new Misspell<Table>();
    for (const candidate of draft.ruleset.tables) {
      if (candidate.name === ref.table.name) {
        misspell.best = candidate;
        break;
      }
      misspell.update(candidate.name, ref.table.name, candidate);
    }
    const best = misspell.best;
    if (best === undefined) return errorAt(ref.table.loc, strerror('ENOENT'));
    return errorAt(
      ref.table.loc,
      `${strerror('ENOENT')}; did you mean table ‘${best.name}’ in family ${best.family}?`,
    );
  }

  /** The chain a rule command names; a close name in the same table is suggested, anything else is the kernel's ENOENT. */
  private chain(table: Table, name: Named, draft: RulesetDraft): Chain | ErrorRecord {
    const chain = table.chains.get(name.name);
    if (chain !== undefined) return chain;
    const found = chainLookupFuzzy(draft, name.name);
    if (found === undefined || found.table !== table) return kernelError(name.loc, 'ENOENT');
    return errorAt(
      name.loc,
      `${strerror('ENOENT')}; did you mean chain ‘${found.chain}’ in table ${table.family} ‘${table.name}’?`,
    );
  }

  /** A jump target: nft suggests the closest chain of any table. */
  /**
   * The kernel's ENOENT for a rule, with nft's hint (netlink.c: nft_cmd_enoent): the chain closest to the rule's own
   * chain's name, unless that is the chain itself. A one-letter name never matches itself (misspell.c), so a rule in
   * chain `c` gets "did you mean chain ‘c2’".
   */
  private kernelEnoent(draft: RulesetDraft, table: Table, chain: Chain, loc: Location): ErrorRecord {
    const misspell = new Misspell<{ table: Table; chain: string }>();
    for (const candidate of draft.ruleset.tables)
      for (const name of candidate.chains.keys())
        misspell.update(name, chain.name, { table: candidate, chain: name });
    const best = misspell.best;
    if (best === undefined || (best.table === table && best.chain === chain.name))
      return kernelError(loc, 'ENOENT');
    return errorAt(
      loc,
      `${strerror('ENOENT')}; did you mean chain ‘${best.chain}’ in table ${best.table.family} ‘${best.table.name}’?`,
    );
  }

  private setNotFound(draft: RulesetDraft, name: Named): ErrorRecord {
    const misspell = new Misspell<{ table: Table; set: string }>();
    for (const candidate of draft.ruleset.tables)
      for (const set of candidate.sets.keys()) misspell.update(set, name.name, { table: candidate, set });
    const best = misspell.best;
    if (best === undefined) return errorAt(name.loc, strerror('ENOENT'));
    return errorAt(
      name.loc,
      `${strerror('ENOENT')}; did you mean set ‘${best.set}’ in table ${best.table.family} ‘${best.table.name}’?`,
    );
  }

  /**
   * nf_tables_newrule numbers a rule before its expressions' init runs, and an aborted batch does not give the
   * handle back: a committed table's generator moves on (a table this batch created goes with the batch).
   */
  private handleUsedUp(table: Table): void {
    const committed = this.committed.tables.find(
      (candidate) => candidate.family === table.family && candidate.name === table.name,
    );
    if (committed !== undefined) committed.nextHandle = Math.max(committed.nextHandle, table.nextHandle) + 1;
  }

  // ---- tables and chains ------------------------------------------------------------------------------------

  /** A `table { }` block adds its chains first, then its sets, then the chains' rules (nft's command expansion). */
  private addTable(
    draft: RulesetDraft,
    command: Extract<Command, { kind: 'add-table' }>,
  ): ErrorRecord | undefined {
    const added = draft.addTable(family(command.ref), command.ref.table.name, {
      exclusive: command.exclusive,
    });
    if ('errno' in added) return kernelError(command.ref.table.loc, 'EEXIST');
    let table = added;
    if (command.comment !== undefined) {
      table = { ...added, comment: command.comment };
      const index = draft.ruleset.tables.indexOf(added);
      draft.ruleset.tables[index] = table;
    }
    const chains: Chain[] = [];
    for (const def of command.chains) {
      const chain = this.addChain(draft, table, def, false, def.loc);
      if (isErrorRecord(chain)) return chain;
      chains.push(chain);
    }
    // nft_cmd_expand: the block's chains, then its objects, sets and flowtables, then the chains' rules.
    for (const object of command.objects ?? []) {
      const error = addObject(table, object, false);
      if (error !== undefined) return error;
    }
    for (const set of command.sets) {
      const error = this.addSet(draft, table, set, false);
      if (error !== undefined) return error;
    }
    for (const flowtable of command.flowtables ?? []) {
      const error = addFlowtable(table, flowtable, false, flowtable.loc);
      if (error !== undefined) return error;
    }
    for (let i = 0; i < command.chains.length; i++)
      for (const rule of command.chains[i]!.rules) {
        const error = this.addRule(draft, table, chains[i]!, rule, undefined, rule.loc);
        if (error !== undefined) return error;
      }
    return undefined;
  }

  private addChain(
    draft: RulesetDraft,
    table: Table,
    def: ChainDef,
    exclusive: boolean,
    loc: Location,
  ): Chain | ErrorRecord {
    const spec = def.spec;
    if (spec !== undefined) {
      // nft_chain_validate_hooks: nat chains hook everywhere but forward, route chains only output.
      if (
        (spec.type === 'nat' && spec.hook === 'forward') ||
        (spec.type === 'route' && spec.hook !== 'output') ||
        kernelRefusesHook(table.family, spec.hook)
      )
        return kernelError(loc, 'EOPNOTSUPP');
    }
    const chain = draft.addChain(table, def.name.name, spec, { exclusive, comment: def.comment });
    if ('errno' in chain)
      return chain.errno === 'EEXIST' ? kernelError(def.name.loc, 'EEXIST') : kernelError(loc, 'EOPNOTSUPP');
    return chain;
  }

  // ---- rules ------------------------------------------------------------------------------------------------

  private ruleCommand(
    draft: RulesetDraft,
    command: Extract<Command, { kind: 'add-rule' }>,
  ): ErrorRecord | undefined {
    const table = this.table(draft, command.ref, 'rule', command.chain);
    if (isErrorRecord(table)) return table;
    const chain = this.chain(table, command.chain, draft);
    if (isErrorRecord(chain)) return chain;
    let position: number | undefined;
    let replaced: number | undefined;
    if (command.handle !== undefined) {
      const index = chain.rules.findIndex((rule) => rule.handle === command.handle!.value);
      if (index < 0) return kernelError(command.handle.loc, 'ENOENT');
      position = command.mode === 'add' ? index + 1 : index;
      if (command.mode === 'replace') {
        draft.deleteRule(chain, command.handle.value);
        replaced = command.handle.value;
      }
    } else if (command.mode === 'insert') position = 0;
    return this.addRule(draft, table, chain, command.rule, position, command.loc, replaced);
  }

  /** The checks the kernel makes when a rule is added (nf_tables_newrule, nft_*_validate). */
  private addRule(
    draft: RulesetDraft,
    table: Table,
    chain: Chain,
    rule: ParsedRule,
    position: number | undefined,
    loc: Location,
    replacedHandle?: number,
  ): ErrorRecord | undefined {
    for (const ref of rule.setRefs) {
      const set = table.sets.get(ref.name);
      if (set === undefined) return this.setNotFound(draft, ref);
      const error =
        ref.stmt === undefined
          ? checkSetTypes(set, ref.types, ref.loc, ref.lhs)
          : checkDynsetTypes(set, ref.types, ref.lhs, ref.stmt);
      if (error !== undefined) return error;
    }
    // nft_fib_validate, nft_rt_validate: expressions some hooks cannot evaluate.
    const hook = chain.base?.hook;
    if (
      hook !== undefined &&
      (fibRefusedIn(rule.exprs, hook) ||
        rtRefusedIn(rule.exprs, hook) ||
        socketRefusedIn(rule.exprs, hook) ||
        tproxyRefusedIn(rule.exprs, hook))
    )
      return kernelError(loc, 'EOPNOTSUPP');
    const statements = rule.setRefs.filter((ref) => ref.stmt !== undefined);
    for (const expr of rule.exprs) {
      if (expr.kind !== 'set-update') continue;
      const stmtLoc = statements.shift()?.stmt ?? loc;
      let set = table.sets.get(expr.set)!;
      // nft marks a set it updates dynamic when the same input declares it (evaluate.c: stmt_evaluate_set, on its
      // cache), and nft_dynset_init gives a set without a size 65535.
      const declaredHere = !this.committed.tables.some(
        (t) => t.family === table.family && t.name === table.name && t.sets.has(set.name),
      );
      if (!set.flags.includes('dynamic') && declaredHere) {
        set = { ...set, flags: [...set.flags, 'dynamic'] };
        table.sets.set(set.name, set);
      }
      // nft_dynset_init: a timeout needs a set with timeouts, a counter a set the packet path may update.
      if (expr.timeout !== undefined && !set.flags.includes('timeout') && set.timeout === undefined)
        return kernelError(stmtLoc, 'EOPNOTSUPP');
      if (expr.counter === true && !set.flags.includes('dynamic')) return kernelError(stmtLoc, 'EINVAL');
      if (set.size === undefined) set.size = 0xffff;
    }
    // nft_flow_offload_init: the flowtable must exist in the rule's table (ENOENT); _validate: forward chains of
    // the ip, ip6 and inet families only (EOPNOTSUPP).
    for (const ref of rule.flowtableRefs ?? []) {
      if (!table.flowtables?.some((flowtable) => flowtable.name === ref.name))
        return kernelError(ref.loc, 'ENOENT');
      if (!familyHasFlowtables(table.family) || (chain.base !== undefined && chain.base.hook !== 'forward'))
        return kernelError(loc, 'EOPNOTSUPP');
    }
    // nft_objref_init: the named object must exist in the rule's table, with the statement's type (ENOENT).
    for (const ref of rule.objectRefs ?? [])
      if (findObject(table, ref.type, ref.name) === undefined) {
        this.handleUsedUp(table);
        return this.kernelEnoent(draft, table, chain, ref.loc);
      }
    for (const ref of rule.chainRefs) {
      const target = table.chains.get(ref.name);
      if (target === undefined) {
        // A missing jump target is the kernel's ENOENT, with nft's hint from the rule's own chain name.
        return this.kernelEnoent(draft, table, chain, ref.loc);
      }
      if (target.base !== undefined) return kernelError(ref.loc, 'EOPNOTSUPP');
    }
    const base = chain.base;
    if (base !== undefined) {
      for (const nat of rule.natStatements) {
        const hooks =
          nat.type === 'dnat' || nat.type === 'redirect'
            ? ['prerouting', 'output']
            : ['postrouting', 'input'];
        if (base.type !== 'nat' || !hooks.includes(base.hook)) return kernelError(loc, 'EOPNOTSUPP');
      }
      if (rule.rejects > 0 && !['input', 'forward', 'output'].includes(base.hook))
        return kernelError(loc, 'EOPNOTSUPP');
    }
    // nft sends each anonymous set or map of the rule (`vmap { 0 : goto x }`, `{ 80, 443 }`) as a set of its own
    // before the rule, and nf_tables_newset numbers it from the table's handles: the rule's handle comes after.
    for (const expr of rule.exprs)
      if (
        (expr.kind === 'lookup' && expr.set.kind === 'anonymous') ||
        (expr.kind === 'vmap' && expr.map.kind === 'anonymous') ||
        (expr.kind === 'nat' && expr.map?.map.kind === 'anonymous')
      )
        draft.allocateHandle(table);
    const added = draft.addRule(
      table,
      chain,
      {
        exprs: rule.exprs,
        comment: rule.comment,
        iptables: undefined,
        packets: rule.packets,
        bytes: rule.bytes,
      },
      position,
      replacedHandle,
    );
    if ('errno' in added) return kernelError(loc, added.errno === 'ENOENT' ? 'ENOENT' : 'EOPNOTSUPP');
    return undefined;
  }

  // ---- sets -------------------------------------------------------------------------------------------------

  private addSet(
    draft: RulesetDraft,
    table: Table,
    def: SetDef,
    exclusive: boolean,
  ): ErrorRecord | undefined {
    if (table.sets.has(def.name.name)) {
      if (exclusive) return kernelError(def.name.loc, 'EEXIST');
      const existing = table.sets.get(def.name.name)!;
      return this.addElements(draft, table, existing, def.elements, { exclusive: false });
    }
    const set: NamedSet = {
      name: def.name.name,
      keyType: def.keyType,
      dataType: def.map ? def.dataType : undefined,
      flags: def.flags,
      elements: [],
      comment: def.comment,
      handle: draft.allocateHandle(table),
      timeout: def.timeout === undefined ? undefined : inJiffies(def.timeout),
      size: def.size,
      ...setOptions(def),
      // nft sizes a constant set to its declared elements (an empty one is unbounded): adding more is ENFILE.
      ...(def.flags.includes('constant') && def.elements.length > 0 ? { capacity: def.elements.length } : {}),
    };
    const added = draft.addSet(table, set);
    if ('errno' in added) return kernelError(def.name.loc, 'EEXIST');
    return this.addElements(draft, table, added, def.elements, { exclusive: false });
  }

  private addElements(
    draft: RulesetDraft,
    table: Table,
    set: NamedSet,
    elements: readonly RawElement[],
    options: { exclusive: boolean },
  ): ErrorRecord | undefined {
    const index = setIndexOf(set.elements);
    for (const raw of elements) {
      const element = this.resolveElement(table, set, raw);
      if (isErrorRecord(element)) return element;
      if (index.find(element.key) !== undefined) {
        if (options.exclusive) return kernelError(raw.loc, 'EEXIST');
        continue;
      }
      if (set.capacity !== undefined && set.elements.length >= set.capacity)
        return kernelError(raw.loc, 'ENFILE');
      pushElement(set.elements, element);
      draft.elementsAdded(table, set, [element]);
    }
    autoMerge(set);
    return undefined;
  }

  private resolveElement(
    table: Table,
    set: NamedSet,
    raw: RawElement,
  ): NamedSet['elements'][number] | ErrorRecord {
    const types: NftType[] = set.keyType.map(fromDataType);
    const key = resolveValue(types, raw.key);
    if (isErrorRecord(key)) return key;
    if ((key.kind === 'prefix' || key.kind === 'range') && !set.flags.includes('interval'))
      return errorAt(
        raw.loc,
        `You must add 'flags interval' to your set declaration if you want to add ${key.kind} elements`,
      );
    // The element's comment and timeout; with a timeout (its own or the set's) it expires that long from now.
    const own = raw.timeout === undefined ? undefined : inJiffies(raw.timeout);
    const timeout = own ?? set.timeout;
    // `expires T` sets the time it has left (at most its timeout); a set without timeouts ignores both.
    const left =
      raw.expires === undefined || timeout === undefined
        ? timeout
        : Math.min(inJiffies(raw.expires), timeout);
    const counter = elementCounter(set, raw.counter);
    const extra: Pick<SetElement, 'comment' | 'timeout' | 'expires' | 'counter'> = {
      ...(raw.comment === undefined ? {} : { comment: raw.comment }),
      ...(own === undefined ? {} : { timeout: own }),
      ...(left === undefined || this.now === undefined ? {} : { expires: this.now + left * 1e6 }),
      ...(counter === undefined ? {} : { counter }),
    };
    if (set.dataType === undefined) {
      if (raw.data !== undefined) return errorAt(raw.loc, 'Set member cannot be map');
      return { key, data: undefined, ...extra };
    }
    if (raw.data === undefined) return kernelError(raw.loc, 'EINVAL');
    if (raw.data.kind === 'verdict') {
      if (set.dataType !== 'verdict') return errorAt(raw.data.loc, 'datatype mismatch, expected verdict');
      const target = raw.data.chain;
      if (target !== undefined) {
        const chain = table.chains.get(target.name);
        if (chain === undefined) return kernelError(raw.loc, 'ENOENT');
        if (chain.base !== undefined) return kernelError(raw.loc, 'EOPNOTSUPP');
      }
      return { key, data: raw.data.verdict, ...extra };
    }
    if (set.dataType === 'verdict') return errorAt(raw.loc, 'Could not parse netfilter verdict');
    const data = resolveValue([fromDataType(set.dataType)], raw.data);
    if (isErrorRecord(data)) return data;
    return { key, data, ...extra };
  }

  /** `add|create|delete|list flowtable [family] TABLE NAME`. */
  private flowtableCommand(
    draft: RulesetDraft,
    command: Extract<Command, { kind: 'add-flowtable' | 'delete-flowtable' | 'list-flowtable' }>,
  ): ErrorRecord | undefined {
    const table = this.table(draft, command.ref, command.kind === 'list-flowtable' ? 'plain' : 'kernel');
    if (isErrorRecord(table)) return table;
    if (command.kind === 'add-flowtable')
      return addFlowtable(table, command.flowtable, command.exclusive, command.loc);
    const name = command.flowtable.name;
    const flowtable = table.flowtables?.find((candidate) => candidate.name === name);
    if (flowtable === undefined)
      return command.kind === 'list-flowtable'
        ? errorAt(command.flowtable.loc, strerror('ENOENT'))
        : kernelError(command.flowtable.loc, 'ENOENT');
    if (command.kind === 'list-flowtable') {
      this.stdout += `table ${table.family} ${table.name} {\n${flowtableText(flowtable, this.print)}}\n`;
      return undefined;
    }
    // nf_tables_delflowtable: EBUSY while a rule's `flow add` uses it.
    for (const chain of table.chains.values())
      for (const rule of chain.rules)
        if (rule.exprs.some((expr) => expr.kind === 'flow-offload' && expr.flowtable === name))
          return kernelError(command.flowtable.loc, 'EBUSY');
    table.flowtables = (table.flowtables ?? []).filter((candidate) => candidate !== flowtable);
    return undefined;
  }

  /** `add|create|delete|list|reset counter|quota|limit [family] TABLE NAME`. */
  private objectCommand(
    draft: RulesetDraft,
    command: Extract<Command, { kind: 'add-object' | 'delete-object' | 'list-object' | 'reset-object' }>,
  ): ErrorRecord | undefined {
    const table = this.table(draft, command.ref, command.kind === 'delete-object' ? 'kernel' : 'plain');
    if (isErrorRecord(table)) return table;
    if (command.kind === 'add-object') return addObject(table, command.object, command.exclusive);
    const type = command.type;
    const objects = table.objects ?? [];
    const object = objects.find(
      (candidate) =>
        candidate.type === type &&
        (command.kind === 'delete-object' && command.name === undefined
          ? candidate.handle === command.handle?.value
          : candidate.name === command.name?.name),
    );
    const where = command.name?.loc ?? (command.kind === 'delete-object' ? command.handle?.loc : undefined);
    if (object === undefined)
      return command.kind === 'delete-object'
        ? kernelError(where ?? command.loc, 'ENOENT')
        : errorAt(where ?? command.loc, strerror('ENOENT'));
    switch (command.kind) {
      case 'delete-object':
        // nf_tables_delobj: EBUSY while a rule names it.
        if (objectInUse(table, object)) return kernelError(where ?? command.loc, 'EBUSY');
        table.objects = objects.filter((candidate) => candidate !== object);
        return undefined;
      case 'list-object':
      case 'reset-object':
        this.stdout += printObjects([table], type, object.name, {
          ...this.print,
          reset: command.kind === 'reset-object',
        });
        if (command.kind === 'reset-object') resetObjects(table, type, object.name);
        return undefined;
    }
  }

  /** `list|reset counters|quotas|limits [FAMILY | table [family] TABLE]`: the listing, then (reset) the zeroing. */
  private objectsCommand(
    draft: RulesetDraft,
    command: Extract<Command, { kind: 'list-objects' | 'reset-objects' }>,
  ): ErrorRecord | undefined {
    let tables: Table[];
    if (command.table !== undefined) {
      const table = this.table(draft, command.table, 'plain');
      if (isErrorRecord(table)) return table;
      tables = [table];
    } else
      tables = draft.ruleset.tables.filter(
        (table) => command.family === undefined || table.family === command.family,
      );
    this.stdout += printObjects(tables, command.type, undefined, {
      ...this.print,
      reset: command.kind === 'reset-objects',
    });
    if (command.kind === 'reset-objects')
      for (const table of tables) resetObjects(table, command.type, undefined);
    return undefined;
  }

  private setCommand(
    draft: RulesetDraft,
    command: Extract<Command, { kind: 'delete-set' | 'flush-set' | 'list-set' }>,
  ): ErrorRecord | undefined {
    const table = this.table(draft, command.ref, command.kind === 'list-set' ? 'plain' : 'kernel');
    if (isErrorRecord(table)) return table;
    const set = table.sets.get(command.set.name);
    const matches =
      set !== undefined && (command.kind !== 'list-set' || (set.dataType !== undefined) === command.map);
    if (!matches || set === undefined)
      return command.kind === 'list-set'
        ? errorAt(command.set.loc, strerror('ENOENT'))
        : kernelError(command.set.loc, 'ENOENT');
    switch (command.kind) {
      case 'delete-set':
        if (setInUse(table, set.name)) return kernelError(command.set.loc, 'EBUSY');
        draft.deleteSet(table, set.name);
        return undefined;
      case 'flush-set':
        draft.elementsDeleted(table, set, set.elements);
        clearElements(set.elements);
        return undefined;
      case 'list-set':
        this.output([table], printSet(table, set, this.print));
        return undefined;
    }
  }

  private elementCommand(
    draft: RulesetDraft,
    command: Extract<Command, { kind: 'add-element' | 'create-element' | 'delete-element' }>,
  ): ErrorRecord | undefined {
    const table = this.table(draft, command.ref, 'plain');
    if (isErrorRecord(table)) return table;
    const set = table.sets.get(command.set.name);
    if (set === undefined) return this.setNotFound(draft, command.set);
    if (command.kind !== 'delete-element')
      return this.addElements(draft, table, set, command.elements, {
        exclusive: command.kind === 'create-element',
      });
    for (const raw of command.elements) {
      const key = resolveValue(set.keyType.map(fromDataType), raw.key);
      if (isErrorRecord(key)) return key;
      const found = setIndexOf(set.elements).find(key);
      if (found === undefined) return kernelError(raw.loc, 'ENOENT');
      draft.elementsDeleted(table, set, [removeElementAt(set.elements, set.elements.indexOf(found))]);
    }
    return undefined;
  }
}

/**
 * After a commit, each set the transaction copied but did not change takes over the index of the list it was copied
 * from (that list is no longer live), so the next packet does not rebuild it.
 */
function carrySetIndexes(before: Ruleset, after: Ruleset): void {
  if (before === after) return;
  for (const table of after.tables) {
    let previous: Table | undefined;
    for (const set of table.sets.values()) {
      if (hasSetIndex(set.elements)) continue;
      previous ??= before.tables.find((t) => t.family === table.family && t.name === table.name);
      const old = previous?.sets.get(set.name)?.elements;
      if (old === undefined || old === set.elements || old.length !== set.elements.length) continue;
      if (old.length > 0 && (old[0] !== set.elements[0] || old.at(-1) !== set.elements.at(-1))) continue;
      shareSetIndex(old, set.elements);
    }
  }
}

/** nf_tables_newflowtable: a flowtable of a family with a flowtable type, in its table's handle space. */
function addFlowtable(
  table: Table,
  def: FlowtableDef,
  exclusive: boolean,
  loc: Location,
): ErrorRecord | undefined {
  if (!familyHasFlowtables(table.family)) return kernelError(loc, 'EOPNOTSUPP');
  const existing = table.flowtables ?? [];
  if (existing.some((flowtable) => flowtable.name === def.name.name)) {
    if (exclusive) return kernelError(def.name.loc, 'EEXIST');
    return undefined;
  }
  table.flowtables = [...existing, flowtableOf(def, table.nextHandle++)];
  return undefined;
}

/** nf_tables_newobj: a new object in the table's handle space; an existing one is updated, or EEXIST with create. */
function addObject(table: Table, def: ObjectDef, exclusive: boolean): ErrorRecord | undefined {
  const objects = table.objects ?? [];
  const type = def.body.type;
  const index = objects.findIndex((object) => object.type === type && object.name === def.name.name);
  if (index >= 0) {
    if (exclusive) return kernelError(def.name.loc, 'EEXIST');
    const copy = [...objects];
    copy[index] = updatedObject(objects[index]!, def);
    table.objects = copy;
    return undefined;
  }
  table.objects = [...objects, objectOf(def, table.nextHandle++)];
  return undefined;
}

/** NFT_MSG_GETOBJ_RESET on the table's objects of that type (of that name when one is given). */
function resetObjects(table: Table, type: NamedObjectType, name: string | undefined): void {
  table.objects = (table.objects ?? []).map((object) =>
    object.type === type && (name === undefined || object.name === name) ? resetObject(object) : object,
  );
}

/** The declaration's options the kernel keeps (policy, gc-interval, counter) and nft's own (auto-merge, typeof). */
function setOptions(def: SetDef): Partial<NamedSet> {
  return {
    ...(def.policy === undefined ? {} : { policy: def.policy }),
    ...(def.gcInterval === undefined ? {} : { gcInterval: inJiffies(def.gcInterval) }),
    ...(def.autoMerge === true ? { autoMerge: true } : {}),
    ...(def.counter === true ? { counter: true } : {}),
    ...(def.typeofText === undefined ? {} : { typeofText: def.typeofText }),
  };
}

function family(ref: TableRef): Family {
  return ref.family;
}

/**
 * A timeout as the kernel keeps it: nf_msecs_to_jiffies64 truncates to jiffies, jiffies_to_msecs reads them back
 * (CONFIG_HZ=250 on the reference kernel: `timeout 250ms` lists as 248ms).
 */
function inJiffies(ms: number): number {
  return Math.floor((ms * 250) / 1000) * 4;
}

function setInUse(table: Table, name: string): boolean {
  for (const chain of table.chains.values())
    for (const rule of chain.rules as readonly Rule[])
      for (const expr of rule.exprs) {
        if (expr.kind === 'lookup' && expr.set.kind === 'named' && expr.set.name === name) return true;
        if (expr.kind === 'vmap' && expr.map.kind === 'named' && expr.map.name === name) return true;
        if (expr.kind === 'nat' && expr.map?.map.kind === 'named' && expr.map.map.name === name) return true;
        if (expr.kind === 'set-update' && expr.set === name) return true;
      }
  return false;
}

/** A lookup's key must have the set's type (evaluate.c: "datatype mismatch"). */
function checkSetTypes(
  set: NamedSet,
  types: readonly NftType[],
  loc: Location,
  lhs: Location,
): ErrorRecord | undefined {
  const setTypes = set.keyType.map(fromDataType);
  const compatible =
    setTypes.length === types.length &&
    setTypes.every(
      (type, i) => type === types[i] || (type === 'integer' && !['ipv4_addr', 'ifname'].includes(types[i]!)),
    );
  if (compatible) return undefined;
  const describe = (list: readonly NftType[]): string =>
    list.length === 1
      ? DESCRIPTIONS[list[0]!]
      : `concatenation of (${list.map((type) => DESCRIPTIONS[type]).join(', ')})`;
  return errorAt(
    loc,
    `datatype mismatch, expected ${describe(types)}, expression has type ${describe(setTypes)}`,
    lhs,
  );
}

/** evaluate.c: stmt_evaluate_set — the key must have the set's type (the other way round from a lookup's message). */
function checkDynsetTypes(
  set: NamedSet,
  types: readonly NftType[],
  key: Location,
  stmt: Location,
): ErrorRecord | undefined {
  const error = checkSetTypes(set, types, key, stmt);
  if (error === undefined) return undefined;
  const describe = (list: readonly NftType[]): string =>
    list.length === 1
      ? DESCRIPTIONS[list[0]!]
      : `concatenation of (${list.map((type) => DESCRIPTIONS[type]).join(', ')})`;
  return errorAt(
    key,
    `datatype mismatch: expected ${describe(set.keyType.map(fromDataType))}, expression has type ${describe(types)}`,
    stmt,
  );
}

/** rule.c: chain_lookup_fuzzy — an exact name in any table first, else the closest. */
function chainLookupFuzzy(draft: RulesetDraft, name: string): { table: Table; chain: string } | undefined {
  const misspell = new Misspell<{ table: Table; chain: string }>();
  for (const table of draft.ruleset.tables)
    for (const chain of table.chains.keys()) {
      if (chain === name) return { table, chain };
      misspell.update(chain, name, { table, chain });
    }
  return misspell.best;
}
