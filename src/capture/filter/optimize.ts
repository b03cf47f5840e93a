// libpcap's optimizer (optimize.c) over a decision DAG of comparisons: jump threading over dominating
// edges, or/and pull-ups, constant folding, block interning and opt_root; no value numbering of statements.
//
// Why emulate it at all: BPF rejects a packet the moment a load falls past the captured bytes, so on a frame
// cut short by the snaplen the verdict depends on which comparisons survived optimization. For whole
// frames any correct evaluation order gives the same answer.

export type JumpOp = 'jeq' | 'jgt' | 'jge' | 'jset';

/**
 * One BPF conditional jump: a value (named by `value`, e.g. `h[12]` for the EtherType) compared by `op` with
 * an operand (named by `operand`); `decide` loads and compares. Equal names mean equal values, which is
 * what lets a later test on the same value be answered by an earlier one.
 */
export interface Test {
  readonly value: string;
  readonly op: JumpOp;
  readonly operand: string;
  /** True when the operand is a constant (only then does "equal to a different constant" imply false). */
  readonly constantOperand: boolean;
  /**
   * Set for a comparison whose outcome the second optimizer phase computes from constants (arithmetic on
   * numbers, a zero mask): it stays opaque to jump threading, then both its branches go where it would.
   */
  readonly fixedOutcome?: boolean;
  readonly decide: () => boolean;
}

/** A boolean combination of tests, in the order libpcap generates them. */
export type Condition =
  | { readonly kind: 'const'; readonly value: boolean }
  | { readonly kind: 'test'; readonly test: Test }
  | { readonly kind: 'and' | 'or'; readonly left: Condition; readonly right: Condition }
  | { readonly kind: 'not'; readonly operand: Condition };

export interface Leaf {
  readonly id: number;
  readonly verdict: boolean;
}

/** A BPF block: one test and where to go on either outcome (mutable while optimizing). */
export interface Block {
  readonly id: number;
  readonly test: Test;
  /** Equal for blocks whose tests are equal (same value, jump and operand). */
  readonly testId: number;
  /** Equal for blocks that test the same value (libpcap's value number of A). */
  readonly valueId: number;
  ifTrue: DagNode;
  ifFalse: DagNode;
}

export type DagNode = Leaf | Block;

export const ACCEPT: Leaf = { id: 0, verdict: true };
export const REJECT: Leaf = { id: 1, verdict: false };

export function isLeaf(node: DagNode): node is Leaf {
  return 'verdict' in node;
}

/** An edge: a block and the outcome that leaves it; it carries the fact "test == outcome". */
interface Edge {
  readonly from: Block;
  readonly outcome: boolean;
}

const MAX_OPTIMIZER_PASSES = 100;
/** Beyond this the filter runs unoptimized (only truncated frames can tell the difference). */
const MAX_OPTIMIZED_BLOCKS = 2000;

export class Dag {
  private readonly ids = new Map<string, number>();
  private nextId = 2;

  /** The DAG for `condition` that continues at `ifTrue` or `ifFalse` (gen_and/gen_or's backpatching). */
  build(condition: Condition, ifTrue: DagNode, ifFalse: DagNode): DagNode {
    switch (condition.kind) {
      case 'const':
        return condition.value ? ifTrue : ifFalse;
      case 'test':
        return this.block(condition.test, ifTrue, ifFalse);
      case 'and':
        return this.build(condition.left, this.build(condition.right, ifTrue, ifFalse), ifFalse);
      case 'or':
        return this.build(condition.left, ifTrue, this.build(condition.right, ifTrue, ifFalse));
      case 'not':
        return this.build(condition.operand, ifFalse, ifTrue);
      default:
        return assertNever(condition);
    }
  }

  /**
   * bpf_optimize: jump threading and pull-ups to a fixed point (opt_loop without statements), then the
   * folding of constant comparisons (opt_loop with statements, which moves no more jumps), intern_blocks and
   * opt_root. A root whose branches meet is skipped but its loads still run first; a filter that folds to a
   * bare verdict keeps none.
   */
  optimize(root: DagNode): { root: DagNode; preload: Test | undefined } {
    root = optimizeJumps(root);
    for (const block of reachableBlocks(root)) {
      if (block.test.fixedOutcome === undefined) continue;
      const next = block.test.fixedOutcome ? block.ifTrue : block.ifFalse;
      block.ifTrue = next;
      block.ifFalse = next;
    }
    root = mergeEqualBlocks(root);
    let start = root;
    while (!isLeaf(start) && start.ifTrue === start.ifFalse) start = start.ifTrue;
    const preload = start !== root && !isLeaf(start) && !isLeaf(root) ? root.test : undefined;
    return { root: start, preload };
  }

  /** A new block; blocks are shared only where gen_and/gen_or point several edges at one block. */
  private block(test: Test, ifTrue: DagNode, ifFalse: DagNode): Block {
    return {
      id: this.nextId++,
      test,
      testId: this.intern(`${test.value} ${test.op} ${test.operand}`),
      valueId: this.intern(test.value),
      ifTrue,
      ifFalse,
    };
  }

  private intern(key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(key, id);
    }
    return id;
  }
}

/** The blocks reachable from `root`, each before all its successors. */
function reachableBlocks(root: DagNode): Block[] {
  const order: Block[] = [];
  const seen = new Set<Block>();
  const stack: { block: Block; expanded: boolean }[] = [];
  if (!isLeaf(root)) stack.push({ block: root, expanded: false });
  while (stack.length > 0) {
    const top = stack.pop()!;
    if (top.expanded) {
      order.push(top.block);
      continue;
    }
    if (seen.has(top.block)) continue;
    seen.add(top.block);
    stack.push({ block: top.block, expanded: true });
    for (const next of [top.block.ifFalse, top.block.ifTrue]) {
      if (!isLeaf(next) && !seen.has(next)) stack.push({ block: next, expanded: false });
    }
  }
  return order.reverse();
}

/**
 * One optimizer pass's view of the DAG: the reachable blocks root first, their in-edges, and as bitsets the
 * edges on every path to each edge (optimize.c:find_edom) and the blocks on every path to each block
 * (find_dom).
 */
class FlowGraph {
  readonly blocks: Block[];
  readonly incoming: Edge[][];
  private readonly index = new Map<Block, number>();
  private readonly edgeWords: number;
  private readonly edgeDominators: Uint32Array;
  private readonly blockWords: number;
  private readonly blockDominators: Uint32Array;

  constructor(root: DagNode, options: { readonly edgeDominators: boolean }) {
    this.blocks = reachableBlocks(root);
    const count = this.blocks.length;
    for (const [i, block] of this.blocks.entries()) this.index.set(block, i);
    this.incoming = this.blocks.map(() => []);
    for (const block of this.blocks) {
      for (const outcome of [true, false]) {
        const next = outcome ? block.ifTrue : block.ifFalse;
        if (!isLeaf(next)) this.incoming[this.index.get(next)!]!.push({ from: block, outcome });
      }
    }
    this.edgeWords = options.edgeDominators ? (count * 2 + 31) >>> 5 : 0;
    this.edgeDominators = new Uint32Array(count * 2 * this.edgeWords);
    this.blockWords = (count + 31) >>> 5;
    this.blockDominators = new Uint32Array(count * this.blockWords);
    const common = new Uint32Array(this.edgeWords);
    for (let i = 0; i < count; i++) {
      const edges = this.incoming[i]!;
      // Edges: the intersection over the in-edges, plus the edge itself.
      common.fill(edges.length === 0 ? 0 : 0xffff_ffff);
      for (const edge of edges) {
        const base = this.edgeId(edge.from, edge.outcome) * this.edgeWords;
        for (let w = 0; w < this.edgeWords; w++) common[w]! &= this.edgeDominators[base + w]!;
      }
      for (const outcome of this.edgeWords === 0 ? [] : [true, false]) {
        const id = this.edgeId(this.blocks[i]!, outcome);
        this.edgeDominators.set(common, id * this.edgeWords);
        this.edgeDominators[id * this.edgeWords + (id >>> 5)]! |= 1 << (id & 31);
      }
      // Blocks: the intersection over the predecessors, plus the block itself.
      const own = i * this.blockWords;
      if (edges.length > 0) {
        this.blockDominators.fill(0xffff_ffff, own, own + this.blockWords);
        for (const edge of edges) {
          const base = this.index.get(edge.from)! * this.blockWords;
          for (let w = 0; w < this.blockWords; w++)
            this.blockDominators[own + w]! &= this.blockDominators[base + w]!;
        }
      }
      this.blockDominators[own + (i >>> 5)]! |= 1 << (i & 31);
    }
  }

  incomingOf(block: Block): readonly Edge[] {
    const i = this.index.get(block);
    return i === undefined ? [] : this.incoming[i]!;
  }

  edgeId(block: Block, outcome: boolean): number {
    return this.index.get(block)! * 2 + (outcome ? 0 : 1);
  }

  /** optimize.c:fold_edge over the edges dominating edge `id`: the outcome of `block`'s test, if they decide it. */
  fold(id: number, block: Block): boolean | undefined {
    const base = id * this.edgeWords;
    for (let w = 0; w < this.edgeWords; w++) {
      let bits = this.edgeDominators[base + w]!;
      while (bits !== 0) {
        const bit = 31 - Math.clz32(bits & -bits);
        bits &= bits - 1;
        const edge = w * 32 + bit;
        const earlier = this.blocks[edge >>> 1]!;
        if (earlier.valueId !== block.valueId || earlier.test.op !== block.test.op) continue;
        const outcome = (edge & 1) === 0;
        if (earlier.testId === block.testId) return outcome;
        // Equal to one constant on every path here, so not equal to another.
        if (
          outcome &&
          block.test.op === 'jeq' &&
          earlier.test.constantOperand &&
          block.test.constantOperand
        ) {
          return false;
        }
      }
    }
    return undefined;
  }

  /** True when every path from the root to `node` passes through `dominator`. */
  dominates(dominator: Block, node: Block): boolean {
    const i = this.index.get(dominator);
    const j = this.index.get(node);
    if (i === undefined || j === undefined) return false;
    return (this.blockDominators[j * this.blockWords + (i >>> 5)]! & (1 << (i & 31))) !== 0;
  }

  /** The blocks by level (distance to the farthest leaf), nearest the leaves first, as opt_blks visits them. */
  byIncreasingLevel(): Block[] {
    const level = new Map<DagNode, number>();
    const levelOf = (node: DagNode): number => (isLeaf(node) ? 0 : level.get(node)!);
    for (let i = this.blocks.length - 1; i >= 0; i--) {
      const block = this.blocks[i]!;
      level.set(block, 1 + Math.max(levelOf(block.ifTrue), levelOf(block.ifFalse)));
    }
    return [...this.blocks].sort((a, b) => levelOf(a) - levelOf(b));
  }
}

/** opt_loop(do_stmts = 0): opt_j on every edge, then or/and pull-ups, until nothing moves. */
function optimizeJumps(root: DagNode): DagNode {
  for (let pass = 0; pass < MAX_OPTIMIZER_PASSES; pass++) {
    const graph = new FlowGraph(root, { edgeDominators: true });
    if (graph.blocks.length > MAX_OPTIMIZED_BLOCKS) return root;
    let changed = false;
    const order = graph.byIncreasingLevel();
    for (const block of order) {
      for (const outcome of [true, false]) {
        if (jumpOver(graph, block, outcome)) changed = true;
      }
    }
    // Then pull-ups, over the graph as the jumps left it.
    const after = new FlowGraph(root, { edgeDominators: false });
    const incoming = new InEdges(after);
    for (const block of after.byIncreasingLevel()) {
      if (pullUp(block, 'or', incoming, after)) changed = true;
      if (pullUp(block, 'and', incoming, after)) changed = true;
    }
    if (!changed) return root;
  }
  return root;
}

/**
 * optimize.c:opt_j on one edge: skip a successor whose branches meet, then follow successors whose test a
 * dominating edge decides. True when the edge moved.
 */
function jumpOver(graph: FlowGraph, block: Block, outcome: boolean): boolean {
  const start = outcome ? block.ifTrue : block.ifFalse;
  if (isLeaf(start)) return false;
  const id = graph.edgeId(block, outcome);
  let target: DagNode = start.ifTrue === start.ifFalse ? start.ifTrue : start;
  while (!isLeaf(target)) {
    const decided = graph.fold(id, target);
    if (decided === undefined) break;
    target = decided ? target.ifTrue : target.ifFalse;
  }
  if (target === start) return false;
  if (outcome) block.ifTrue = target;
  else block.ifFalse = target;
  return true;
}

/** Where a block points on one outcome, as a place to rewrite. */
interface Slot {
  readonly owner: Block;
  readonly outcome: boolean;
}

/**
 * optimize.c:or_pullup / and_pullup. In a chain of blocks that share their true (or: and, false) successor
 * with `block`, a test on the value the predecessors just compared is moved up in front of the first test
 * on another value, where the earlier comparison can then decide it.
 */
function pullUp(block: Block, kind: 'or' | 'and', incoming: InEdges, dominators: FlowGraph): boolean {
  const edges = [...incoming.of(block)];
  if (edges.length === 0) return false;
  const value = edges[0]!.owner.valueId;
  if (edges.some((edge) => edge.owner.valueId !== value)) return false;
  // The chain follows the false branches of an or-chain, the true branches of an and-chain.
  const chainNext = kind === 'and';
  const shared = (node: Block): DagNode => (kind === 'or' ? node.ifTrue : node.ifFalse);
  const inChain = (node: DagNode): node is Block =>
    !isLeaf(node) && shared(node) === shared(block) && dominators.dominates(block, node);
  let diff: Slot = edges[0]!;
  let atTop = true;
  for (;;) {
    const node = read(diff);
    if (!inChain(node)) return false;
    if (node.valueId !== value) break;
    diff = { owner: node, outcome: chainNext };
    atTop = false;
  }
  let same: Slot = { owner: read(diff) as Block, outcome: chainNext };
  for (;;) {
    const node = read(same);
    if (!inChain(node)) return false;
    if (node.valueId === value) break;
    same = { owner: node, outcome: chainNext };
  }
  const pull = read(same) as Block;
  // Moving a test is only sound if nothing enters the chain between its old and new places.
  for (let node = read(diff) as Block; ; node = read({ owner: node, outcome: chainNext }) as Block) {
    if ((node !== block || !atTop) && incoming.of(node).length !== 1) return false;
    if (node === pull) break;
  }
  const top = read(diff);
  incoming.retarget(same, chainNext ? pull.ifTrue : pull.ifFalse);
  incoming.retarget({ owner: pull, outcome: chainNext }, top);
  if (atTop) {
    for (const edge of edges) incoming.retarget(edge, pull);
  } else {
    incoming.retarget(diff, pull);
  }
  return true;
}

/** The edges into each block, kept current as pull-ups move them. */
class InEdges {
  private readonly edges = new Map<Block, Slot[]>();

  constructor(graph: FlowGraph) {
    for (const block of graph.blocks) {
      this.edges.set(
        block,
        graph.incomingOf(block).map((edge) => ({ owner: edge.from, outcome: edge.outcome })),
      );
    }
  }

  of(block: Block): readonly Slot[] {
    return this.edges.get(block) ?? [];
  }

  /** Points `slot` at `target`, moving the edge between the lists. */
  retarget(slot: Slot, target: DagNode): void {
    const old = read(slot);
    if (!isLeaf(old)) {
      const list = this.edges.get(old) ?? [];
      const at = list.findIndex((edge) => edge.owner === slot.owner && edge.outcome === slot.outcome);
      if (at >= 0) list.splice(at, 1);
    }
    write(slot, target);
    if (!isLeaf(target)) {
      const list = this.edges.get(target) ?? [];
      list.push({ owner: slot.owner, outcome: slot.outcome });
      this.edges.set(target, list);
    }
  }
}

function read(slot: Slot): DagNode {
  return slot.outcome ? slot.owner.ifTrue : slot.owner.ifFalse;
}

function write(slot: Slot, node: DagNode): void {
  if (slot.outcome) slot.owner.ifTrue = node;
  else slot.owner.ifFalse = node;
}

/** optimize.c:intern_blocks: blocks with the same test and successors become one, repeatedly. */
function mergeEqualBlocks(root: DagNode): DagNode {
  const canonical = new Map<string, Block>();
  const replacement = new Map<DagNode, DagNode>();
  const resolve = (node: DagNode): DagNode => replacement.get(node) ?? node;
  const order = reachableBlocks(root);
  for (let i = order.length - 1; i >= 0; i--) {
    const block = order[i]!;
    block.ifTrue = resolve(block.ifTrue);
    block.ifFalse = resolve(block.ifFalse);
    const key = `${block.testId},${block.ifTrue.id},${block.ifFalse.id}`;
    const twin = canonical.get(key);
    if (twin === undefined) canonical.set(key, block);
    else replacement.set(block, twin);
  }
  return resolve(root);
}

function assertNever(value: never): never {
  throw new Error(`unexpected ${JSON.stringify(value)}`);
}
