// Compiles one nft rule (its statements, up to the newline or semicolon) into IR expressions, as nft's parser
// and evaluator do: implicit protocol dependencies are inserted (`tcp dport 80` loads `meta l4proto tcp` first,
// `ip saddr` in an inet table checks `meta nfproto ipv4`), flag lists become bit tests, `and`/`or`/`xor`
// chains fold into one mask and xor, and the checks nft makes while evaluating are reported with locations.
// Not supported: IPv6, anonymous chains, maps used as data (`dnat to ip daddr map { }`), meters, limits, quotas.

import type {
  CmpOp,
  Constant,
  DataType,
  Expr,
  Family,
  FamilyField,
  MetaKey,
  NamedObjectType,
  NatFlags,
  NatMap,
  NatRange,
  PayloadField,
  Selector,
  SetElement,
  SetRef,
  Source,
  Value,
  Verdict,
} from '../ir.ts';
import type { Named, ParsedRule, RawElement, RawVerdict } from './ast.ts';
import { fibFlagsError } from './expr-fib.ts';
import { generatorMax, parseHash, parseNumgen } from './expr-hash.ts';
import { BARE_META_KEYS, META_KEYS, parseTcHandle } from './expr-meta.ts';
import { parseRt } from './expr-rt.ts';
import { parseSocket } from './expr-socket.ts';
import { unwrapHourRange } from './expr-time.ts';
import { familyDependency, linkLayerFamily, parseFamilyField } from './family-rule.ts';
import { type InterfaceNames, resolveInterfaces } from './ifindex.ts';
import { KEYWORDS, type Token } from './lexer.ts';
import { type ErrorRecord, errorAt, type Location, span } from './location.ts';
import { intervalKey, keyInterval, parseElementCounter } from './set-elements.ts';
import { parseCtCount } from './stmt-ct-count.ts';
import { type ObjectName, parseLimit, parseObjectName, parseQuota } from './stmt-limit.ts';
import { parseLog } from './stmt-log.ts';
import { parseReject } from './stmt-reject.ts';
import { dynsetOp, parseDynsetOptions } from './stmt-set.ts';
import { parseTproxy } from './stmt-tproxy.ts';
import type { TokenStream } from './stream.ts';
import {
  isBitmask,
  type NftType,
  SET_TYPES,
  selectorBits,
  selectorType,
  symbolName,
  symbolValue,
  typeBits,
} from './types.ts';
import { isErrorRecord, parseIpv4, type RawAtom, type RawValue, rawLoc, resolveValue } from './values.ts';

interface Primary {
  readonly selector: Selector;
  readonly type: NftType;
  readonly loc: Location;
}

/** The transport protocol a payload field needs (its implicit `meta l4proto` dependency). */
const FIELD_PROTOCOL: Partial<Record<PayloadField, number>> = {
  'tcp sport': 6,
  'tcp dport': 6,
  'tcp flags': 6,
  'udp sport': 17,
  'udp dport': 17,
  'icmp type': 1,
  'icmp code': 1,
  'icmp id': 1,
  'icmp sequence': 1,
  'icmp checksum': 1,
  'icmp mtu': 1,
  'icmp gateway': 1,
  'tcp sequence': 6,
  'tcp ackseq': 6,
  'tcp doff': 6,
  'tcp window': 6,
  'tcp checksum': 6,
  'tcp urgptr': 6,
  'udp length': 17,
  'udp checksum': 17,
};

const META_KEYS_KNOWN =
  'length, protocol, priority, mark, iif, oif, iifname, oifname, iiftype, oiftype, skuid, skgid, nftrace, ' +
  'rtclassid, secmark, nfproto, l4proto, ibrname, obrname, pkttype, cpu, iifgroup, oifgroup, cgroup, random, ' +
  'ipsec, iifkind, oifkind, ibrpvid, ibrvproto, time, day, hour, sdif, sdifname';

const MODELLED_META = new Set([
  'mark',
  'iifname',
  'oifname',
  'iif',
  'oif',
  'l4proto',
  'nfproto',
  'protocol',
  'length',
  'pkttype',
  'nftrace',
  ...Object.keys(META_KEYS),
]);
const UNMODELLED_META = new Set(META_KEYS_KNOWN.split(', ').filter((key) => !MODELLED_META.has(key)));

/** ct keys nft 1.0.6 knows that packetlab does not read (no accounting, labels, helpers, events or connlimit). */
const CT_UNMODELLED = new Set(['bytes', 'packets', 'avgpkt', 'label', 'event', 'secmark']);

/** Meta keys the kernel reads but refuses to set. */
const READ_ONLY_META = new Set([
  'length',
  'iif',
  'oif',
  'iifname',
  'oifname',
  'iiftype',
  'oiftype',
  'skuid',
  'skgid',
  'cpu',
  'random',
  'rtclassid',
  'iifgroup',
  'oifgroup',
  'cgroup',
  'iifkind',
  'oifkind',
]);

/** What may follow `mark set` / `ct mark set`: a value read from the packet. */
const SOURCE_WORDS = new Set([
  'meta',
  'mark',
  'ct',
  'numgen',
  'jhash',
  'symhash',
  'ip',
  'tcp',
  'udp',
  'th',
  'icmp',
]);

/** The names nft's datatypes give themselves in messages (datatype.c: desc). */
const TYPE_DESCRIPTIONS: Partial<Record<NftType, string>> = {
  mark: 'packet mark',
  ipv4_addr: 'IPv4 address',
  inet_service: 'internet network service',
  inet_proto: 'Internet protocol',
  ifname: 'network interface name',
  integer: 'integer',
};

/** The bytes a value takes in its nft register (an interface name 16, others their width rounded up). */
function registerBytes(selector: Selector): number {
  if (selectorType(selector) === 'ifname') return 16;
  return Math.ceil(selectorBits(selector) / 8);
}

/** The IR data type of a set key for a selector type (types the IR does not name are integers). */
export function dataTypeOf(type: NftType): DataType {
  return (SET_TYPES as readonly string[]).includes(type) ? (type as DataType) : 'integer';
}

function isValueToken(token: Token, type: NftType | undefined): boolean {
  if (token.kind === 'number' || token.kind === 'quoted') return true;
  if (token.kind !== 'word') return false;
  if (!KEYWORDS.has(token.text) || KEYWORD_VALUES.has(token.text)) return true;
  return type !== undefined && symbolValue(type, token.text) !== undefined;
}

/** Keywords nft reads as values too (parser_bison.y: keyword_expr and the protocol names of primary_rhs_expr). */
const KEYWORD_VALUES = new Set([
  'ether',
  'ip',
  'ip6',
  'vlan',
  'arp',
  'dnat',
  'snat',
  'ecn',
  'reset',
  'original',
  'reply',
  'label',
  'tcp',
  'udp',
  'icmp',
  'sctp',
  'dccp',
  'udplite',
  'icmpv6',
]);

export interface RuleOptions {
  readonly family: Family;
  /** Where the rule ends: a command ends at a newline, `;` or end of input, a block rule also before `}`. */
  readonly inBlock: boolean;
  /** The namespace's devices: names written against an interface index resolve to it (absent: kept as names). */
  readonly interfaces?: InterfaceNames | undefined;
}

/** Parses statements up to the end of the rule; syntax errors throw (ParseFailure), others are reported. */
export function parseRule(s: TokenStream, options: RuleOptions): ParsedRule {
  return new RuleParser(s, options).parse();
}

class RuleParser {
  private readonly exprs: Expr[] = [];
  private transportProto: number | undefined;
  /** Where the transport protocol was matched (the `~~~` of "you cannot use tcp reset with this protocol"). */
  private transportLoc: Location | undefined;
  /** In inet tables, where an IPv4 match (an ip field or `meta nfproto ipv4`) was made. */
  private networkLoc: Location | undefined;
  /** `ct original saddr` without `ip`: nft cannot type a set against it. */
  private bareCtAddress: Location | undefined;
  /** Set by `ct protocol X`, which types `ct original proto-dst`. */
  private ctProtocol: number | undefined;
  private networkKnown: boolean;
  private terminal: Location | undefined;
  private statements = 0;
  /** The last value read was an hour range that wraps midnight, read swapped (wrapOp). */
  private hourRangeWrapped = false;
  private comment: string | undefined;
  private packets = 0;
  private bytes = 0;
  private readonly chainRefs: Named[] = [];
  private readonly setRefs: (Named & {
    types: readonly NftType[];
    map: boolean;
    lhs: Location;
    stmt?: Location;
  })[] = [];
  private readonly natStatements: { type: 'snat' | 'dnat' | 'masquerade' | 'redirect' }[] = [];
  private readonly flowtableRefs: Named[] = [];
  private readonly objectRefs: (Named & { type: NamedObjectType })[] = [];
  private rejects = 0;

  constructor(
    private readonly s: TokenStream,
    private readonly options: RuleOptions,
  ) {
    this.networkKnown = options.family === 'ip';
  }

  private report(error: ErrorRecord): void {
    this.s.report(error);
  }

  private atRuleEnd(): boolean {
    return this.s.atEnd() || (this.options.inBlock && this.s.isPunct('}'));
  }

  parse(): ParsedRule {
    const start = this.s.peek().loc;
    const firstError = this.s.evalErrors.length;
    try {
      return this.parseStatements(start);
    } finally {
      keepKernelErrorsLast(this.s.evalErrors, firstError);
    }
  }

  private parseStatements(start: Location): ParsedRule {
    while (!this.atRuleEnd()) {
      const token = this.s.peek();
      if (token.kind === 'word' && token.text === 'comment') {
        if (this.statements === 0) this.s.fail(token);
        this.s.next();
        const text = this.s.peek();
        if (text.kind !== 'quoted' && text.kind !== 'word')
          this.s.fail(text, 'string or quoted string or string with a trailing asterisk');
        this.s.next();
        // parser_bison.y: comment_spec, NFTNL_UDATA_COMMENT_MAXLEN.
        if (new TextEncoder().encode(text.text).length > 128)
          this.s.failAt(text.loc, 'comment too long, 128 characters maximum allowed');
        this.comment = text.text;
        if (!this.atRuleEnd())
          this.s.fail(
            this.s.peek(),
            this.options.inBlock ? 'newline or semicolon' : 'end of file or newline or semicolon',
          );
        break;
      }
      this.statement();
    }
    if (this.statements === 0) this.s.fail(this.s.peek());
    return {
      exprs: this.exprs,
      comment: this.comment,
      packets: this.packets,
      bytes: this.bytes,
      chainRefs: this.chainRefs,
      setRefs: this.setRefs,
      natStatements: this.natStatements,
      rejects: this.rejects,
      flowtableRefs: this.flowtableRefs,
      objectRefs: this.objectRefs,
      loc: span(start, this.s.previous().loc),
    };
  }

  /** One statement; `start` is its first token, used for "statement after terminal statement". */
  private statement(): void {
    const start = this.s.peek();
    const terminalBefore = this.terminal;
    const expecting =
      this.statements === 0
        ? undefined
        : this.options.inBlock
          ? 'newline or semicolon'
          : 'end of file or newline or semicolon';
    if (start.kind === 'word' && start.text === 'ct' && this.s.isWord('count', 1))
      this.exprs.push(parseCtCount(this.s));
    else if (start.kind === 'number' || start.kind === 'quoted') this.symbolStart(start);
    else if (start.kind !== 'word') this.s.fail(start, expecting);
    else {
      switch (start.text) {
        case 'accept':
        case 'drop':
        case 'continue':
        case 'return':
        case 'jump':
        case 'goto':
        case 'queue':
          this.verdictStatement();
          break;
        case 'counter':
          this.counterStatement();
          break;
        case 'limit':
          this.statefulStatement('limit', parseLimit(this.s));
          break;
        case 'quota':
          this.statefulStatement('quota', parseQuota(this.s));
          break;
        case 'log':
          this.exprs.push(parseLog(this.s));
          break;
        case 'reject':
          this.rejectStatement();
          break;
        case 'tproxy':
          this.exprs.push(
            parseTproxy(this.s, this.s.next(), {
              family: this.options.family,
              transportKnown: this.transportProto !== undefined,
              networkLoc: this.networkLoc,
              report: (error) => this.report(error),
              address: () => this.address(),
            }),
          );
          break;
        case 'notrack':
          this.s.next();
          this.exprs.push({ kind: 'notrack' });
          break;
        case 'dnat':
        case 'snat':
        case 'masquerade':
        case 'redirect':
          this.natStatement();
          break;
        case 'meta':
        case 'ct':
        case 'ip':
        case 'tcp':
        case 'udp':
        case 'th':
        case 'icmp':
        case 'ether':
        case 'fib':
        case 'rt':
        case 'socket':
        case 'numgen':
        case 'jhash':
        case 'symhash':
        case 'vlan':
        case 'arp':
        case 'ip6':
        case 'icmpv6':
          this.matchOrSet();
          break;
        case 'update':
        case 'add':
        case 'delete':
          this.setUpdateStatement();
          break;
        case 'length':
        case 'protocol':
        case 'l4proto':
          this.symbolStart(start);
          break;
        case 'flow':
          this.flowStatement();
          break;
        default:
          // `day`, `hour`, `time` may open a rule without `meta` (and list with it).
          if (
            BARE_META_KEYS.has(start.text) ||
            start.text === 'day' ||
            start.text === 'hour' ||
            start.text === 'time'
          )
            this.matchOrSet();
          else if (KEYWORDS.has(start.text)) this.s.fail(start, expecting);
          else this.symbolStart(start);
      }
    }
    const loc = span(start.loc, this.s.previous().loc);
    if (terminalBefore !== undefined)
      this.report(errorAt(loc, 'Statement after terminal statement has no effect', terminalBefore));
    this.statements++;
  }

  private markTerminal(loc: Location): void {
    if (this.terminal === undefined) this.terminal = loc;
  }

  /** A word nft cannot place: bison reads it as a symbol and fails on what follows. */
  private symbolStart(token: Token): void {
    this.s.next();
    const following = this.s.peek();
    if (
      (following.kind === 'word' && !KEYWORDS.has(following.text)) ||
      following.kind === 'number' ||
      following.kind === 'quoted'
    ) {
      this.s.next();
      this.report(errorAt(token.loc, 'No symbol type information'));
      return;
    }
    this.s.fail(following);
  }

  // ---- verdicts and simple statements ---------------------------------------------------------------------

  private verdict(): { verdict: Verdict; chain: Named | undefined; loc: Location } {
    const token = this.s.next();
    switch (token.text) {
      case 'accept':
      case 'drop':
      case 'continue':
      case 'return':
        return { verdict: { kind: token.text }, chain: undefined, loc: token.loc };
      case 'jump':
      case 'goto': {
        const target = this.s.peek();
        if (!((target.kind === 'word' && !KEYWORDS.has(target.text)) || target.kind === 'quoted'))
          this.s.fail(target, "'{'");
        this.s.next();
        const chain = { name: target.text, loc: target.loc };
        return { verdict: { kind: token.text, chain: target.text }, chain, loc: span(token.loc, target.loc) };
      }
      case 'queue': {
        if (this.s.acceptWord('num') !== undefined || this.s.acceptWord('to') !== undefined) {
          const num = this.s.number();
          if (num.value !== 0) this.report(errorAt(num.loc, 'queue numbers other than 0 are not modelled'));
        }
        return { verdict: { kind: 'queue' }, chain: undefined, loc: span(token.loc, this.s.previous().loc) };
      }
      default:
        return this.s.fail(token);
    }
  }

  private verdictStatement(): void {
    const { verdict, chain, loc } = this.verdict();
    if (chain !== undefined) this.chainRefs.push(chain);
    this.exprs.push({ kind: 'verdict', verdict });
    this.markTerminal(loc);
  }

  /** A limit or quota statement, or its named object's reference (nft_objref). */
  private statefulStatement(type: NamedObjectType, parsed: Expr | ObjectName): void {
    if (parsed.kind !== 'object-name') {
      this.exprs.push(parsed);
      return;
    }
    this.objectRefs.push({ type, name: parsed.name, loc: parsed.loc });
    this.exprs.push({ kind: 'objref', type, name: parsed.name });
  }

  private counterStatement(): void {
    this.s.next();
    const name = this.s.acceptWord('name');
    if (name !== undefined) {
      this.statefulStatement('counter', parseObjectName(this.s, name));
      return;
    }
    // parser_bison.y: counter_args, `packets N` and `bytes N` in any order.
    for (;;) {
      if (this.s.acceptWord('packets') !== undefined) this.packets = this.s.number().value;
      else if (this.s.acceptWord('bytes') !== undefined) this.bytes = this.s.number().value;
      else break;
    }
    this.exprs.push({ kind: 'counter' });
  }

  private rejectStatement(): void {
    const start = this.s.peek();
    this.rejects++;
    const transport =
      this.transportProto === undefined
        ? undefined
        : { protocol: this.transportProto, loc: this.transportLoc ?? start.loc };
    const how = parseReject(this.s, {
      family: this.options.family,
      transport,
      networkKnown: this.networkKnown,
      networkLoc: this.networkLoc,
      pushDependency: (key, value) => this.pushDependency(key, value),
      report: (error) => this.report(error),
    });
    this.exprs.push({ kind: 'reject', with: how });
    this.markTerminal(span(start.loc, this.s.previous().loc));
  }

  // ---- NAT --------------------------------------------------------------------------------------------------

  /**
   * `dnat to KEY map { K : ADDR [. PORT], ... }` or `map @m` (parser_bison.y: nat_stmt_args with a map expression):
   * the key's selectors with their dependencies, then the map, its data an address or `address . port`.
   */
  private natMap(keyword: Token): NatMap {
    const start = this.s.peek();
    const left: Primary[] = [this.primary()];
    while (this.s.acceptPunct('.') !== undefined) left.push(this.primary());
    const lhs = span(start.loc, this.s.previous().loc);
    const types = left.map((primary) => primary.type);
    this.dependencies(left, lhs);
    if (!this.s.isWord('map'))
      this.s.failAt(
        span(keyword.loc, this.s.peek().loc),
        `${keyword.text} to an expression is not supported by packetlab`,
      );
    this.s.next();
    const key = left.map((primary) => ({ selector: primary.selector }));
    const at = this.s.acceptPunct('@');
    if (at !== undefined) {
      const name = this.s.peek();
      if (!(name.kind === 'word' || name.kind === 'quoted')) this.s.fail(name, 'string');
      this.s.next();
      this.setRefs.push({ name: name.text, loc: span(at.loc, name.loc), types, map: true, lhs });
      return { key, map: { kind: 'named', name: name.text }, withPort: false };
    }
    const elements: SetElement[] = [];
    let withPort = false;
    for (const element of parseElements(this.s, { map: false })) {
      const keyValue = resolveValue(types, element.key);
      const raw = element.data;
      if (raw === undefined || raw.kind === 'verdict') {
        this.s.failAt(element.loc, 'syntax error, unexpected comma, expecting colon');
      }
      withPort = raw.kind === 'concat';
      const data = resolveValue(withPort ? ['ipv4_addr', 'inet_service'] : ['ipv4_addr'], raw);
      if (isErrorRecord(keyValue)) this.report(keyValue);
      else if (isErrorRecord(data)) this.report(data);
      else elements.push({ key: keyValue, data });
    }
    return { key, map: { kind: 'anonymous', elements, keyType: types.map(dataTypeOf) }, withPort };
  }

  private natStatement(): void {
    const keyword = this.s.next();
    const type = keyword.text as 'snat' | 'dnat' | 'masquerade' | 'redirect';
    const range: { addrLow?: number; addrHigh?: number; portLow?: number; portHigh?: number } = {};
    let portLoc: Location | undefined;
    let map: NatMap | undefined;
    const explicitIp = (type === 'dnat' || type === 'snat') && this.s.acceptWord('ip') !== undefined;
    if (this.s.acceptWord('to') !== undefined) {
      if (type === 'dnat' || type === 'snat') {
        const next = this.s.peek();
        if (next.kind === 'word' && KEYWORDS.has(next.text)) {
          // In inet tables the family must be known before the map (its key's own dependency comes too late).
          if (this.options.family === 'inet' && !explicitIp && !this.networkKnown)
            this.report(errorAt(keyword.loc, 'ip or ip6 must be specified with address for inet tables.'));
          map = this.natMap(keyword);
        } else if (!this.s.isPunct(':')) {
          const low = this.address();
          range.addrLow = low;
          range.addrHigh = low;
          if (this.s.acceptPunct('-') !== undefined) range.addrHigh = this.address();
          else if (this.s.isPunct('/') && this.s.peek(1).kind === 'number') {
            // A prefix is the range of its addresses (`snat to 10.0.0.0/24`).
            this.s.next();
            const len = this.s.next();
            if (len.value > 32)
              this.report(
                errorAt(len.loc, `Prefix length ${len.value} is invalid for type of 32 bits width`),
              );
            const host = len.value >= 32 ? 0 : len.value === 0 ? 0xffff_ffff : 0xffff_ffff >>> len.value;
            range.addrLow = (low & ~host) >>> 0;
            range.addrHigh = (low | host) >>> 0;
          }
        }
      }
      const colon = this.s.acceptPunct(':');
      if (colon !== undefined || (type === 'redirect' && this.s.peek().kind === 'number')) {
        const first = this.s.number();
        range.portLow = first.value;
        range.portHigh = first.value;
        if (this.s.acceptPunct('-') !== undefined) range.portHigh = this.s.number().value;
        portLoc = span(first.loc, this.s.previous().loc);
      } else if (type === 'masquerade') this.s.fail(this.s.peek(), 'colon');
      else if (type === 'redirect') {
        // `redirect to EXPR`: an address is read as a service name, after the transport check.
        const value = this.s.peek();
        if (value.kind !== 'word') this.s.fail(value);
        this.s.next();
        if (this.transportProto === undefined)
          this.report(
            errorAt(
              value.loc,
              'transport protocol mapping is only valid after transport protocol match',
              keyword.loc,
            ),
          );
        else
          this.report(
            errorAt(value.loc, 'Could not resolve service: Servname not supported for ai_socktype'),
          );
      }
    }
    const flags = { random: false, fullyRandom: false, persistent: false };
    const flagWords = ['random', 'fully-random', 'persistent'];
    if (flagWords.includes(this.s.peek().text) && this.s.peek().kind === 'word') {
      do {
        const flag = this.s.next();
        if (flag.text === 'random') flags.random = true;
        else if (flag.text === 'fully-random') flags.fullyRandom = true;
        else if (flag.text === 'persistent') flags.persistent = true;
        else this.s.fail(flag);
      } while (this.s.acceptPunct(',') !== undefined);
    }
    if (this.options.family === 'inet' && range.addrLow !== undefined && !explicitIp && !this.networkKnown)
      this.report(errorAt(keyword.loc, 'ip or ip6 must be specified with address for inet tables.'));
    if (portLoc !== undefined && this.transportProto === undefined)
      this.report(
        errorAt(
          portLoc,
          'transport protocol mapping is only valid after transport protocol match',
          keyword.loc,
        ),
      );
    // stmt_evaluate_nat checks the family and the transport match before it evaluates the ports.
    if (portLoc !== undefined && ((range.portLow ?? 0) > 65535 || (range.portHigh ?? 0) > 65535))
      this.report(errorAt(portLoc, 'Service out of range'));
    const natRange: NatRange = {
      addrLow: range.addrLow,
      addrHigh: range.addrHigh,
      portLow: range.portLow,
      portHigh: range.portHigh,
    };
    const natFlags: NatFlags = flags;
    this.exprs.push({
      kind: 'nat',
      type,
      range: natRange,
      flags: natFlags,
      ...(map === undefined ? {} : { map }),
    });
    this.natStatements.push({ type });
    this.markTerminal(span(keyword.loc, this.s.previous().loc));
  }

  private address(): number {
    const token = this.s.peek();
    if (token.kind !== 'word' && token.kind !== 'number') this.s.fail(token);
    this.s.next();
    const addr = parseIpv4(token.text);
    if (addr === undefined) {
      this.report(errorAt(token.loc, 'Could not resolve hostname: Name or service not known'));
      return 0;
    }
    return addr;
  }

  // ---- selectors --------------------------------------------------------------------------------------------

  private primary(): Primary {
    const first = this.s.next();
    const done = (selector: Selector): Primary => ({
      selector,
      type: selectorType(selector),
      loc: span(first.loc, this.s.previous().loc),
    });
    const field = (prefix: string, fields: readonly string[]): Primary => {
      const token = this.s.peek();
      if (token.kind !== 'word' || !fields.includes(token.text)) this.s.fail(token);
      this.s.next();
      return done({ kind: 'payload', field: `${prefix} ${token.text}` as PayloadField });
    };
    switch (first.text) {
      case 'meta': {
        const key = this.s.peek();
        if (key.kind !== 'word' || (!MODELLED_META.has(key.text) && !UNMODELLED_META.has(key.text)))
          if (key.kind !== 'word') this.s.fail(key);
          else
            this.s.failAt(
              span(first.loc, key.loc),
              `syntax error, unexpected ${key.text}, known keys are ${META_KEYS_KNOWN}`,
            );
        this.s.next();
        // The bridge ports' names exist in the bridge family only; ip and inet refuse them (nft_meta_get_validate).
        if ((key.text === 'ibrname' || key.text === 'obrname') && this.options.family === 'bridge')
          return done({ kind: 'family-field', field: `meta ${key.text}` });
        if (!MODELLED_META.has(key.text))
          this.s.failAt(span(first.loc, key.loc), `meta ${key.text} is not supported by packetlab`);
        const selector: Selector = { kind: 'meta', key: key.text as MetaKey };
        if (META_KEYS[key.text as MetaKey]?.refused)
          this.report(errorAt(span(first.loc, key.loc), 'Could not process rule: Operation not supported'));
        return done(selector);
      }
      case 'mark':
      case 'iifname':
      case 'oifname':
      case 'iif':
      case 'oif':
      case 'pkttype':
      case 'iiftype':
      case 'oiftype':
      case 'skuid':
      case 'skgid':
      case 'nftrace':
      case 'rtclassid':
      case 'ibrname':
      case 'obrname':
      case 'cpu':
      case 'iifgroup':
      case 'oifgroup':
      case 'cgroup':
      case 'day':
      case 'hour':
      case 'time':
        if (META_KEYS[first.text as MetaKey]?.refused)
          this.report(errorAt(first.loc, 'Could not process rule: Operation not supported'));
        return done({ kind: 'meta', key: first.text as MetaKey });
      case 'ip':
        return field('ip', [
          'saddr',
          'daddr',
          'protocol',
          'length',
          'ttl',
          'id',
          'frag-off',
          'dscp',
          'ecn',
          'version',
          'hdrlength',
          'checksum',
        ]);
      case 'tcp':
        return field('tcp', [
          'sport',
          'dport',
          'flags',
          'sequence',
          'ackseq',
          'doff',
          'window',
          'checksum',
          'urgptr',
        ]);
      case 'udp':
        if (this.s.peek().kind !== 'word') this.s.fail(this.s.peek(), 'length or checksum or sport or dport');
        return field('udp', ['sport', 'dport', 'length', 'checksum']);
      case 'th':
        return field('th', ['sport', 'dport']);
      case 'icmp':
        return field('icmp', ['type', 'code', 'id', 'sequence', 'checksum', 'mtu', 'gateway']);
      case 'ether':
        if (this.s.acceptWord('type') !== undefined)
          return done({ kind: 'family-field', field: 'ether type' });
        return field('ether', ['saddr', 'daddr']);
      case 'vlan':
      case 'arp':
      case 'ip6':
      case 'icmpv6':
        return done({ kind: 'family-field', field: parseFamilyField(first, this.s) });
      case 'ct':
        return this.ctPrimary(first, done);
      case 'fib':
        return this.fibPrimary(done);
      case 'rt':
        return done(parseRt(this.s, first, this.options.family));
      case 'socket':
        return done(parseSocket(this.s, first));
      case 'numgen':
        return done(parseNumgen(this.s, first.loc));
      case 'jhash':
      case 'symhash':
        return done(
          parseHash(
            this.s,
            first,
            () => ({ selector: this.primary().selector }),
            (value) => registerBytes(value.selector),
          ),
        );
      default:
        return this.s.fail(first);
    }
  }

  private ctPrimary(first: Token, done: (selector: Selector) => Primary): Primary {
    const key = this.s.next();
    switch (key.text) {
      case 'state':
      case 'status':
      case 'mark':
      case 'direction':
      case 'expiration':
      case 'protocol':
      case 'l3proto':
      case 'zone':
      case 'id':
      case 'helper':
        return done({ kind: 'ct', key: key.text });
      case 'original':
      case 'reply': {
        const dir = key.text;
        let sub = this.s.next();
        if (sub.text === 'ip') {
          sub = this.s.next();
          if (sub.text !== 'saddr' && sub.text !== 'daddr') this.s.fail(sub);
        } else if (sub.text === 'saddr' || sub.text === 'daddr')
          this.bareCtAddress = span(first.loc, sub.loc);
        switch (sub.text) {
          case 'saddr':
          case 'daddr':
          case 'proto-src':
          case 'proto-dst':
          case 'zone':
            return done({ kind: 'ct', key: sub.text, dir });
          case 'protocol':
          case 'l3proto':
            return done({ kind: 'ct', key: sub.text });
          default:
            // nft's scanner has `helper` as a keyword; ct_key_dir has no helper.
            if (sub.text === 'helper') this.s.failAt(sub.loc, 'syntax error, unexpected helper');
            if (sub.kind === 'word' && CT_UNMODELLED.has(sub.text))
              this.s.failAt(span(first.loc, sub.loc), `ct ${dir} ${sub.text} is not supported by packetlab`);
            return this.s.fail(sub);
        }
      }
      default:
        if (key.kind === 'word' && CT_UNMODELLED.has(key.text))
          this.s.failAt(span(first.loc, key.loc), `ct ${key.text} is not supported by packetlab`);
        return this.s.fail(key);
    }
  }

  private fibPrimary(done: (selector: Selector) => Primary): Primary {
    const flags: ('saddr' | 'daddr' | 'mark' | 'iif' | 'oif')[] = [];
    const first = this.s.peek().loc;
    let last = first;
    do {
      const flag = this.s.next();
      last = flag.loc;
      if (
        flag.text !== 'saddr' &&
        flag.text !== 'daddr' &&
        flag.text !== 'mark' &&
        flag.text !== 'iif' &&
        flag.text !== 'oif'
      )
        this.s.fail(flag);
      flags.push(flag.text);
    } while (this.s.acceptPunct('.') !== undefined);
    const result = this.s.next();
    if (result.text !== 'type' && result.text !== 'oif' && result.text !== 'oifname') this.s.fail(result);
    const flagsError = fibFlagsError(flags, first, last);
    if (flagsError !== undefined) this.report(flagsError);
    return done({ kind: 'fib', flags, result: result.text });
  }

  // ---- matches and set statements ----------------------------------------------------------------------------

  private matchOrSet(): void {
    const start = this.s.peek();
    const first = this.primary();
    if (this.s.isWord('set')) {
      this.setStatement(first);
      return;
    }
    if (
      first.selector.kind === 'fib' &&
      first.selector.result !== 'type' &&
      (this.s.isWord('missing') || this.s.isWord('exists'))
    ) {
      const exists = this.s.next().text === 'exists';
      const selector: Selector = { ...first.selector, present: true };
      this.pushMatch({
        kind: 'cmp',
        left: [{ selector }],
        op: 'eq',
        right: { kind: 'number', value: exists ? 1 : 0 },
      });
      return;
    }
    if (first.selector.kind === 'meta' && first.selector.key === 'nfproto' && this.options.family === 'ip')
      this.report(errorAt(first.loc, 'meta nfproto is only useful in the inet family'));
    const left: Primary[] = [first];
    while (this.s.acceptPunct('.') !== undefined) {
      const next = this.s.peek();
      if (next.kind !== 'word') this.s.fail(next);
      left.push(this.primary());
    }
    const width = typeBits(first.type);
    const all = width >= 32 ? 0xffff_ffff : 2 ** width - 1;
    const values: Value[] = left.map((primary) => ({ selector: primary.selector }));
    let binop = false;
    if (this.bitwiseOperator() !== undefined) {
      if (left.length > 1) this.s.fail(this.s.peek());
      const folded = this.bitwiseChain(first.type);
      binop = true;
      values[0] = bitwiseValue(first.selector, (folded.mask & all) >>> 0, (folded.xor & all) >>> 0, all);
    }
    const lhsLoc = span(start.loc, this.s.previous().loc);
    const types = left.map((primary) => primary.type);
    this.dependencies(left, lhsLoc);
    const needsProtocol = left.some(
      (primary) =>
        primary.selector.kind === 'ct' &&
        (primary.selector.key === 'proto-src' || primary.selector.key === 'proto-dst'),
    );
    const protocolKnown = this.transportProto !== undefined || this.ctProtocol !== undefined;
    const rhs = this.s.peek();
    const bareCt = this.bareCtAddress;
    this.bareCtAddress = undefined;
    if (bareCt !== undefined && this.options.family === 'inet') {
      // ct_expr_pctx_update: without `ip` an inet table cannot type the address, and the value fails too.
      const field = first.selector.kind === 'ct' ? first.selector.key : 'saddr';
      this.report(
        errorAt(bareCt, `cannot determine ip protocol version, use "ip ${field}" or "ip6 ${field}" instead`),
      );
      const value = this.s.isPunct('{') ? this.s.peek(1) : rhs;
      const followUp = errorAt(value.loc, "Can't parse symbolic invalid expressions");
      FOLLOW_UPS.add(followUp);
      this.report(followUp);
    } else if (
      bareCt !== undefined &&
      (this.s.isPunct('{') || ((this.s.isPunct('==') || this.s.isPunct('!=')) && this.s.isPunct('{', 1)))
    )
      this.report(errorAt(bareCt, 'specify either ip or ip6 for address matching'));
    const transportBefore = this.transportProto;
    if (first.selector.kind === 'meta' && first.selector.key === 'priority' && !binop && left.length === 1) {
      this.priorityMatch(values);
      return;
    }
    const valueToken = relationalOperator(this.s.peek()) !== undefined ? this.s.peek(1) : this.s.peek();
    const errorsBefore = this.s.evalErrors.length;
    this.relation(values, types, binop, lhsLoc);
    // evaluate.c: expr_evaluate_relational, a secmark key (an object's type) compared with a constant value; a
    // concatenation with it is taken.
    if (
      left.length === 1 &&
      first.selector.kind === 'meta' &&
      first.selector.key === 'secmark' &&
      this.s.evalErrors.length === errorsBefore
    )
      this.report(
        errorAt(
          span(valueToken.loc, this.s.previous().loc),
          'Cannot be used with right hand side constant value',
          lhsLoc,
        ),
      );
    if (this.transportProto !== transportBefore) this.transportLoc ??= lhsLoc;
    if (first.selector.kind === 'meta' && first.selector.key === 'nfproto' && this.networkKnown)
      this.networkLoc ??= span(lhsLoc, this.s.previous().loc);
    // ct proto-src/dst values are typed by the protocol matched before (ct.c: ct_expr_pctx_update).
    if (needsProtocol && !protocolKnown)
      this.report(errorAt(rhs.loc, "Can't parse symbolic invalid expressions"));
    // nft_meta_get_validate: the kernel has no nftrace to load.
    if (first.selector.kind === 'meta' && first.selector.key === 'nftrace')
      this.report(errorAt(lhsLoc, 'Could not process rule: Operation not supported'));
  }

  /** `meta priority [==|!=] HANDLE`, a tc handle written `1:2` (a number, a colon and a hex word to the lexer). */
  private priorityMatch(values: Value[]): void {
    let op: CmpOp = 'eq';
    const opToken = this.s.peek();
    const written = relationalOperator(opToken);
    if (written !== undefined) {
      this.s.next();
      op = written;
    }
    const token = this.s.peek();
    if (token.kind !== 'word' && token.kind !== 'number' && token.kind !== 'quoted') this.s.fail(token);
    this.s.next();
    let text = token.text;
    if (this.s.isPunct(':')) {
      this.s.next();
      const minor = this.s.peek();
      if (minor.kind !== 'word' && minor.kind !== 'number') this.s.fail(minor);
      this.s.next();
      text = `${text}:${minor.text}`;
    }
    this.pushMatch({ kind: 'cmp', left: values, op, right: { kind: 'number', value: parseTcHandle(text) } });
  }

  /**
   * The `& | ^` operations after a selector, with C precedence (`mark or 0x4000 and 0xffff` is
   * `mark | (0x4000 & 0xffff)`), folded into one mask and xor. The selector is the leftmost operand, so every
   * other operand is a constant or an operation of constants.
   */
  private bitwiseChain(type: NftType): { mask: number; xor: number } {
    const ops: ('&' | '|' | '^')[] = [];
    const operands: number[] = [];
    for (;;) {
      const op = this.bitwiseOperator();
      if (op === undefined) break;
      this.s.next();
      ops.push(op);
      operands.push(this.bitwiseOperand(type));
    }
    // Collapse constant runs bound tighter than the operator before them: & over ^ over |.
    const level = (op: '&' | '|' | '^'): number => (op === '&' ? 3 : op === '^' ? 2 : 1);
    const reduce = (from: number): [number, number] => {
      // Evaluates operands[from] with the following operators of higher precedence than ops[from]; returns value, next index.
      let value = operands[from]!;
      let i = from + 1;
      while (i < ops.length && level(ops[i]!) > level(ops[from]!)) {
        const [right, next] = reduce(i);
        value = applyConstant(ops[i]!, value, right);
        i = next;
      }
      return [value, i];
    };
    let mask = 0xffff_ffff;
    let xor = 0;
    let i = 0;
    while (i < ops.length) {
      const [operand, next] = reduce(i);
      [mask, xor] = fold(ops[i]!, mask, xor, operand);
      i = next;
    }
    return { mask, xor };
  }

  private bitwiseOperator(): '&' | '|' | '^' | undefined {
    const token = this.s.peek();
    if (token.kind === 'punct' && (token.text === '&' || token.text === '|' || token.text === '^'))
      return token.text;
    if (token.kind === 'word') {
      if (token.text === 'and') return '&';
      if (token.text === 'or') return '|';
      if (token.text === 'xor') return '^';
    }
    return undefined;
  }

  /** A number, a symbol of the type, or a parenthesised `a | b` of symbols. */
  private bitwiseOperand(type: NftType): number {
    if (this.s.acceptPunct('(') !== undefined) {
      let value = 0;
      do value = (value | this.bitwiseOperand(type)) >>> 0;
      while (this.s.acceptPunct('|') !== undefined);
      this.s.expectPunct(')', "')'");
      return value;
    }
    const token = this.s.peek();
    if (token.kind === 'number') {
      this.s.next();
      return token.value >>> 0;
    }
    if (token.kind === 'word') {
      const value = type === 'ipv4_addr' ? parseIpv4(token.text) : symbolValue(type, token.text);
      this.s.next();
      if (value === undefined) {
        this.report(errorAt(token.loc, `Could not parse ${type}`));
        return 0;
      }
      return value;
    }
    return this.s.fail(token);
  }

  /** Inserts the protocol matches a payload needs, as nft's payload dependency logic does. */
  private dependencies(left: readonly Primary[], loc: Location): void {
    for (const primary of left) {
      if (primary.selector.kind === 'family-field') {
        this.pushFamilyDependency(primary.selector.field, loc);
        continue;
      }
      if (primary.selector.kind !== 'payload') continue;
      const field = primary.selector.field;
      if (field.startsWith('ip ') && !this.networkKnown) {
        if (linkLayerFamily(this.options.family)) this.pushFamilyDependency('ip', loc);
        else this.pushDependency('nfproto', 2);
      }
      if (field.startsWith('ip ') && this.options.family === 'inet') this.networkLoc ??= primary.loc;
      const protocol = FIELD_PROTOCOL[field];
      if (protocol === undefined) continue;
      if (this.transportProto === undefined) {
        this.pushDependency('l4proto', protocol);
        this.transportLoc = primary.loc;
      } else if (this.transportProto !== protocol)
        this.report(
          errorAt(
            loc,
            `conflicting protocols specified: ${protocolName(this.transportProto)} vs. ${protocolName(protocol)}`,
          ),
        );
      // The echo fields exist only in echo messages (proto.c: icmp_dep).
      if (field === 'icmp id' || field === 'icmp sequence')
        this.exprs.push({
          kind: 'lookup',
          left: [{ selector: { kind: 'payload', field: 'icmp type' } }],
          set: {
            kind: 'anonymous',
            elements: [
              { key: { kind: 'number', value: 0 }, data: undefined },
              { key: { kind: 'number', value: 8 }, data: undefined },
            ],
            keyType: ['integer'],
          },
          negate: false,
        });
    }
  }

  /** family-rule.ts: the link-layer and network dependencies of the bridge, netdev, arp and ip6 families' fields. */
  private pushFamilyDependency(field: FamilyField | 'ip', loc: Location): void {
    const dependency = familyDependency(field, this.options.family, this.exprs);
    this.exprs.push(...dependency.exprs);
    if (field === 'ip') this.networkKnown = true;
    const l4proto = dependency.l4proto;
    if (l4proto === undefined) return;
    if (this.transportProto === undefined) this.pushDependency('l4proto', l4proto);
    else if (this.transportProto !== l4proto)
      this.report(
        errorAt(
          loc,
          `conflicting protocols specified: ${protocolName(this.transportProto)} vs. ${protocolName(l4proto)}`,
        ),
      );
  }

  private pushDependency(key: 'l4proto' | 'nfproto', value: number): void {
    this.exprs.push({
      kind: 'cmp',
      left: [{ selector: { kind: 'meta', key } }],
      op: 'eq',
      right: { kind: 'number', value },
    });
    if (key === 'l4proto') this.transportProto = value;
    else this.networkKnown = true;
  }

  private pushMatch(match: Expr): void {
    const expr = foldXor(match);
    this.exprs.push(expr);
    if (expr.kind !== 'cmp' || expr.op !== 'eq' || expr.left.length !== 1 || expr.right.kind !== 'number')
      return;
    const value = expr.left[0]!;
    if (value.selector.kind === 'ct' && value.selector.key === 'protocol' && this.options.family === 'ip')
      this.ctProtocol = expr.right.value;
    if (value.mask !== undefined || value.xor !== undefined) return;
    const selector = value.selector;
    if (
      (selector.kind === 'meta' && selector.key === 'l4proto') ||
      (selector.kind === 'payload' && selector.field === 'ip protocol')
    )
      this.transportProto = expr.right.value;
    if (selector.kind === 'meta' && selector.key === 'nfproto') this.networkKnown = expr.right.value === 2;
  }

  private relation(values: Value[], types: readonly NftType[], binop: boolean, lhsLoc: Location): void {
    const token = this.s.peek();
    const single = types.length === 1 ? types[0] : undefined;
    const bitmask = single !== undefined && isBitmask(single) && !binop;
    const widths = values.map((value) => selectorBits(value.selector));
    if (token.kind === 'word' && token.text === 'vmap') {
      this.s.next();
      const map = this.setReference(types, { vmap: true, lhs: lhsLoc });
      this.exprs.push({ kind: 'vmap', left: values, map });
      this.markTerminal(span(lhsLoc, this.s.previous().loc));
      return;
    }
    if (this.s.isPunct('@') || this.s.isPunct('{')) {
      this.lookup(values, types, { op: 'implicit', bitmask, lhs: lhsLoc });
      return;
    }
    const op = relationalOperator(token);
    if (op !== undefined) {
      this.s.next();
      if ((op === 'eq' || op === 'ne') && (this.s.isPunct('@') || this.s.isPunct('{'))) {
        this.lookup(values, types, { op, bitmask, lhs: lhsLoc });
        return;
      }
      const max = values.length === 1 ? generatorMax(values[0]!.selector) : undefined;
      const right = this.rhsValue(types, { flags: single !== undefined && isBitmask(single), widths, max });
      if (right === undefined) return;
      if (op !== 'eq' && op !== 'ne' && right.kind !== 'number') {
        this.report(errorAt(lhsLoc, 'Relational expression size mismatch'));
        return;
      }
      this.pushMatch({ kind: 'cmp', left: values, op: this.wrapOp(op), right });
      return;
    }
    if (bitmask && this.s.isPunct('!')) {
      this.s.next();
      const right = this.rhsValue(types, { flags: true });
      if (right?.kind === 'number') this.pushMatch(flagTest(values[0]!, right.value, 'eq', 0));
      return;
    }
    if (!isValueToken(token, single)) this.s.fail(token);
    const max = values.length === 1 ? generatorMax(values[0]!.selector) : undefined;
    const right = this.rhsValue(types, { flags: bitmask, widths, max });
    if (right === undefined) return;
    if (bitmask && right.kind === 'number') {
      if (this.s.acceptPunct('/') !== undefined) {
        const mask = this.rhsValue(types, { flags: true });
        if (mask?.kind === 'number') this.pushMatch(flagTest(values[0]!, mask.value, 'eq', right.value));
        return;
      }
      this.pushMatch(flagTest(values[0]!, right.value, 'ne', 0));
      return;
    }
    this.pushMatch({ kind: 'cmp', left: values, op: this.wrapOp('eq'), right });
  }

  /** A range of hours that wraps midnight was read swapped: `==` becomes `!=` and back (nft lists it so). */
  private wrapOp(op: CmpOp): CmpOp {
    if (!this.hourRangeWrapped) return op;
    this.hourRangeWrapped = false;
    return op === 'eq' ? 'ne' : op === 'ne' ? 'eq' : op;
  }

  /**
   * `left [==|!=] @set` or `{ ... }`. An anonymous set of one plain element is no set at all (evaluate.c:
   * expr_evaluate_set hands back the element): `ip daddr { 10.96.0.0/16 }` compiles, and lists, as
   * `ip daddr 10.96.0.0/16`, and `ct state { established }` as the flag test `ct state established`.
   */
  private lookup(
    values: Value[],
    types: readonly NftType[],
    options: { op: 'implicit' | 'eq' | 'ne'; bitmask: boolean; lhs: Location },
  ): void {
    const set = this.setReference(types, { vmap: false, lhs: options.lhs });
    const only = set.kind === 'anonymous' && set.elements.length === 1 ? set.elements[0]! : undefined;
    if (only !== undefined && only.data === undefined && only.key.kind !== 'concat' && values.length === 1) {
      if (options.bitmask && options.op === 'implicit' && only.key.kind === 'number')
        this.pushMatch(flagTest(values[0]!, only.key.value, 'ne', 0));
      else
        this.pushMatch({ kind: 'cmp', left: values, op: options.op === 'ne' ? 'ne' : 'eq', right: only.key });
      return;
    }
    const merged =
      set.kind === 'anonymous' && values.length === 1
        ? { ...set, elements: mergeIntervals(set.elements, types[0]!) }
        : set;
    this.pushMatch({ kind: 'lookup', left: values, set: merged, negate: options.op === 'ne' });
  }

  /** A value on the right of a relation; reports (and returns undefined for) values the type rejects. */
  private rhsValue(
    types: readonly NftType[],
    options: { flags: boolean; widths?: readonly number[]; max?: number | undefined },
  ): Constant | undefined {
    let raw = readRawValue(this.s, { concat: types.length > 1, flags: options.flags, inSet: false });
    const wrapped = types.length === 1 && types[0] === 'hour' ? unwrapHourRange(raw) : undefined;
    if (wrapped !== undefined) {
      raw = wrapped;
      this.hourRangeWrapped = true;
    }
    if (options.max !== undefined) {
      const atoms = raw.kind === 'atom' ? [raw] : raw.kind === 'range' ? [raw.low, raw.high] : [];
      for (const atom of atoms)
        if (atom.token.kind === 'number' && atom.token.value > options.max) {
          this.report(
            errorAt(atom.token.loc, `Value ${atom.token.value} exceeds valid range 0-${options.max}`),
          );
          return undefined;
        }
    }
    const constant = resolveInterfaces(
      types,
      resolveValue(types, raw, options.widths),
      this.options.interfaces,
      rawLoc(raw),
    );
    if (isErrorRecord(constant)) {
      this.report(constant);
      return undefined;
    }
    return constant;
  }

  /** `@name` or an anonymous `{ ... }` set (or map when `vmap`), with elements resolved against `types`. */
  private setReference(types: readonly NftType[], options: { vmap: boolean; lhs: Location }): SetRef {
    const at = this.s.acceptPunct('@');
    if (at !== undefined) {
      const name = this.s.peek();
      if (!(name.kind === 'word' || name.kind === 'quoted')) this.s.fail(name, 'string or ll or nh or th');
      this.s.next();
      this.setRefs.push({
        name: name.text,
        loc: span(at.loc, name.loc),
        types,
        map: options.vmap,
        lhs: options.lhs,
      });
      return { kind: 'named', name: name.text };
    }
    const raw = parseElements(this.s, { map: options.vmap });
    const elements: SetElement[] = [];
    for (const element of raw) {
      const key = resolveInterfaces(
        types,
        resolveValue(types, element.key),
        this.options.interfaces,
        rawLoc(element.key),
      );
      if (isErrorRecord(key)) {
        this.report(key);
        continue;
      }
      let data: SetElement['data'];
      if (element.data !== undefined) {
        if (element.data.kind === 'verdict') {
          data = element.data.verdict;
          if (element.data.chain !== undefined) this.chainRefs.push(element.data.chain);
        } else this.report(errorAt(element.loc, 'data maps in rules are not supported by packetlab'));
      }
      elements.push({ key, data });
    }
    return { kind: 'anonymous', elements, keyType: types.map(dataTypeOf) };
  }

  // ---- flow statement ---------------------------------------------------------------------------------------

  /** `flow add @ft` / `flow offload @ft` (parser_bison.y: flow_stmt; flowtables.ts). */
  private flowStatement(): void {
    const start = this.s.next();
    const op = this.s.next();
    if (op.text !== 'add' && op.text !== 'offload') this.s.fail(op);
    this.s.expectPunct('@', "'@'");
    const name = this.s.peek();
    if (name.kind !== 'word' && name.kind !== 'quoted') this.s.fail(name, 'string');
    this.s.next();
    this.flowtableRefs.push({ name: name.text, loc: span(start.loc, name.loc) });
    this.exprs.push({ kind: 'flow-offload', flowtable: name.text });
  }

  // ---- set statements ---------------------------------------------------------------------------------------

  /** `update @set { ip saddr }` / `add @set { ... }` (parser_bison.y: set_stmt), the packet's key into the set. */
  private setUpdateStatement(): void {
    const op = this.s.next();
    const at = this.s.peek();
    if (!this.s.isPunct('@')) this.s.fail(at);
    this.s.next();
    const name = this.s.peek();
    if (!(name.kind === 'word' || name.kind === 'quoted')) this.s.fail(name, 'string');
    this.s.next();
    this.s.expectPunct('{', "'{'");
    const start = this.s.peek().loc;
    const key: Value[] = [];
    const types: NftType[] = [];
    do {
      const part = this.primary();
      key.push({ selector: part.selector });
      types.push(part.type);
    } while (this.s.acceptPunct('.') !== undefined);
    const lhs = span(start, this.s.previous().loc);
    const options = parseDynsetOptions(this.s);
    this.s.expectPunct('}', "'}'");
    const stmt = span(op.loc, this.s.previous().loc);
    this.setRefs.push({ name: name.text, loc: span(at.loc, name.loc), types, map: false, lhs, stmt });
    this.exprs.push({ kind: 'set-update', op: dynsetOp(op.text), set: name.text, key, ...options });
  }

  private setStatement(target: Primary): void {
    const setToken = this.s.next();
    const selector = target.selector;
    if (selector.kind === 'meta' && selector.key === 'pkttype') {
      const value = this.s.peek();
      if (value.kind !== 'word' && value.kind !== 'number') this.s.fail(value);
      this.s.next();
      const type = value.kind === 'number' ? value.value : symbolValue('pkttype', value.text);
      if (type === undefined) this.report(errorAt(value.loc, 'Could not parse packet type'));
      else if (type > 255) this.report(errorAt(value.loc, `Value ${type} exceeds valid range 0-255`));
      this.exprs.push({ kind: 'meta-set', key: 'pkttype', source: { kind: 'constant', value: type ?? 0 } });
      return;
    }
    if (selector.kind === 'meta' && (selector.key === 'mark' || selector.key === 'nftrace')) {
      const source = this.source(target);
      if (selector.key === 'nftrace' && source.kind === 'constant' && source.value > 1)
        this.report(errorAt(this.s.previous().loc, `Value ${source.value} exceeds valid range 0-1`));
      this.exprs.push({ kind: 'meta-set', key: selector.key, source });
      return;
    }
    if (selector.kind === 'ct' && selector.key === 'mark' && selector.dir === undefined) {
      this.exprs.push({ kind: 'ct-set', key: 'mark', source: this.source(target) });
      return;
    }
    // nft_meta_set_init: the kernel sets only mark, priority, pkttype, nftrace, secmark (and bridge keys).
    if (selector.kind === 'meta' && READ_ONLY_META.has(selector.key)) {
      const value = this.s.peek();
      if (value.kind === 'word' || value.kind === 'number' || value.kind === 'quoted') this.s.next();
      else this.s.fail(value);
      this.report(
        errorAt(span(target.loc, this.s.previous().loc), 'Could not process rule: Operation not supported'),
      );
      return;
    }
    this.s.failAt(span(target.loc, setToken.loc), 'this set statement is not supported by packetlab');
  }

  /** The value of a set statement: a constant, or `mark`/`ct mark` with `and`/`or`/`xor` folded in. */
  private source(target: Primary): Source {
    const token = this.s.peek();
    const targetType = target.type;
    if (token.kind === 'number') {
      this.s.next();
      if (token.value > 0xffff_ffff)
        this.report(
          errorAt(
            token.loc,
            `Value ${token.text.startsWith('0x') ? BigInt(token.text) : token.text} exceeds valid range 0-4294967295`,
          ),
        );
      return { kind: 'constant', value: token.value >>> 0 };
    }
    if (token.kind === 'word' && !KEYWORDS.has(token.text)) {
      this.s.next();
      this.report(errorAt(token.loc, `Could not parse ${TYPE_DESCRIPTIONS[targetType] ?? targetType}`));
      return { kind: 'constant', value: 0 };
    }
    if (token.kind !== 'word' || !SOURCE_WORDS.has(token.text)) this.s.fail(token);
    const from = this.primary();
    if (from.type !== targetType && from.type !== 'integer' && from.type !== 'mark')
      this.report(
        errorAt(
          from.loc,
          `datatype mismatch: expected ${TYPE_DESCRIPTIONS[targetType] ?? targetType}, expression has type ${TYPE_DESCRIPTIONS[from.type] ?? from.type}`,
          span(target.loc, from.loc),
        ),
      );
    const { mask, xor } = this.bitwiseChain(from.type);
    return { kind: 'value', value: bitwiseValue(from.selector, mask, xor, 0xffff_ffff) };
  }
}

/**
 * The kernel sees a rule only when nft's evaluation found nothing wrong with it, and refuses it for its first bad
 * expression: of the rule's errors from `from` on, the first evaluation error stays, else the first kernel one.
 */
function keepKernelErrorsLast(errors: ErrorRecord[], from: number): void {
  const own = errors.splice(from);
  // rule_evaluate stops at the rule's first bad statement: one evaluation error per rule (with its follow-up).
  const evaluation = own.filter((error) => !error.message.startsWith('Could not process rule:'));
  if (evaluation.length === 0) {
    errors.push(...own.slice(0, 1));
    return;
  }
  errors.push(evaluation[0]!);
  if (evaluation[1] !== undefined && FOLLOW_UPS.has(evaluation[1])) errors.push(evaluation[1]);
}

/** Errors nft queues right after another one of the same expression, and prints with it. */
const FOLLOW_UPS = new WeakSet<ErrorRecord>();

/**
 * An anonymous interval set merges its elements before nft sends them (segtree.c, automerge): covered elements go,
 * overlapping and adjacent ones join (`{ 10.0.0.0/24, 10.0.1.0/24 }` is `{ 10.0.0.0/23 }`, `{ 80, 70-90 }` is
 * `{ 70-90 }`). Sets without a prefix or range, and maps, are left as written.
 */
function mergeIntervals(elements: readonly SetElement[], type: NftType): SetElement[] {
  if (!elements.some((element) => element.key.kind === 'prefix' || element.key.kind === 'range'))
    return [...elements];
  const intervals: [number, number][] = [];
  for (const element of elements) {
    const interval = keyInterval(element.key);
    if (interval === undefined || element.data !== undefined) return [...elements];
    intervals.push([interval[0], interval[1]]);
  }
  intervals.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const interval of intervals) {
    const last = merged[merged.length - 1];
    if (last !== undefined && interval[0] <= last[1] + 1) last[1] = Math.max(last[1], interval[1]);
    else merged.push(interval);
  }
  return merged.map(([low, high]) => ({ key: intervalKey(low, high, type), data: undefined }));
}

function protocolName(value: number): string {
  return symbolName('inet_proto', value) ?? String(value);
}

/** Folds one `and`/`or`/`xor` into nft_bitwise's `(x & mask) ^ xor` (evaluate.c: binop_transfer). */
function fold(op: '&' | '|' | '^', mask: number, xor: number, operand: number): [number, number] {
  switch (op) {
    case '&':
      return [(mask & operand) >>> 0, (xor & operand) >>> 0];
    case '|':
      return [(mask & ~operand) >>> 0, (xor | operand) >>> 0];
    case '^':
      return [mask, (xor ^ operand) >>> 0];
  }
}

/** evaluate.c: binop_transfer — `(x ^ c) == v` is `x == v ^ c`. */
function foldXor(expr: Expr): Expr {
  if (expr.kind !== 'cmp' || (expr.op !== 'eq' && expr.op !== 'ne') || expr.left.length !== 1) return expr;
  const value = expr.left[0]!;
  if (value.xor === undefined || value.mask !== undefined || expr.right.kind !== 'number') return expr;
  return {
    kind: 'cmp',
    left: [{ selector: value.selector }],
    op: expr.op,
    right: { kind: 'number', value: (expr.right.value ^ value.xor) >>> 0 },
  };
}

function applyConstant(op: '&' | '|' | '^', left: number, right: number): number {
  switch (op) {
    case '&':
      return (left & right) >>> 0;
    case '|':
      return (left | right) >>> 0;
    case '^':
      return (left ^ right) >>> 0;
  }
}

function bitwiseValue(selector: Selector, mask: number, xor: number, all: number): Value {
  if (mask === all && xor === 0) return { selector };
  if (xor === 0) return { selector, mask };
  if (mask === all) return { selector, xor };
  return { selector, mask, xor };
}

/** `ct state established,related` is `(ct state & (established|related)) != 0`. */
function flagTest(value: Value, mask: number, op: CmpOp, right: number): Expr {
  return {
    kind: 'cmp',
    left: [{ selector: value.selector, mask }],
    op,
    right: { kind: 'number', value: right },
  };
}

function relationalOperator(token: Token): CmpOp | undefined {
  const text = token.text;
  if (token.kind === 'punct') {
    switch (text) {
      case '==':
        return 'eq';
      case '!=':
        return 'ne';
      case '<':
        return 'lt';
      case '>':
        return 'gt';
      case '<=':
        return 'le';
      case '>=':
        return 'ge';
    }
  }
  if (token.kind === 'word' && ['eq', 'ne', 'lt', 'gt', 'le', 'ge'].includes(text)) return text as CmpOp;
  return undefined;
}

export interface RawValueOptions {
  readonly concat: boolean;
  /** Bitmask types: `a,b` and `a|b` are one flag list (outside set braces, where commas separate elements). */
  readonly flags: boolean;
  readonly inSet: boolean;
}

/** `atom`, `atom/len`, `atom-atom`, `a . b . c`, flag lists `a,b` or `a|b`. */
export function readRawValue(s: TokenStream, options: RawValueOptions): RawValue {
  const parts: RawValue[] = [readSimple(s, options)];
  while (options.concat && s.acceptPunct('.') !== undefined) parts.push(readSimple(s, options));
  if (parts.length > 1) return { kind: 'concat', parts, loc: span(rawLoc(parts[0]!), rawLoc(parts.at(-1)!)) };
  return parts[0]!;
}

function readAtom(s: TokenStream): RawAtom {
  const token = s.peek();
  if (token.kind !== 'word' && token.kind !== 'number' && token.kind !== 'quoted') s.fail(token);
  s.next();
  return { kind: 'atom', token };
}

function readSimple(s: TokenStream, options: RawValueOptions): RawValue {
  const atom = readAtom(s);
  if (!options.flags && s.isPunct('/')) {
    s.next();
    const len = s.peek();
    if (len.kind !== 'number') s.fail(len);
    s.next();
    return { kind: 'prefix', base: atom, len, loc: span(atom.token.loc, len.loc) };
  }
  if (s.isPunct('-')) {
    s.next();
    const high = readAtom(s);
    return { kind: 'range', low: atom, high, loc: span(atom.token.loc, high.token.loc) };
  }
  if (options.flags && !options.inSet && (s.isPunct(',') || s.isPunct('|'))) {
    const parts = [atom];
    while (s.acceptPunct(',') !== undefined || s.acceptPunct('|') !== undefined) parts.push(readAtom(s));
    return { kind: 'flags', parts, loc: span(atom.token.loc, parts.at(-1)!.token.loc) };
  }
  return atom;
}

/** `{ e1, e2 : data, ... }` with newlines allowed inside and an optional trailing comma. */
/** nft's time strings (`10800s`, `3h`, `1m30s`, `250ms`; a bare number is seconds), in ms; undefined if not one. */
export function parseTime(token: Token): number | undefined {
  if (token.kind === 'number') return token.value * 1000;
  if (token.kind !== 'word' || !/^(\d+(d|h|ms|m|s))+$/.test(token.text)) return undefined;
  const size: Readonly<Record<string, number>> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  let total = 0;
  for (const [, count, unit] of token.text.matchAll(/(\d+)(d|h|ms|m|s)/g))
    total += Number(count) * size[unit!]!;
  return total;
}

export function parseElements(s: TokenStream, options: { map: boolean }): RawElement[] {
  s.expectPunct('{', "'{'");
  const elements: RawElement[] = [];
  for (;;) {
    while (s.peek().kind === 'newline') s.next();
    if (s.isPunct('}')) break;
    const key = readRawValue(s, { concat: true, flags: false, inSet: true });
    // The element's options (parser_bison.y: set_elem_options): comment, timeout, expires, counter.
    let comment: string | undefined;
    let timeout: number | undefined;
    let expires: number | undefined;
    let counter: RawElement['counter'];
    for (;;) {
      const option = s.peek();
      if (option.kind !== 'word') break;
      if (option.text === 'counter') {
        s.next();
        counter = parseElementCounter(s);
      } else if (option.text === 'comment') {
        s.next();
        const text = s.next();
        if (text.kind !== 'quoted' && text.kind !== 'word') s.fail(text, 'string');
        comment = text.text;
      } else if (option.text === 'timeout' || option.text === 'expires') {
        s.next();
        const time = s.next();
        const ms = parseTime(time);
        if (ms === undefined) s.fail(time);
        if (option.text === 'timeout') timeout = ms;
        else expires = ms;
      } else break;
    }
    let data: RawVerdict | RawValue | undefined;
    if (s.acceptPunct(':') !== undefined) data = parseElementData(s, options.map);
    elements.push({ key, data, loc: rawLoc(key), comment, timeout, expires, counter });
    while (s.peek().kind === 'newline') s.next();
    if (s.acceptPunct(',') === undefined) break;
  }
  while (s.peek().kind === 'newline') s.next();
  s.expectPunct('}', "comma or '}'");
  return elements;
}

function parseElementData(s: TokenStream, verdictMap: boolean): RawVerdict | RawValue {
  const token = s.peek();
  const verdictWords = ['accept', 'drop', 'continue', 'return', 'jump', 'goto', 'queue'];
  if (token.kind === 'word' && verdictWords.includes(token.text)) {
    s.next();
    if (token.text === 'jump' || token.text === 'goto') {
      const target = s.peek();
      if (!((target.kind === 'word' && !KEYWORDS.has(target.text)) || target.kind === 'quoted'))
        s.fail(target, "'{'");
      s.next();
      return {
        kind: 'verdict',
        verdict: { kind: token.text, chain: target.text },
        chain: { name: target.text, loc: target.loc },
        loc: span(token.loc, target.loc),
      };
    }
    const kind = token.text as 'accept' | 'drop' | 'continue' | 'return' | 'queue';
    return { kind: 'verdict', verdict: { kind }, chain: undefined, loc: token.loc };
  }
  if (verdictMap) s.fail(token);
  return readRawValue(s, { concat: true, flags: false, inSet: true });
}
