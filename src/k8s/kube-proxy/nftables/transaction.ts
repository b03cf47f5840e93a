// One knftables transaction on table `ip kube-proxy`: the operations kube-proxy queues (add, flush, delete of the
// table, chains, sets, maps, rules and elements), written as the `nft -f` text knftables sends (transaction.go,
// objects.go: writeOperation), and replayed over a table model to print what knftables' Fake.Dump prints (the form
// kube-proxy's own tests compare). No rule handles, no insert/replace, no counters or flowtables.

const TABLE = 'ip kube-proxy';

/** A base chain's hook, as knftables writes it: the priority already a number (ParsePriority). */
export interface BaseChainSpec {
  readonly type: 'filter' | 'nat';
  readonly hook: 'prerouting' | 'input' | 'forward' | 'output' | 'postrouting';
  readonly priority: number;
}

export interface ChainObject {
  readonly name: string;
  readonly base?: BaseChainSpec;
  readonly comment?: string;
}

export interface SetObject {
  /** `set` or `map`: knftables' Set and Map objects write the same properties. */
  readonly kind: 'set' | 'map';
  readonly name: string;
  readonly type: string;
  readonly flags?: readonly string[];
  /** Seconds. */
  readonly timeout?: number;
  readonly comment?: string;
}

export interface ElementObject {
  readonly kind: 'set' | 'map';
  readonly container: string;
  readonly key: readonly string[];
  /** A map's value (`goto CHAIN`, `drop`). */
  readonly value?: readonly string[] | undefined;
  readonly comment?: string | undefined;
}

export type Operation =
  | { readonly verb: 'add'; readonly object: 'table'; readonly comment: string }
  | { readonly verb: 'add' | 'flush' | 'delete'; readonly object: 'chain'; readonly chain: ChainObject }
  | { readonly verb: 'add' | 'flush' | 'delete'; readonly object: 'set'; readonly set: SetObject }
  | {
      readonly verb: 'add';
      readonly object: 'rule';
      readonly chain: string;
      readonly rule: string;
      readonly comment?: string | undefined;
    }
  | { readonly verb: 'add' | 'delete'; readonly object: 'element'; readonly element: ElementObject };

/** Go's %q for the plain ASCII comments kube-proxy writes. */
function quoted(text: string): string {
  return `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

function chainProperties(chain: ChainObject): string {
  if (chain.base === undefined && chain.comment === undefined) return '';
  let text = ' {';
  if (chain.base !== undefined)
    text += ` type ${chain.base.type} hook ${chain.base.hook} priority ${chain.base.priority} ;`;
  if (chain.comment !== undefined) text += ` comment ${quoted(chain.comment)} ;`;
  return `${text} }`;
}

function setProperties(set: SetObject): string {
  let text = ` { type ${set.type} ;`;
  if (set.flags !== undefined && set.flags.length > 0) text += ` flags ${set.flags.join(',')} ;`;
  if (set.timeout !== undefined) text += ` timeout ${set.timeout}s ;`;
  if (set.comment !== undefined) text += ` comment ${quoted(set.comment)} ;`;
  return `${text} }`;
}

function elementText(element: ElementObject, withValue: boolean): string {
  let text = element.key.join(' . ');
  if (element.comment !== undefined && withValue) text += ` comment ${quoted(element.comment)}`;
  if (withValue && element.value !== undefined) text += ` : ${element.value.join(' . ')}`;
  return `{ ${text} }`;
}

function ruleLine(chain: string, rule: string, comment: string | undefined): string {
  return `add rule ${TABLE} ${chain} ${rule}${comment === undefined ? '' : ` comment ${quoted(comment)}`}`;
}

/** One operation as knftables writes it (objects.go: writeOperation). */
export function operationLine(op: Operation): string {
  switch (op.object) {
    case 'table':
      return `add table ${TABLE} { comment ${quoted(op.comment)} ; }`;
    case 'chain':
      return `${op.verb} chain ${TABLE} ${op.chain.name}${op.verb === 'add' ? chainProperties(op.chain) : ''}`;
    case 'set':
      return `${op.verb} ${op.set.kind} ${TABLE} ${op.set.name}${op.verb === 'add' ? setProperties(op.set) : ''}`;
    case 'rule':
      return ruleLine(op.chain, op.rule, op.comment);
    case 'element':
      // knftables writes a deleted element without its comment or value.
      return `${op.verb} element ${TABLE} ${op.element.container} ${elementText(op.element, op.verb === 'add')}`;
  }
}

/** The transaction's `nft -f` text, one operation a line. */
export function transactionText(ops: readonly Operation[]): string {
  return ops.map((op) => `${operationLine(op)}\n`).join('');
}

interface ChainState {
  readonly chain: ChainObject;
  rules: string[];
}

interface SetState {
  readonly set: SetObject;
  readonly elements: Map<string, ElementObject>;
}

/** The table after a run of transactions, as knftables' Fake keeps it. */
export class TableModel {
  private tableComment: string | undefined;
  private readonly chains = new Map<string, ChainState>();
  private readonly sets = new Map<string, SetState>();

  /** Applies one transaction in order; returns the first failure (the model is then partly changed) or undefined. */
  apply(ops: readonly Operation[]): string | undefined {
    for (const op of ops) {
      const failure = this.applyOne(op);
      if (failure !== undefined) return failure;
    }
    return undefined;
  }

  private applyOne(op: Operation): string | undefined {
    switch (op.object) {
      case 'table':
        this.tableComment = op.comment;
        return undefined;
      case 'chain': {
        const existing = this.chains.get(op.chain.name);
        if (op.verb === 'add') {
          if (existing === undefined) this.chains.set(op.chain.name, { chain: op.chain, rules: [] });
        } else if (existing === undefined) return `no such chain ${op.chain.name}`;
        else if (op.verb === 'flush') existing.rules = [];
        else this.chains.delete(op.chain.name);
        return undefined;
      }
      case 'set': {
        const existing = this.sets.get(op.set.name);
        if (op.verb === 'add') {
          if (existing === undefined) this.sets.set(op.set.name, { set: op.set, elements: new Map() });
        } else if (existing === undefined) return `no such ${op.set.kind} ${op.set.name}`;
        else if (op.verb === 'flush') existing.elements.clear();
        else this.sets.delete(op.set.name);
        return undefined;
      }
      case 'rule': {
        const chain = this.chains.get(op.chain);
        if (chain === undefined) return `no such chain ${op.chain}`;
        chain.rules.push(ruleLine(op.chain, op.rule, op.comment));
        return undefined;
      }
      case 'element': {
        const set = this.sets.get(op.element.container);
        if (set === undefined) return `no such ${op.element.kind} ${op.element.container}`;
        const key = op.element.key.join(' . ');
        if (op.verb === 'add') set.elements.set(key, op.element);
        else if (!set.elements.delete(key)) return `no such element ${key}`;
        return undefined;
      }
    }
  }

  /** The chain names in the table (what `nft list chains` would report to kube-proxy). */
  chainNames(): string[] {
    return [...this.chains.keys()];
  }

  setNames(): string[] {
    return [...this.sets.keys()];
  }

  /** mirrors knftables fake.go:Dump — table, chains, sets and maps sorted by name, then rules, then elements. */
  dump(): string {
    const lines: string[] = [];
    if (this.tableComment !== undefined)
      lines.push(operationLine({ verb: 'add', object: 'table', comment: this.tableComment }));
    const chains = [...this.chains.values()].sort((a, b) => (a.chain.name < b.chain.name ? -1 : 1));
    const sets = [...this.sets.values()].sort((a, b) => (a.set.name < b.set.name ? -1 : 1));
    for (const chain of chains)
      lines.push(operationLine({ verb: 'add', object: 'chain', chain: chain.chain }));
    for (const kind of ['set', 'map'] as const)
      for (const set of sets)
        if (set.set.kind === kind) lines.push(operationLine({ verb: 'add', object: 'set', set: set.set }));
    for (const chain of chains) lines.push(...chain.rules);
    for (const kind of ['set', 'map'] as const)
      for (const set of sets)
        if (set.set.kind === kind)
          for (const element of set.elements.values())
            lines.push(operationLine({ verb: 'add', object: 'element', element }));
    return lines.map((line) => `${line}\n`).join('');
  }
}
