// Recursive-descent parser for pcap-filter expressions into a typed AST, with libpcap's qualifier inheritance
// and error texts; no protochain, MPLS/PPPoE/Geneve, 802.11, ATM, SS7, pf, DECnet/ISO/IPX primitives.
//
// The grammar follows libpcap's grammar.y in spirit (our own parser, not a port):
//
//   prog  := ε | expr
//   expr  := term { ('and' | 'or') (term | id) }         and/or share one precedence, left to right
//   term  := 'not' term | rterm
//   rterm := head id | '(' expr ')' | pname | arth relop arth | other
//   head  := [pname] dqual [aqual] | [pname] aqual | [pname] 'proto' | [pname] 'gateway'
//   id    := nid | pnum | '(' pid ')'                    an id inherits the qualifiers of what came before it
//   nid   := ID | HID ['/' NUM | 'mask' HID] | EID | 'not' id
//   pid   := (nid | pnum) { ('and' | 'or') id }
//   other := [pname] 'broadcast' | [pname] 'multicast' | 'less' NUM | 'greater' NUM | 'vlan' [pnum]
//          | 'inbound' | 'outbound' | 'ifindex' NUM
//   arth  := pnum | pname '[' arth [':' NUM] ']' | arth op arth | '-' arth | '(' arth ')' | 'len'
//
// "host 10.0.0.1 or 10.0.0.2" works because the bare id after `or` takes the qualifiers {host} of the term
// before it; a parenthesised expression passes on the qualifiers from before its parenthesis, and a bare
// protocol name passes on none, so "tcp and 80" fails with libpcap's "syntax error in filter expression".
//
// Semantic checks (gencode.ts) run as soon as a primitive is complete, as libpcap's code generator runs during
// the parse, so the first error in reading order wins, whether lexical, semantic or syntactic. Where bison
// decides with its LALR tables (a number after `or` starting an id or a relation, a parenthesis opening an
// expression, an id list or an operand), the parser looks ahead to the same choice.

import type { FilterLinkType } from './compile.ts';
import {
  type AddrQual,
  and,
  binary,
  constant,
  type DirQual,
  FilterError,
  fail,
  genBroadcast,
  genEther,
  genIpv6,
  genMasked,
  genMulticast,
  genName,
  genNumber,
  genProtoAbbrev,
  linkTypeError,
  loadBase,
  not,
  or,
  PLACEHOLDER,
  type ProtoQual,
  QERR,
  type Qual,
  relation,
  SYNTAX_ERROR,
  Unsupported,
  unsupported,
  VLAN_ID_MAX,
} from './gencode.ts';
import { type Keyword, type Punct, type Token, tokenize } from './lexer.ts';

/** Which address of a packet a primitive looks at. */
export type Direction = 'src' | 'dst' | 'srcOrDst' | 'srcAndDst';

export type ArithOp = '+' | '-' | '*' | '/' | '%' | '&' | '|' | '^' | '<<' | '>>';
export type RelOp = '>' | '>=' | '=' | '<=' | '<' | '!=';

/**
 * Where a `proto[offset:size]` load counts from, and what the packet must be for it to happen:
 * the link header (no check), the network header of a given EtherType, the IPv4 payload of a given protocol
 * (first fragment only; offset after the real IHL), or the payload of a fixed 40-byte IPv6 header.
 */
export type LoadBase =
  | { readonly layer: 'link' }
  | { readonly layer: 'network'; readonly etherType: number }
  | { readonly layer: 'transport'; readonly protocol: number }
  | { readonly layer: 'transport6'; readonly protocol: number };

export type ArithNode =
  | { readonly kind: 'const'; readonly value: number }
  /** The packet's length on the wire. */
  | { readonly kind: 'len' }
  | { readonly kind: 'load'; readonly base: LoadBase; readonly offset: ArithNode; readonly size: 1 | 2 | 4 }
  | { readonly kind: 'neg'; readonly operand: ArithNode }
  | { readonly kind: 'binary'; readonly op: ArithOp; readonly left: ArithNode; readonly right: ArithNode };

/** A filter expression; every leaf is one test libpcap would compile to BPF. */
export type FilterNode =
  /** The empty filter. */
  | { readonly kind: 'true' }
  | { readonly kind: 'and'; readonly left: FilterNode; readonly right: FilterNode }
  | { readonly kind: 'or'; readonly left: FilterNode; readonly right: FilterNode }
  | { readonly kind: 'not'; readonly operand: FilterNode }
  /**
   * The link layer carries protocol `etherType`: the SLL2 protocol type, or on Ethernet the type field, an
   * 802.2 LLC SAP for values up to 1500, and the SNAP/802.3 forms of IPX and AppleTalk (gen_linktype).
   */
  | { readonly kind: 'etherType'; readonly etherType: number }
  /** An IPv4 packet whose protocol field is `protocol` (any fragment). */
  | { readonly kind: 'ipProto'; readonly protocol: number }
  /** An IPv6 packet whose next header is `protocol`, directly or after one fragment header. */
  | { readonly kind: 'ip6Proto'; readonly protocol: number }
  /** IPv4 (0x0800), ARP (0x0806) or RARP (0x8035) addresses under `mask` equal `addr`. */
  | {
      readonly kind: 'hostAddr';
      readonly etherType: 0x0800 | 0x0806 | 0x8035;
      readonly dir: Direction;
      readonly addr: number;
      readonly mask: number;
    }
  /** IPv6 source/destination address under a mask, each as four 32-bit words (most significant first). */
  | {
      readonly kind: 'host6';
      readonly dir: Direction;
      readonly addr: readonly number[];
      readonly mask: readonly number[];
    }
  /** Ethernet source/destination MAC (a 48-bit number). */
  | { readonly kind: 'etherAddr'; readonly dir: Direction; readonly mac: number }
  /**
   * A TCP/UDP/SCTP port in [low, high] over IPv4 (first fragments only) or IPv6 (no extension headers);
   * `protocols` lists the IP protocol numbers accepted.
   */
  | {
      readonly kind: 'port';
      readonly family: 'ip' | 'ip6';
      readonly protocols: readonly number[];
      readonly dir: Direction;
      readonly low: number;
      readonly high: number;
    }
  /** `less N` (length <= N) and `greater N` (length >= N). */
  | { readonly kind: 'length'; readonly op: '<=' | '>='; readonly value: number }
  /** An 802.1Q/802.1ad tag (and its VLAN id); shifts every later primitive's offsets by 4 bytes. */
  | { readonly kind: 'vlan'; readonly id: number | undefined }
  | { readonly kind: 'relation'; readonly op: RelOp; readonly left: ArithNode; readonly right: ArithNode }
  | { readonly kind: 'linkBroadcast' }
  | { readonly kind: 'linkMulticast' }
  /** `inbound`/`outbound`: the SLL2 packet type is (not) PACKET_OUTGOING. */
  | { readonly kind: 'packetDirection'; readonly outbound: boolean }
  /** `ifindex N`: the SLL2 interface index. */
  | { readonly kind: 'ifindex'; readonly index: number }
  /** `byte N op V` (=, <, >): libpcap 1.10 compares the byte at offset N of the link-layer header. */
  | {
      readonly kind: 'linkByte';
      readonly offset: number;
      readonly op: '=' | '<' | '>';
      readonly value: number;
    };

export type ParseResult =
  | { readonly ok: true; readonly ast: FilterNode }
  | { readonly ok: false; readonly message: string };

/**
 * Parses a filter expression; never throws. Error messages are libpcap's, without tcpdump's "tcpdump: ".
 * With a link type, primitives that link type cannot carry fail here, in reading order as in libpcap.
 */
export function parseFilter(text: string, linkType?: FilterLinkType): ParseResult {
  const parser = new Parser(tokenize(text), linkType);
  try {
    return { ok: true, ast: parser.parseProgram() };
  } catch (error) {
    if (error instanceof FilterError) return { ok: false, message: error.message };
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Keywords the grammar dispatches on

const PNAMES = new Set<Keyword>([
  'link',
  'ip',
  'arp',
  'rarp',
  'sctp',
  'tcp',
  'udp',
  'icmp',
  'igmp',
  'igrp',
  'pim',
  'vrrp',
  'carp',
  'atalk',
  'aarp',
  'decnet',
  'lat',
  'sca',
  'moprc',
  'mopdl',
  'ip6',
  'icmp6',
  'ah',
  'esp',
  'iso',
  'esis',
  'isis',
  'l1',
  'l2',
  'iih',
  'lsp',
  'snp',
  'psnp',
  'csnp',
  'clnp',
  'stp',
  'ipx',
  'netbeui',
  'radio',
]);

const DIR_KEYWORDS = new Set<Keyword>(['src', 'dst', 'addr1', 'addr2', 'addr3', 'addr4', 'ra', 'ta']);
const AQUAL_KEYWORDS = new Set<Keyword>(['host', 'net', 'port', 'portrange']);
const HEAD_END_KEYWORDS = new Set<Keyword>(['proto', 'protochain', 'gateway']);

/** Keywords libpcap accepts that packetlab's filter compiler does not implement. */
const UNSUPPORTED_KEYWORDS = new Set<Keyword>([
  'lane',
  'llc',
  'metac',
  'bcc',
  'oam',
  'oamf4',
  'oamf4ec',
  'oamf4sc',
  'sc',
  'ilmic',
  'vpi',
  'vci',
  'connectmsg',
  'metaconnect',
  'on',
  'rset',
  'rnr',
  'srnr',
  'reason',
  'action',
  'fisu',
  'lssu',
  'msu',
  'hfisu',
  'hlssu',
  'hmsu',
  'sio',
  'opc',
  'dpc',
  'sls',
  'hsio',
  'hopc',
  'hdpc',
  'hsls',
  'type',
  'subtype',
  'dir',
]);

// ---------------------------------------------------------------------------------------------------------
// The parser proper

const ARITH_PRECEDENCE: ReadonlyMap<Punct, number> = new Map<Punct, number>([
  ['|', 1],
  ['&', 2],
  ['<<', 3],
  ['>>', 3],
  ['+', 4],
  ['-', 4],
  ['*', 5],
  ['/', 5],
]);
/** Above every binary operator, as bison's %prec UMINUS. */
const UMINUS_PRECEDENCE = 6;
const RELOPS = new Set<Punct>(['>', '>=', '=', '<=', '<', '!=']);

function isArithOperator(token: Token | undefined): boolean {
  return (
    token !== undefined &&
    token.kind === 'punct' &&
    (ARITH_PRECEDENCE.has(token.punct) || token.punct === '%' || token.punct === '^')
  );
}

/** A token that can appear inside an arithmetic operand (`name` only when it indexes, `name[`). */
function isArithToken(token: Token, next: Token | undefined): boolean {
  switch (token.kind) {
    case 'num':
      return true;
    case 'punct':
      return isArithOperator(token) || token.punct === '[' || token.punct === ']' || token.punct === ':';
    case 'keyword':
      return token.keyword === 'len' || (PNAMES.has(token.keyword) && isPunct(next, '['));
    default:
      return false;
  }
}

function isKeyword(token: Token, keyword: Keyword): boolean {
  return token.kind === 'keyword' && token.keyword === keyword;
}

function isPunct(token: Token | undefined, punct: Punct): boolean {
  return token !== undefined && token.kind === 'punct' && token.punct === punct;
}

function isNot(token: Token | undefined): boolean {
  return token !== undefined && (isKeyword(token, 'not') || isPunct(token, '!'));
}

function isConnective(token: Token | undefined): boolean {
  return token !== undefined && (isKeyword(token, 'and') || isKeyword(token, 'or'));
}

interface Parsed {
  readonly node: FilterNode;
  /** The qualifiers a bare id after this piece inherits. */
  readonly q: Qual;
}

class Parser {
  private pos = 0;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly linkType: FilterLinkType | undefined,
  ) {}

  /** Fails now when the capture's link type cannot carry `node`, as libpcap's code generator does. */
  private linked(node: FilterNode): FilterNode {
    if (this.linkType !== undefined) {
      const error = linkTypeError(node, this.linkType);
      if (error !== undefined) fail(error);
    }
    return node;
  }

  /** The first unsupported feature met, reported once the parse succeeds. */
  private unsupportedFeature: string | undefined;

  parseProgram(): FilterNode {
    if (this.peek().kind === 'eof') return { kind: 'true' };
    const { node } = this.parseExpr(QERR);
    if (this.peek().kind !== 'eof') this.syntaxError();
    if (this.unsupportedFeature !== undefined) fail(this.unsupportedFeature);
    return node;
  }

  /** Runs a semantic action; an unsupported feature is noted and parsing goes on. */
  private semantic<T>(action: () => T, placeholder: T): T {
    try {
      return action();
    } catch (error) {
      if (!(error instanceof Unsupported)) throw error;
      this.unsupportedFeature ??= error.message;
      return placeholder;
    }
  }

  /** The next token; reaching a lexical error reports it, as libpcap does when bison asks for that token. */
  private peek(): Token {
    const token = this.tokens[this.pos]!;
    if (token.kind === 'error') fail(token.message ?? SYNTAX_ERROR);
    return token;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'eof') this.pos++;
    return token;
  }

  /**
   * The next token without reporting a lexical error: for optional continuations, where bison reduces (and
   * runs the pending semantic action, whose error then wins) before it notices a bad lookahead.
   */
  private peekRaw(): Token {
    return this.tokens[this.pos]!;
  }

  private syntaxError(): never {
    this.peek();
    return fail(SYNTAX_ERROR);
  }

  private expectPunct(punct: Punct): void {
    if (!isPunct(this.peek(), punct)) this.syntaxError();
    this.pos++;
  }

  private expectNumber(): number {
    const token = this.peek();
    if (token.kind !== 'num') this.syntaxError();
    this.pos++;
    return token.value;
  }

  private parseExpr(qBefore: Qual): Parsed {
    let { node, q } = this.parseTerm(qBefore);
    while (isConnective(this.peek())) {
      const connective = this.next();
      const combine = isKeyword(connective, 'and') ? and : or;
      if (this.startsId(this.pos)) {
        node = combine(node, this.parseId(q));
      } else {
        const term = this.parseTerm(q);
        node = combine(node, term.node);
        q = term.q;
      }
    }
    return { node, q };
  }

  private parseTerm(qBefore: Qual): Parsed {
    if (isNot(this.peek())) {
      this.pos++;
      const term = this.parseTerm(qBefore);
      return { node: not(term.node), q: term.q };
    }
    return this.parseRterm(qBefore);
  }

  private parseRterm(qBefore: Qual): Parsed {
    const token = this.peek();
    if (isPunct(token, '(')) {
      if (this.parenIsArith(this.pos)) return { node: this.parseRelation(), q: QERR };
      this.pos++;
      const inner = this.parseExpr(qBefore);
      this.expectPunct(')');
      return { node: inner.node, q: qBefore };
    }
    if (token.kind === 'num' || isPunct(token, '-') || isKeyword(token, 'len')) {
      return { node: this.parseRelation(), q: QERR };
    }
    if (token.kind !== 'keyword') return this.syntaxError();
    const keyword = token.keyword;
    if (PNAMES.has(keyword)) {
      this.pos++;
      const after = this.peek();
      this.pos--;
      if (isPunct(after, '[')) return { node: this.parseRelation(), q: QERR };
      if (after !== undefined && after.kind === 'keyword' && this.startsHeadOrOther(after.keyword)) {
        this.pos++;
        return this.parseQualified(keyword);
      }
      this.pos++;
      // bison reduces a bare protocol name only when what follows can end a term.
      if (!this.atTermEnd()) this.syntaxError();
      return { node: this.semantic(() => genProtoAbbrev(keyword), PLACEHOLDER), q: QERR };
    }
    if (this.startsHeadOrOther(keyword)) return this.parseQualified('default');
    switch (keyword) {
      case 'less':
      case 'greater': {
        this.pos++;
        const value = this.expectNumber();
        return { node: { kind: 'length', op: keyword === 'less' ? '<=' : '>=', value }, q: QERR };
      }
      case 'vlan': {
        this.pos++;
        const next = this.peekRaw();
        if (next.kind !== 'num' && !isPunct(next, '(')) {
          return { node: this.linked({ kind: 'vlan', id: undefined }), q: QERR };
        }
        const id = this.parsePnum();
        const node = this.linked({ kind: 'vlan', id });
        if (id > VLAN_ID_MAX) fail(`VLAN tag ${id} greater than maximum ${VLAN_ID_MAX}`);
        return { node, q: QERR };
      }
      case 'inbound':
      case 'outbound':
        this.pos++;
        return { node: this.linked({ kind: 'packetDirection', outbound: keyword === 'outbound' }), q: QERR };
      case 'ifindex': {
        this.pos++;
        const index = this.expectNumber();
        return { node: this.linked({ kind: 'ifindex', index }), q: QERR };
      }
      default:
        if (keyword === 'byte') return { node: this.parseByte(), q: QERR };
        if (keyword === 'mpls' || keyword === 'pppoes' || keyword === 'geneve' || keyword === 'pppoed') {
          return this.parseUnsupportedEncapsulation(keyword);
        }
        if (UNSUPPORTED_KEYWORDS.has(keyword)) return unsupported(token.text);
        return this.syntaxError();
    }
  }

  private atTermEnd(): boolean {
    const token = this.peek();
    return token.kind === 'eof' || isConnective(token) || isPunct(token, ')');
  }

  private startsHeadOrOther(keyword: Keyword): boolean {
    return (
      DIR_KEYWORDS.has(keyword) ||
      AQUAL_KEYWORDS.has(keyword) ||
      HEAD_END_KEYWORDS.has(keyword) ||
      keyword === 'broadcast' ||
      keyword === 'multicast'
    );
  }

  /** `byte NUM byteop NUM`; the `&` and `|` forms (which libpcap 1.10 compiles without a load) are refused. */
  private parseByte(): FilterNode {
    this.pos++;
    const offset = this.expectNumber();
    const op = this.peek();
    if (op.kind !== 'punct' || !['&', '|', '<', '>', '='].includes(op.punct)) return this.syntaxError();
    this.pos++;
    const value = this.expectNumber();
    if (op.punct === '&' || op.punct === '|') {
      this.unsupportedFeature ??= `packetlab does not support 'byte ${op.punct}' in filter expressions`;
      return PLACEHOLDER;
    }
    return { kind: 'linkByte', offset, op: op.punct as '=' | '<' | '>', value };
  }

  /** `mpls [N]`, `pppoes [N]`, `geneve [N]`, `pppoed`: parsed as libpcap does, then refused. */
  private parseUnsupportedEncapsulation(keyword: Keyword): Parsed {
    this.pos++;
    if (keyword !== 'pppoed') {
      const next = this.peekRaw();
      if (next.kind === 'num' || isPunct(next, '(')) this.parsePnum();
    }
    if (keyword === 'mpls' && this.linkType === 276) fail('no MPLS support for Linux cooked v2');
    this.unsupportedFeature ??= `packetlab does not support '${keyword}' in filter expressions`;
    return { node: PLACEHOLDER, q: QERR };
  }

  /** After an optional protocol name: a head and its id, or `broadcast`/`multicast`. */
  private parseQualified(proto: ProtoQual): Parsed {
    const token = this.next();
    if (token.kind !== 'keyword') return this.syntaxError();
    if (token.keyword === 'broadcast') return { node: this.linked(genBroadcast(proto)), q: QERR };
    if (token.keyword === 'multicast') return { node: this.linked(genMulticast(proto)), q: QERR };
    if (token.keyword === 'protochain') {
      const q: Qual = { proto, dir: 'default', addr: 'protochain' };
      return { node: this.parseId(q), q };
    }
    let dir: DirQual = 'default';
    let addr: AddrQual = 'default';
    if (DIR_KEYWORDS.has(token.keyword)) {
      dir = token.keyword as DirQual;
      if ((dir === 'src' || dir === 'dst') && isConnective(this.peek())) {
        const connective = this.next();
        if (!isKeyword(this.peek(), dir === 'src' ? 'dst' : 'src')) this.syntaxError();
        this.pos++;
        dir = isKeyword(connective, 'and') ? 'and' : 'or';
      }
      const after = this.peek();
      if (after.kind === 'keyword' && AQUAL_KEYWORDS.has(after.keyword)) {
        addr = after.keyword as AddrQual;
        this.pos++;
      }
    } else {
      addr = token.keyword as AddrQual;
    }
    const q: Qual = { proto, dir, addr };
    return { node: this.parseId(q), q };
  }

  /** `id := nid | pnum | '(' pid ')'`, with the inherited qualifiers `q`. */
  private parseId(q: Qual): FilterNode {
    const token = this.peek();
    if (token.kind === 'num') {
      this.pos++;
      return this.semantic(() => genNumber(q, token.value, undefined), PLACEHOLDER);
    }
    if (isPunct(token, '(')) {
      this.pos++;
      let node: FilterNode;
      if (this.isPnumStart()) {
        const value = this.parsePnum();
        node = this.semantic(() => genNumber(q, value, undefined), PLACEHOLDER);
      } else {
        node = this.parseNid(q);
      }
      while (isConnective(this.peek())) {
        const combine = isKeyword(this.next(), 'and') ? and : or;
        node = combine(node, this.parseId(q));
      }
      this.expectPunct(')');
      return node;
    }
    return this.parseNid(q);
  }

  private isPnumStart(): boolean {
    const token = this.peek();
    return token.kind === 'num' || isPunct(token, '(');
  }

  /** `pnum := NUM | '(' pnum ')'`. */
  private parsePnum(): number {
    if (isPunct(this.peek(), '(')) {
      this.pos++;
      const value = this.parsePnum();
      this.expectPunct(')');
      return value;
    }
    return this.expectNumber();
  }

  private parseNid(q: Qual): FilterNode {
    const token = this.peek();
    switch (token.kind) {
      case 'id':
        this.pos++;
        return this.semantic(() => genName(q, token.name, this.linkType), PLACEHOLDER);
      case 'hid': {
        this.pos++;
        const after = this.peekRaw();
        if (isPunct(after, '/')) {
          this.pos++;
          const maskLen = this.expectNumber();
          return this.semantic(() => genMasked(q, token.text, undefined, maskLen), PLACEHOLDER);
        }
        if (isKeyword(after, 'mask')) {
          this.pos++;
          const mask = this.peek();
          if (mask.kind !== 'hid') return this.syntaxError();
          this.pos++;
          return this.semantic(() => genMasked(q, token.text, mask.text, 0), PLACEHOLDER);
        }
        if (q.addr === 'port' || q.addr === 'portrange' || q.addr === 'proto' || q.addr === 'protochain') {
          return fail(`'${q.addr}' modifier applied to ip host`);
        }
        return this.semantic(() => genNumber(q, 0, token.text), PLACEHOLDER);
      }
      case 'hid6': {
        this.pos++;
        if (isPunct(this.peekRaw(), '/')) {
          this.pos++;
          const maskLen = this.expectNumber();
          return genIpv6(q, token.text, maskLen, `${token.text}/${maskLen}`);
        }
        return genIpv6(q, token.text, 128, token.text);
      }
      case 'eid':
        this.pos++;
        return this.linked(genEther(q, token.text));
      case 'aid':
        return fail('aid supported only on ARCnet');
      default:
        if (isNot(token)) {
          this.pos++;
          return not(this.parseId(q));
        }
        return this.syntaxError();
    }
  }

  // --- deciding between a term and a bare id after and/or (bison decides this with its LALR tables)

  private startsId(at: number): boolean {
    const token = this.tokens[at]!;
    switch (token.kind) {
      case 'id':
      case 'hid':
      case 'hid6':
      case 'eid':
      case 'aid':
      case 'error':
        return true;
      case 'num': {
        // bison prefers `arth: pnum` unless the lookahead can only follow an id.
        const after = this.tokens[at + 1];
        return isConnective(after) || isPunct(after, ')') || after?.kind === 'eof';
      }
      case 'keyword':
        return token.keyword === 'not' ? this.startsId(at + 1) : false;
      case 'punct':
        if (token.punct === '!') return this.startsId(at + 1);
        if (token.punct === '(') return this.parenStartsId(at);
        return false;
      case 'eof':
        return false;
      default:
        return assertNever(token);
    }
  }

  /** `( pid )` or `( pnum )` rather than `( expr )` or an arithmetic parenthesis. */
  private parenStartsId(at: number): boolean {
    if (this.parenIsArith(at)) {
      // `(80)` is a pnum id when what follows can follow an id; otherwise bison takes it as an operand.
      const close = this.matchingClose(at);
      const after = this.tokens[close + 1];
      if (!isConnective(after) && !isPunct(after, ')') && after?.kind !== 'eof') return false;
      let numbers = 0;
      for (let i = at; i < close; i++) {
        const token = this.tokens[i]!;
        if (token.kind === 'num') numbers++;
        else if (!isPunct(token, '(') && !isPunct(token, ')')) return false;
      }
      return numbers === 1;
    }
    let inner = at;
    let opened = 0;
    for (; isPunct(this.tokens[inner], '(') || isNot(this.tokens[inner]); inner++) {
      if (isPunct(this.tokens[inner], '(')) opened++;
    }
    const first = this.tokens[inner]!;
    if (first.kind === 'num') {
      // A number is an id (pnum) when, past the parentheses closing around it, an id may follow.
      let after = inner + 1;
      for (let closed = 0; closed < opened && isPunct(this.tokens[after], ')'); closed++) after++;
      const next = this.tokens[after];
      return isConnective(next) || isPunct(next, ')') || next?.kind === 'eof';
    }
    return (
      first.kind === 'id' ||
      first.kind === 'hid' ||
      first.kind === 'hid6' ||
      first.kind === 'eid' ||
      first.kind === 'aid'
    );
  }

  /** The index of the parenthesis closing the one at `at` (callers know it is balanced). */
  private matchingClose(at: number): number {
    let depth = 0;
    for (let i = at; i < this.tokens.length; i++) {
      if (isPunct(this.tokens[i], '(')) depth++;
      else if (isPunct(this.tokens[i], ')') && --depth === 0) return i;
    }
    return this.tokens.length - 1;
  }

  /**
   * True when the parenthesis at `at` holds only arithmetic (numbers, operators, `len`, `name[...]`), so that
   * it opens an operand of a relation rather than a parenthesised expression.
   */
  private parenIsArith(at: number): boolean {
    let depth = 0;
    for (let i = at; i < this.tokens.length; i++) {
      const token = this.tokens[i]!;
      if (isPunct(token, '(')) depth++;
      else if (isPunct(token, ')')) {
        depth--;
        if (depth === 0) return true;
      } else if (!isArithToken(token, this.tokens[i + 1])) return false;
    }
    return false;
  }

  // --- arithmetic

  private parseRelation(): FilterNode {
    const left = this.parseArith(0);
    const token = this.peek();
    if (token.kind !== 'punct' || !RELOPS.has(token.punct)) return this.syntaxError();
    this.pos++;
    const right = this.parseArith(0);
    return relation(token.punct as RelOp, left, right);
  }

  /**
   * Precedence climbing with bison's resolution of grammar.y: `%` and `^` have no declared precedence, so a
   * conflict on them always shifts: they take the operand just before them and everything after them.
   */
  private parseArith(minPrecedence: number): ArithNode {
    let left = this.parseArithOperand();
    for (;;) {
      const token = this.peekRaw();
      if (token.kind !== 'punct') return left;
      if (token.punct === '%' || token.punct === '^') {
        this.pos++;
        left = binary(token.punct, left, this.parseArith(0));
        continue;
      }
      const precedence = ARITH_PRECEDENCE.get(token.punct);
      if (precedence === undefined || precedence < minPrecedence) return left;
      this.pos++;
      left = binary(token.punct as ArithOp, left, this.parseArith(precedence + 1));
    }
  }

  private parseArithOperand(): ArithNode {
    const token = this.peek();
    if (token.kind === 'num') {
      this.pos++;
      return constant(token.value);
    }
    if (isPunct(token, '-')) {
      this.pos++;
      return { kind: 'neg', operand: this.parseArith(UMINUS_PRECEDENCE) };
    }
    if (isPunct(token, '(')) {
      this.pos++;
      const inner = this.parseArith(0);
      this.expectPunct(')');
      return inner;
    }
    if (isKeyword(token, 'len')) {
      this.pos++;
      return { kind: 'len' };
    }
    if (token.kind === 'keyword' && PNAMES.has(token.keyword)) {
      this.pos++;
      this.expectPunct('[');
      const offset = this.parseArith(0);
      let size = 1;
      if (isPunct(this.peek(), ':')) {
        this.pos++;
        size = this.expectNumber();
      }
      this.expectPunct(']');
      if (size !== 1 && size !== 2 && size !== 4) return fail('data size must be 1, 2, or 4');
      const base = this.semantic<LoadBase>(() => loadBase(token.keyword), { layer: 'link' });
      return { kind: 'load', base, offset, size };
    }
    return this.syntaxError();
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected ${JSON.stringify(value)}`);
}
