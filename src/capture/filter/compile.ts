// Lowers a filter AST to the comparisons libpcap's BPF code makes, at the same offsets, and runs them over raw
// frames; only LINKTYPE_ETHERNET (1) and LINKTYPE_LINUX_SLL2 (276), no BPF extensions (VLAN tags are in the frame).
//
// Mirrors libpcap's code generator (gencode.c) and interpreter (bpf_filter.c):
// - the link layer's protocol field is at 12 on Ethernet (16, 20, ... after each `vlan` keyword) and at 0 on
//   SLL2; the network layer starts at 14 (18, 22, ...) on Ethernet and at 20 on SLL2. `vlan` shifts the offsets
//   of every primitive compiled after it, in reading order, across `or` too, exactly as libpcap does.
// - each primitive becomes the chain of comparisons gencode.c emits, in its order, wired into a decision DAG
//   as gen_and/gen_or/gen_not wire BPF blocks; optimize.ts then reduces the DAG as libpcap's optimizer does.
//   That decides the verdict on frames cut short by a snaplen: BPF rejects a packet the moment a load falls
//   past the captured bytes (or a division by zero happens), so it matters which comparisons remain.
// - arithmetic is unsigned 32-bit and a shift by 32 or more gives 0; constants fold as optimize.c folds them,
//   and a divisor or shift that folds to a bad constant is a compile error, as there.

import { linkTypeError } from './gencode.ts';
import {
  ACCEPT,
  type Condition,
  Dag,
  type DagNode,
  isLeaf,
  type JumpOp,
  REJECT,
  type Test,
} from './optimize.ts';
import type { ArithNode, ArithOp, Direction, FilterNode, LoadBase, RelOp } from './parser.ts';

export const LINKTYPE_ETHERNET = 1;
export const LINKTYPE_LINUX_SLL2 = 276;
export type FilterLinkType = typeof LINKTYPE_ETHERNET | typeof LINKTYPE_LINUX_SLL2;

const ETHERNET_LINK_TYPE_OFFSET = 12;
const ETHERNET_HEADER_LEN = ETHERNET_LINK_TYPE_OFFSET + 2;
const ETHERNET_DST = 0;
const ETHERNET_SRC = 6;
const SLL2_PROTOCOL_OFFSET = 0;
const SLL2_IFINDEX_OFFSET = 4;
const SLL2_PACKET_TYPE_OFFSET = 10;
const SLL2_HEADER_LEN = 20;
const PACKET_OUTGOING = 4;
const VLAN_TAG_LEN = 4;
const ETHERTYPE_IP = 0x0800;
const ETHERTYPE_IPV6 = 0x86dd;
const VLAN_ETHERTYPES = [0x8100, 0x88a8, 0x9100];
const ETHERTYPE_IPX = 0x8137;
const ETHERTYPE_ATALK = 0x809b;
const ETHERTYPE_AARP = 0x80f3;
/** Above this an Ethernet type/length field is a type, at or below it an 802.3 length. */
const ETHERMTU = 1500;
const LLCSAP_IP = 0x06;
const LLCSAP_IPX = 0xe0;
const LLCSAP_NETBEUI = 0xf0;
const LLCSAP_ISONS = 0xfe;
const VLAN_ID_MASK = 0x0fff;
const IPPROTO_FRAGMENT = 44;
const IPV6_HEADER_LEN = 40;
const IP_PROTOCOL = 9;
const IP_FRAGMENT = 6;
const IP_SRC = 12;
const IP_DST = 16;
const ARP_SPA = 14;
const ARP_TPA = 24;
const IPV6_NEXT_HEADER = 6;
const IPV6_SRC = 8;
const IPV6_DST = 24;
const FRAGMENT_OFFSET_MASK = 0x1fff;
const PORT_SRC = 0;
const PORT_DST = 2;

/** A compiled test for one link type: the frame, and its length on the wire (for `len`, `less`, `greater`). */
export type LinkPredicate = (frame: Uint8Array, wireLen: number) => boolean;

export type LinkCompileResult =
  /** `rejectsAll`: the optimized filter is a bare "no" (tcpdump then refuses it). */
  | { readonly ok: true; readonly match: LinkPredicate; readonly rejectsAll: boolean }
  | { readonly ok: false; readonly message: string };

/** Compiles `ast` for one link type; fails with libpcap's message for primitives the link cannot carry. */
export function compileForLink(ast: FilterNode, linkType: FilterLinkType): LinkCompileResult {
  const machine = new Machine();
  let condition: Condition;
  try {
    condition = new Lowering(machine, linkType).node(ast);
  } catch (error) {
    if (error instanceof LinkError) return { ok: false, message: error.message };
    throw error;
  }
  const dag = new Dag();
  const { root, preload } = dag.optimize(dag.build(condition, ACCEPT, REJECT));
  return {
    ok: true,
    rejectsAll: root === REJECT,
    match: (frame, wireLen) => {
      machine.frame = frame;
      machine.wireLen = wireLen;
      const verdict = run(machine, root, preload);
      machine.frame = EMPTY;
      return verdict;
    },
  };
}

class LinkError extends Error {}

const EMPTY = new Uint8Array(0);

/** The packet under test; a load past its end raises `missing` (and reads 0) instead of throwing. */
class Machine {
  frame: Uint8Array = EMPTY;
  wireLen = 0;
  missing = false;

  u8(at: number): number {
    const frame = this.frame;
    if (at + 1 > frame.length) return this.miss();
    return frame[at]!;
  }

  u16(at: number): number {
    const frame = this.frame;
    if (at + 2 > frame.length) return this.miss();
    return (frame[at]! << 8) | frame[at + 1]!;
  }

  u32(at: number): number {
    const frame = this.frame;
    if (at + 4 > frame.length) return this.miss();
    return ((frame[at]! << 24) | (frame[at + 1]! << 16) | (frame[at + 2]! << 8) | frame[at + 3]!) >>> 0;
  }

  /** BPF's `ldxb 4*([at]&0xf)`: the IPv4 header length as the header says, even when below 20. */
  ipHeaderLen(at: number): number {
    return (this.u8(at) & 0x0f) * 4;
  }

  /** BPF's reaction to a bad load or a division by zero: stop and reject. */
  miss(): 0 {
    this.missing = true;
    return 0;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Tests and conditions

const TRUE_CONDITION: Condition = { kind: 'const', value: true };

function all(...conditions: Condition[]): Condition {
  return conditions.reduce((left, right) => ({ kind: 'and', left, right }));
}

function any(...conditions: Condition[]): Condition {
  return conditions.reduce((left, right) => ({ kind: 'or', left, right }));
}

function not(operand: Condition): Condition {
  return { kind: 'not', operand };
}

function direction(dir: Direction, src: Condition, dst: Condition): Condition {
  switch (dir) {
    case 'src':
      return src;
    case 'dst':
      return dst;
    case 'srcOrDst':
      return any(src, dst);
    case 'srcAndDst':
      return all(src, dst);
    default:
      return assertNever(dir);
  }
}

/** A value computed from the packet, with the name that identifies it (value numbering, in effect). */
interface Value {
  readonly name: string;
  readonly read: () => number;
  /** Defined when the value is a compile-time constant. */
  readonly constant: number | undefined;
}

function constantValue(value: number): Value {
  return { name: `#${value}`, read: () => value, constant: value };
}

/** Turns the AST into conditions over concrete offsets, in reading order (so `vlan` shifts what follows). */
class Lowering {
  private linkTypeOffset: number;
  private networkOffset: number;
  private nextFixed = 0;

  constructor(
    private readonly m: Machine,
    private readonly linkType: FilterLinkType,
  ) {
    const ethernet = linkType === LINKTYPE_ETHERNET;
    this.linkTypeOffset = ethernet ? ETHERNET_LINK_TYPE_OFFSET : SLL2_PROTOCOL_OFFSET;
    this.networkOffset = ethernet ? ETHERNET_HEADER_LEN : SLL2_HEADER_LEN;
  }

  node(node: FilterNode): Condition {
    const linkError = linkTypeError(node, this.linkType);
    if (linkError !== undefined) fail(linkError);
    const nl = this.networkOffset;
    switch (node.kind) {
      case 'true':
        return TRUE_CONDITION;
      case 'and':
      case 'or': {
        const left = this.node(node.left);
        return { kind: node.kind, left, right: this.node(node.right) };
      }
      case 'not':
        return not(this.node(node.operand));
      case 'etherType':
        return this.linkProtocol(node.etherType);
      case 'ipProto':
        return all(this.etherType(ETHERTYPE_IP), this.byteIs(nl + IP_PROTOCOL, node.protocol));
      case 'ip6Proto': {
        const nextHeader = nl + IPV6_NEXT_HEADER;
        return all(
          this.etherType(ETHERTYPE_IPV6),
          any(
            all(this.byteIs(nextHeader, IPPROTO_FRAGMENT), this.byteIs(nl + IPV6_HEADER_LEN, node.protocol)),
            this.byteIs(nextHeader, node.protocol),
          ),
        );
      }
      case 'hostAddr': {
        const family = this.etherType(node.etherType);
        const ip = node.etherType === ETHERTYPE_IP;
        // A zero mask makes the comparison constant; libpcap's optimizer then drops the load altogether.
        const address = (at: number): Condition =>
          node.mask === 0 ? TRUE_CONDITION : this.wordIs(at, node.mask, node.addr);
        return all(
          family,
          direction(node.dir, address(nl + (ip ? IP_SRC : ARP_SPA)), address(nl + (ip ? IP_DST : ARP_TPA))),
        );
      }
      case 'host6': {
        const words = (at: number): Condition => {
          const compared = node.mask.map((mask, word) =>
            mask === 0 ? TRUE_CONDITION : this.wordIs(at + word * 4, mask, node.addr[word]!),
          );
          return all(...compared);
        };
        return all(
          this.etherType(ETHERTYPE_IPV6),
          direction(node.dir, words(nl + IPV6_SRC), words(nl + IPV6_DST)),
        );
      }
      case 'linkByte': {
        const m = this.m;
        const { offset, value } = node;
        const name = `b[${offset}]`;
        if (node.op === '=') return this.test(name, 'jeq', value, () => m.u8(offset) === value);
        if (node.op === '>') return this.test(name, 'jgt', value, () => m.u8(offset) > value);
        return not(this.test(name, 'jge', value, () => m.u8(offset) >= value));
      }
      case 'etherAddr': {
        const high = Math.floor(node.mac / 0x1_0000_0000);
        const low = node.mac >>> 0;
        // gen_bcmp compares the last four octets first, then the first two.
        const mac = (at: number): Condition =>
          all(this.wordIs(at + 2, 0xffff_ffff, low), this.halfIs(at, 0xffff, high));
        return direction(node.dir, mac(ETHERNET_SRC), mac(ETHERNET_DST));
      }
      case 'port':
        return this.port(node.family, node.protocols, node.dir, node.low, node.high);
      case 'length': {
        const m = this.m;
        const limit = node.value;
        if (node.op === '>=') return this.test('len', 'jge', limit, () => m.wireLen >= limit);
        return not(this.test('len', 'jgt', limit, () => m.wireLen > limit));
      }
      case 'vlan': {
        const typeAt = this.linkTypeOffset;
        const tagged = any(...VLAN_ETHERTYPES.map((etherType) => this.halfIs(typeAt, 0xffff, etherType)));
        this.linkTypeOffset += VLAN_TAG_LEN;
        this.networkOffset += VLAN_TAG_LEN;
        return node.id === undefined ? tagged : all(tagged, this.halfIs(nl, VLAN_ID_MASK, node.id));
      }
      case 'relation':
        return this.relation(node.op, node.left, node.right);
      case 'linkBroadcast':
        return all(
          this.wordIs(ETHERNET_DST + 2, 0xffff_ffff, 0xffff_ffff),
          this.halfIs(ETHERNET_DST, 0xffff, 0xffff),
        );
      case 'linkMulticast': {
        const m = this.m;
        return this.test(`b[${ETHERNET_DST}]`, 'jset', 1, () => (m.u8(ETHERNET_DST) & 1) !== 0);
      }
      case 'packetDirection': {
        const outgoing = this.byteIs(SLL2_PACKET_TYPE_OFFSET, PACKET_OUTGOING);
        return node.outbound ? outgoing : not(outgoing);
      }
      case 'ifindex':
        return this.wordIs(SLL2_IFINDEX_OFFSET, 0xffff_ffff, node.index);
      default:
        return assertNever(node);
    }
  }

  private test(value: string, op: JumpOp, operand: number, decide: () => boolean): Condition {
    return { kind: 'test', test: { value, op, operand: `#${operand}`, constantOperand: true, decide } };
  }

  /** A comparison of constants only the second optimizer phase folds (see Test.fixedOutcome). */
  private fixed(outcome: boolean): Condition {
    // Each one is its own value, so that jump threading never decides it.
    const value = `const${this.nextFixed++}`;
    const test: Test = {
      value,
      op: 'jeq',
      operand: '#0',
      constantOperand: true,
      fixedOutcome: outcome,
      decide: () => outcome,
    };
    return { kind: 'test', test };
  }

  private etherType(etherType: number): Condition {
    return this.halfIs(this.linkTypeOffset, 0xffff, etherType);
  }

  /** gencode.c:gen_linktype: SLL2 compares its protocol field; Ethernet also knows 802.3/802.2 framings. */
  private linkProtocol(protocol: number): Condition {
    if (this.linkType !== LINKTYPE_ETHERNET) return this.etherType(protocol);
    const m = this.m;
    const lt = this.linkTypeOffset;
    const llc = this.networkOffset;
    const ieee8023 = not(this.test(`h[${lt}]`, 'jgt', ETHERMTU, () => m.u16(lt) > ETHERMTU));
    /** The 8-byte SNAP header AA AA 03 <oui> <type>, compared as libpcap's gen_bcmp does (last 4 bytes first). */
    const snap = (oui: number, type: number): Condition =>
      all(
        this.wordIs(llc + 4, 0xffff_ffff, ((oui & 0xffff) * 0x1_0000 + type) >>> 0),
        this.wordIs(llc, 0xffff_ffff, (0xaaaa_0300 + (oui >>> 16)) >>> 0),
      );
    switch (protocol) {
      case LLCSAP_ISONS:
      case LLCSAP_IP:
      case LLCSAP_NETBEUI:
        return all(ieee8023, this.halfIs(llc, 0xffff, protocol * 0x0101));
      case LLCSAP_IPX:
        return any(
          this.etherType(ETHERTYPE_IPX),
          all(
            ieee8023,
            any(snap(0, ETHERTYPE_IPX), any(this.byteIs(llc, LLCSAP_IPX), this.halfIs(llc, 0xffff, 0xffff))),
          ),
        );
      case ETHERTYPE_ATALK:
        return any(this.etherType(ETHERTYPE_ATALK), all(ieee8023, snap(0x08_0007, ETHERTYPE_ATALK)));
      case ETHERTYPE_AARP:
        return any(this.etherType(ETHERTYPE_AARP), all(ieee8023, snap(0, ETHERTYPE_AARP)));
      default:
        // Up to 1500 the field is an 802.3 length, and the protocol is the LLC DSAP.
        return protocol <= ETHERMTU ? all(ieee8023, this.byteIs(llc, protocol)) : this.etherType(protocol);
    }
  }

  private byteIs(at: number, expected: number): Condition {
    const m = this.m;
    return this.test(`b[${at}]`, 'jeq', expected, () => m.u8(at) === expected);
  }

  private halfIs(at: number, mask: number, expected: number): Condition {
    const m = this.m;
    const name = mask === 0xffff ? `h[${at}]` : `h[${at}]&${mask}`;
    return this.test(name, 'jeq', expected, () => (m.u16(at) & mask) === expected);
  }

  private wordIs(at: number, mask: number, expected: number): Condition {
    const m = this.m;
    const name = mask === 0xffff_ffff ? `w[${at}]` : `w[${at}]&${mask}`;
    return this.test(name, 'jeq', expected, () => (m.u32(at) & mask) >>> 0 === expected);
  }

  /** gen_port/gen_port6: protocol, (IPv4) not a later fragment, then the port at the real header length. */
  private port(
    family: 'ip' | 'ip6',
    protocols: readonly number[],
    dir: Direction,
    low: number,
    high: number,
  ): Condition {
    const m = this.m;
    const nl = this.networkOffset;
    const ip = family === 'ip';
    const portAt = (field: number): Condition => {
      const name = ip ? `h[x${nl}+${nl + field}]` : `h[${nl + IPV6_HEADER_LEN + field}]`;
      const read = ip
        ? () => m.u16(nl + m.ipHeaderLen(nl) + field)
        : () => m.u16(nl + IPV6_HEADER_LEN + field);
      if (low === high) return this.test(name, 'jeq', low, () => read() === low);
      return all(
        this.test(name, 'jge', low, () => read() >= low),
        not(this.test(name, 'jgt', high, () => read() > high)),
      );
    };
    const ports = direction(dir, portAt(PORT_SRC), portAt(PORT_DST));
    const protocolAt = nl + (ip ? IP_PROTOCOL : IPV6_NEXT_HEADER);
    const perProtocol = protocols.map((protocol) =>
      ip
        ? all(this.byteIs(protocolAt, protocol), this.firstFragment(), ports)
        : all(this.byteIs(protocolAt, protocol), ports),
    );
    return all(this.etherType(ip ? ETHERTYPE_IP : ETHERTYPE_IPV6), any(...perProtocol));
  }

  /** gen_ipfrag: `ldh [nl+6]; jset #0x1fff` false, i.e. fragment offset 0. */
  private firstFragment(): Condition {
    const m = this.m;
    const at = this.networkOffset + IP_FRAGMENT;
    return not(
      this.test(`h[${at}]`, 'jset', FRAGMENT_OFFSET_MASK, () => (m.u16(at) & FRAGMENT_OFFSET_MASK) !== 0),
    );
  }

  /** gen_relation: the loads' protocol checks first, then one comparison (negated for <=, < and !=). */
  private relation(op: RelOp, leftNode: ArithNode, rightNode: ArithNode): Condition {
    const guards: Condition[] = [];
    const left = this.value(leftNode, guards);
    const right = this.value(rightNode, guards);
    const [jump, negate] = JUMPS[op];
    const compare = comparator(jump);
    let comparison: Condition;
    if (left.constant !== undefined && right.constant !== undefined) {
      const outcome = compare(left.constant, right.constant);
      // Two bare numbers fold at once; computed constants only in the optimizer's second phase.
      const literal = leftNode.kind === 'const' && rightNode.kind === 'const';
      comparison = literal ? { kind: 'const', value: outcome } : this.fixed(outcome);
    } else {
      const test: Test = {
        value: left.name,
        op: jump,
        operand: right.name,
        constantOperand: right.constant !== undefined,
        decide: () => compare(left.read(), right.read()),
      };
      comparison = { kind: 'test', test };
    }
    return all(...guards, negate ? not(comparison) : comparison);
  }

  private value(node: ArithNode, guards: Condition[]): Value {
    const m = this.m;
    switch (node.kind) {
      case 'const':
        return constantValue(node.value);
      case 'len':
        return { name: 'len', read: () => m.wireLen, constant: undefined };
      case 'neg': {
        const operand = this.value(node.operand, guards);
        if (operand.constant !== undefined) return constantValue((0 - operand.constant) >>> 0);
        return { name: `(-${operand.name})`, read: () => (0 - operand.read()) >>> 0, constant: undefined };
      }
      case 'binary': {
        const left = this.value(node.left, guards);
        const right = this.value(node.right, guards);
        const apply = arithmetic(m, node.op);
        // optimize.c folds constant operands and refuses what it cannot fold.
        if (right.constant !== undefined) {
          if (node.op === '/' && right.constant === 0) fail('division by zero');
          if (node.op === '%' && right.constant === 0) fail('modulus by zero');
          if ((node.op === '<<' || node.op === '>>') && right.constant > 31)
            fail('shift by more than 31 bits');
        }
        if (left.constant !== undefined && right.constant !== undefined) {
          return constantValue(apply(left.constant, right.constant));
        }
        return {
          name: `(${left.name}${node.op}${right.name})`,
          read: () => apply(left.read(), right.read()),
          constant: undefined,
        };
      }
      case 'load':
        return this.load(node.base, this.value(node.offset, guards), node.size, guards);
      default:
        return assertNever(node);
    }
  }

  /** gen_load: the load at `base + offset`, adding the protocol checks the load implies to `guards`. */
  private load(base: LoadBase, offset: Value, size: 1 | 2 | 4, guards: Condition[]): Value {
    const m = this.m;
    const read = size === 1 ? m.u8.bind(m) : size === 2 ? m.u16.bind(m) : m.u32.bind(m);
    const nl = this.networkOffset;
    const kind = size === 1 ? 'b' : size === 2 ? 'h' : 'w';
    // A relation compares against the X register where other primitives compare against a constant, so
    // libpcap's optimizer never answers one from the other: their names differ (`@` marks relation loads).
    const at = (start: number, prefix = ''): string => `${kind}@[${prefix}${start}+${offset.name}]`;
    switch (base.layer) {
      case 'link':
        return { name: at(0), read: () => read(offset.read()), constant: undefined };
      case 'network':
        guards.push(this.etherType(base.etherType));
        return { name: at(nl), read: () => read(nl + offset.read()), constant: undefined };
      case 'transport':
        guards.push(
          this.etherType(ETHERTYPE_IP),
          this.byteIs(nl + IP_PROTOCOL, base.protocol),
          this.firstFragment(),
        );
        return {
          name: at(nl, `x${nl}+`),
          // BPF adds the index to the header length in its 32-bit X register before the load.
          read: () => read(nl + ((m.ipHeaderLen(nl) + offset.read()) >>> 0)),
          constant: undefined,
        };
      case 'transport6':
        guards.push(this.etherType(ETHERTYPE_IPV6), this.byteIs(nl + IPV6_NEXT_HEADER, base.protocol));
        return {
          name: at(nl + IPV6_HEADER_LEN),
          read: () => read(nl + IPV6_HEADER_LEN + offset.read()),
          constant: undefined,
        };
      default:
        return assertNever(base);
    }
  }
}

/** The jump for each relation, and whether its branches swap (libpcap's irelop). */
const JUMPS: Readonly<Record<RelOp, readonly [JumpOp, boolean]>> = {
  '>': ['jgt', false],
  '>=': ['jge', false],
  '=': ['jeq', false],
  '<=': ['jgt', true],
  '<': ['jge', true],
  '!=': ['jeq', true],
};

function comparator(op: JumpOp): (left: number, right: number) => boolean {
  switch (op) {
    case 'jeq':
      return (left, right) => left === right;
    case 'jgt':
      return (left, right) => left > right;
    case 'jge':
      return (left, right) => left >= right;
    case 'jset':
      return (left, right) => (left & right) !== 0;
    default:
      return assertNever(op);
  }
}

function arithmetic(m: Machine, op: ArithOp): (left: number, right: number) => number {
  switch (op) {
    case '+':
      return (left, right) => (left + right) >>> 0;
    case '-':
      return (left, right) => (left - right) >>> 0;
    case '*':
      return (left, right) => Math.imul(left, right) >>> 0;
    case '/':
      return (left, right) => (right === 0 ? m.miss() : Math.floor(left / right));
    case '%':
      return (left, right) => (right === 0 ? m.miss() : left % right);
    case '&':
      return (left, right) => (left & right) >>> 0;
    case '|':
      return (left, right) => (left | right) >>> 0;
    case '^':
      return (left, right) => (left ^ right) >>> 0;
    case '<<':
      return (left, right) => (right >= 32 ? 0 : (left << right) >>> 0);
    case '>>':
      return (left, right) => (right >= 32 ? 0 : left >>> right);
    default:
      return assertNever(op);
  }
}

/** Walks the DAG like bpf_filter: a load past the captured bytes (or a division by zero) rejects at once. */
function run(m: Machine, root: DagNode, preload: Test | undefined): boolean {
  if (preload !== undefined) {
    m.missing = false;
    preload.decide();
    if (m.missing) return false;
  }
  let node = root;
  while (!isLeaf(node)) {
    m.missing = false;
    const outcome = node.test.decide();
    if (m.missing) return false;
    node = outcome ? node.ifTrue : node.ifFalse;
  }
  return node.verdict;
}

function fail(message: string): never {
  throw new LinkError(message);
}

function assertNever(value: never): never {
  throw new Error(`unexpected ${JSON.stringify(value)}`);
}
