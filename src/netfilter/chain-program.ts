// A chain's rules compiled once into a fixed-shape program: the side-effect-free comparisons each rule opens with
// (protocol, addresses and prefixes, ports, marks, and `-m comment`) as typed-array columns, tested against packet
// fields read once per chain run; the rest of the rule still runs expression by expression (chain.ts). Programs are
// shared by content: every namespace whose chain holds the same expressions (kube-proxy's ruleset on every node)
// uses one program, while counters stay in each namespace's own rule records. Does not compile strings (interface
// names), concatenations, ordered comparisons or anything with a side effect.
//
// Exactly nft_do_chain's semantics: the columns hold only leading expressions whose outcome depends on the packet
// alone, tested in the rule's own order; a failing one breaks the rule (NFT_BREAK) as its cmp would. A field reads
// through readValue itself, so a missing field (no transport header, a non-first fragment) fails both `==` and
// `!=` as evalCmp does. Reads are cached only until a rule runs anything else (a statement may rewrite the packet).

import { readValue } from './expr/selectors.ts';
import type { Constant, Expr, Rule, Value } from './ir.ts';
import type { PacketState } from './packet-state.ts';

/** The packet fields a column may test, by number; each read as this canonical Value. */
const FIELDS: readonly Value[] = [
  { selector: { kind: 'meta', key: 'l4proto' } },
  { selector: { kind: 'payload', field: 'ip protocol' } },
  { selector: { kind: 'payload', field: 'ip saddr' } },
  { selector: { kind: 'payload', field: 'ip daddr' } },
  { selector: { kind: 'payload', field: 'tcp sport' } },
  { selector: { kind: 'payload', field: 'tcp dport' } },
  { selector: { kind: 'payload', field: 'udp sport' } },
  { selector: { kind: 'payload', field: 'udp dport' } },
  { selector: { kind: 'payload', field: 'th sport' } },
  { selector: { kind: 'payload', field: 'th dport' } },
  { selector: { kind: 'meta', key: 'mark' } },
];

function fieldOf(value: Value): number {
  const selector = value.selector;
  for (let i = 0; i < FIELDS.length; i++) {
    const known = FIELDS[i]!.selector;
    if (known.kind !== selector.kind) continue;
    if (known.kind === 'meta' && selector.kind === 'meta' && known.key === selector.key) return i;
    if (known.kind === 'payload' && selector.kind === 'payload' && known.field === selector.field) return i;
  }
  return -1;
}

/** Field reads of the current chain run: -2 not read yet, -1 missing from the packet. */
const UNREAD = -2;
const reads = new Float64Array(FIELDS.length);

/** Forgets the cached reads (a chain run starts, or a rule ran a statement). */
export function forgetReads(): void {
  reads.fill(UNREAD);
}
forgetReads();

function read(state: PacketState, field: number): number {
  let value = reads[field]!;
  if (value === UNREAD) {
    const raw = readValue(state, FIELDS[field]!);
    value = typeof raw === 'number' ? raw : -1;
    reads[field] = value;
  }
  return value;
}

export class ChainProgram {
  /** The expressions compiled, rule by rule (a rule whose expressions are not these runs uncompiled). */
  readonly exprs: readonly (readonly Expr[])[];
  /** Rule i's tests are [first[i], first[i + 1]). */
  readonly first: Uint32Array;
  /** Where rule i's remaining expressions start. */
  readonly resume: Uint32Array;
  readonly field: Uint8Array;
  readonly negate: Uint8Array;
  /** Tested: ((field & mask) >>> 0) within [low, high]. */
  readonly mask: Uint32Array;
  readonly low: Float64Array;
  readonly high: Float64Array;

  constructor(rules: readonly Rule[]) {
    this.exprs = rules.map((rule) => rule.exprs);
    this.first = new Uint32Array(rules.length + 1);
    this.resume = new Uint32Array(rules.length);
    const tests: { field: number; negate: boolean; mask: number; low: number; high: number }[] = [];
    for (let i = 0; i < rules.length; i++) {
      this.first[i] = tests.length;
      const exprs = rules[i]!.exprs;
      let at = 0;
      for (; at < exprs.length; at++) {
        const test = testOf(exprs[at]!);
        if (test === null) break;
        if (test !== undefined) tests.push(test);
      }
      this.resume[i] = at;
    }
    this.first[rules.length] = tests.length;
    this.field = new Uint8Array(tests.length);
    this.negate = new Uint8Array(tests.length);
    this.mask = new Uint32Array(tests.length);
    this.low = new Float64Array(tests.length);
    this.high = new Float64Array(tests.length);
    tests.forEach((test, i) => {
      this.field[i] = test.field;
      this.negate[i] = test.negate ? 1 : 0;
      this.mask[i] = test.mask;
      this.low[i] = test.low;
      this.high[i] = test.high;
    });
  }

  /** Whether rule `index`'s compiled tests all pass (NFT_BREAK otherwise). */
  passes(state: PacketState, index: number): boolean {
    const end = this.first[index + 1]!;
    for (let t = this.first[index]!; t < end; t++) {
      const value = read(state, this.field[t]!);
      if (value < 0) return false;
      const masked = (value & this.mask[t]!) >>> 0;
      const inside = masked >= this.low[t]! && masked <= this.high[t]!;
      if (inside === (this.negate[t] === 1)) return false;
    }
    return true;
  }
}

/**
 * The column test of one expression: undefined for one that always passes with no effect (`-m comment`), null for
 * one that must run as an expression.
 */
function testOf(
  expr: Expr,
): { field: number; negate: boolean; mask: number; low: number; high: number } | undefined | null {
  if (expr.kind === 'match') return expr.options.name === 'comment' ? undefined : null;
  if (expr.kind !== 'cmp' || (expr.op !== 'eq' && expr.op !== 'ne') || expr.left.length !== 1) return null;
  const value = expr.left[0]!;
  if (value.xor !== undefined) return null;
  const field = fieldOf(value);
  if (field < 0) return null;
  const valueMask = value.mask === undefined ? 0xffff_ffff : value.mask >>> 0;
  const range = rangeOf(expr.right);
  if (range === undefined) return null;
  return {
    field,
    negate: expr.op === 'ne',
    mask: (valueMask & range.mask) >>> 0,
    low: range.low,
    high: range.high,
  };
}

/** matchesConstant's test of a number as a mask and an inclusive range. */
function rangeOf(constant: Constant): { mask: number; low: number; high: number } | undefined {
  switch (constant.kind) {
    case 'number':
      return { mask: 0xffff_ffff, low: constant.value, high: constant.value };
    case 'range':
      return { mask: 0xffff_ffff, low: constant.low, high: constant.high };
    case 'prefix': {
      const mask = constant.len === 0 ? 0 : (0xffff_ffff << (32 - constant.len)) >>> 0;
      return { mask, low: constant.addr >>> 0, high: constant.addr >>> 0 };
    }
    case 'string':
    case 'concat':
      return undefined;
  }
}

/** Each rule list's program (a namespace's own lists; the programs themselves are shared by content). */
const programs = new WeakMap<readonly Rule[], ChainProgram>();

/** A number for each expression list, for the content keys (the restore line cache shares the lists themselves). */
const exprIds = new WeakMap<readonly Expr[], number>();
let nextExprId = 1;

/**
 * Programs by content: namespaces whose chains hold the same expressions in the same order (every node loading
 * kube-proxy's ruleset) share one program. Held weakly: a program no chain uses any more goes with its key.
 */
const byContent = new Map<string, WeakRef<ChainProgram>>();
const forget = new FinalizationRegistry<string>((key) => {
  if (byContent.get(key)?.deref() === undefined) byContent.delete(key);
});

function contentKey(rules: readonly Rule[]): string {
  let key = '';
  for (const rule of rules) {
    let id = exprIds.get(rule.exprs);
    if (id === undefined) {
      id = nextExprId++;
      exprIds.set(rule.exprs, id);
    }
    key += `${id.toString(36)},`;
  }
  return key;
}

/**
 * The program of a rule list: compiled on first use, or the one another chain with the same expressions compiled (a
 * list a transaction changes is a new list, hence copy-on-write: the other chains keep theirs). The program holds no
 * counters or state: the rules (each namespace's own records) count.
 */
export function programOf(rules: readonly Rule[]): ChainProgram {
  const known = programs.get(rules);
  if (known !== undefined && known.exprs.length === rules.length) return known;
  const key = contentKey(rules);
  let program = byContent.get(key)?.deref();
  if (program === undefined) {
    program = new ChainProgram(rules);
    byContent.set(key, new WeakRef(program));
    forget.register(program, key);
  }
  programs.set(rules, program);
  return program;
}
