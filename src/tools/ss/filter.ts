// ss's filter expressions (iproute2 6.1's misc/ssfilter.y and parse_hostcond, run as run_ssfilter does): `dst`/`src`
// ADDR[/PREFIX][:PORT], `dport`/`sport` with = != < > <= >= (and eq neq ne gt lt ge le geq leq), `and`/`or`/`not`/`!`
// (and & && | ||), parentheses; not `dev`, `fwmark`, `cgroup`, `autobound`, IPv6 or host names.
//
// The grammar is ssfilter.y's: an expression list combines left to right, `and`, `or` and plain juxtaposition
// (an implicit `and`) all at one level, so `a or b and c` is `(a or b) and c`; `!` binds to one expression.
// Words are split again at blanks, as the lexer reads them (`'dport = :80'` is three tokens). A word that is
// no keyword is an address or port parsed at once, for the last of dst/src/dport/sport seen, so a bad
// address is reported before a later syntax error, as the lexer does.

import { parsePort } from '../../netfilter/iptables/names.ts';
import type { Ipv4Addr } from '../../wire/address.ts';

/** What a filter looks at in a socket. */
export interface FilterSocket {
  readonly localAddr: Ipv4Addr;
  readonly localPort: number;
  readonly remoteAddr: Ipv4Addr;
  readonly remotePort: number;
}

/** parse_hostcond's result: a prefix (bits 0: any address) and a port (-1: any). */
interface HostCond {
  readonly addr: Ipv4Addr;
  readonly bits: number;
  readonly port: number;
}

export type SsFilter =
  | { readonly type: 'dcond' | 'scond' | 'dge' | 'dle' | 'sge' | 'sle'; readonly cond: HostCond }
  | { readonly type: 'and' | 'or'; readonly left: SsFilter; readonly right: SsFilter }
  | { readonly type: 'not'; readonly inner: SsFilter };

/** How parsing ended: a filter (or none for an empty expression), or ss's messages and exit status. */
export type FilterParse =
  | { readonly ok: true; readonly filter: SsFilter | undefined }
  | { readonly ok: false; readonly stderr: string; readonly exitCode: number; readonly usage: boolean }
  | { readonly ok: false; readonly unsupported: string };

type Keyword = 'dst' | 'src' | 'dport' | 'sport';
type Token =
  | { readonly kind: '!' | '&' | '|' | '(' | ')' | '=' | 'neq' | 'geq' | 'leq' | '>' | '<' }
  | { readonly kind: 'keyword'; readonly keyword: Keyword }
  | { readonly kind: 'host'; readonly cond: HostCond };

const OPERATORS: ReadonlyMap<string, Token['kind']> = new Map([
  ['!', '!'],
  ['not', '!'],
  ['&', '&'],
  ['&&', '&'],
  ['and', '&'],
  ['|', '|'],
  ['||', '|'],
  ['or', '|'],
  ['(', '('],
  [')', ')'],
  ['>=', 'geq'],
  ['ge', 'geq'],
  ['geq', 'geq'],
  ['<=', 'leq'],
  ['le', 'leq'],
  ['leq', 'leq'],
  ['!=', 'neq'],
  ['ne', 'neq'],
  ['neq', 'neq'],
  ['=', '='],
  ['==', '='],
  ['eq', '='],
  ['>', '>'],
  ['gt', '>'],
  ['<', '<'],
  ['lt', '<'],
]);

const UNMODELLED = new Set(['dev', 'fwmark', 'cgroup', 'autobound']);

class LexError {
  constructor(
    readonly stderr: string,
    readonly exitCode: number,
  ) {}
}
class Unsupported {
  constructor(readonly what: string) {}
}
class SyntaxError_ {}

/** get_integer with base 0: decimal, 0x hex or 0 octal, the whole word. */
function parseInteger(text: string): number | undefined {
  let value: number;
  if (/^[+-]?0[xX][0-9a-fA-F]+$/.test(text))
    value = Number.parseInt(text.replace(/0[xX]/, ''), 16) * (text.startsWith('-') ? -1 : 1);
  else if (/^[+-]?0[0-7]*$/.test(text)) value = Number.parseInt(text, 8);
  else if (/^[+-]?[1-9][0-9]*$/.test(text)) value = Number.parseInt(text, 10);
  else return undefined;
  return value;
}

/** get_addr_ipv4: up to four dot-separated numbers (strtoul base 0, each at most 255), missing bytes 0 ("10.1" is 10.1.0.0). */
function addressOf(text: string): Ipv4Addr | undefined {
  const parts = text.split('.');
  if (parts.length > 4) return undefined;
  const bytes = [0, 0, 0, 0];
  for (let i = 0; i < parts.length; i++) {
    const n = parseInteger(parts[i]!);
    if (n === undefined || n < 0 || n > 255 || parts[i]!.startsWith('-') || parts[i]!.startsWith('+'))
      return undefined;
    bytes[i] = n;
  }
  return ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
}

/** parse_hostcond for an inet address: [ADDR][/PREFIX][:PORT], `*` for any, or just a port for dport/sport. */
function parseHostCond(word: string, isPort: boolean, dbs: { tcp: boolean; udp: boolean }): HostCond {
  let addr = word;
  let family = '';
  for (const prefix of ['inet:', 'inet6:', 'unix:', 'link:', 'netlink:', 'vsock:']) {
    if (addr.startsWith(prefix)) {
      family = prefix;
      addr = addr.slice(prefix.length);
    }
  }
  if (family !== '' && family !== 'inet:')
    throw new Unsupported(`filter address family ${family.slice(0, -1)}`);
  let port: string | undefined;
  if (addr.startsWith('[')) {
    const close = addr.indexOf(']');
    if (close < 0) throw new LexError('Cannot parse dst/src address.\n', 1);
    port = addr.slice(close + 1);
    addr = addr.slice(1, close);
  } else if (addr.startsWith('*')) {
    port = addr.slice(1);
    addr = '*';
  } else {
    const slash = addr.indexOf('/');
    const colon = addr.lastIndexOf(':');
    if (colon >= 0 && colon > slash) {
      port = addr.slice(colon);
      addr = addr.slice(0, colon);
    }
  }
  if (isPort) {
    port = addr + (port ?? '');
    addr = '';
  }
  let portNumber = -1;
  if (port !== undefined && port !== '') {
    if (port.startsWith(':')) port = port.slice(1);
    if (port !== '' && port !== '*') {
      const number = parseInteger(port);
      if (number !== undefined) portNumber = number;
      else {
        const udp = dbs.udp ? parsePort(port, 'udp') : undefined;
        const tcp = dbs.tcp ? parsePort(port, 'tcp') : undefined;
        if (udp !== undefined && tcp !== undefined && udp !== tcp)
          throw new LexError(`Error: ambiguous port "${port}".\nCannot parse dst/src address.\n`, 1);
        const found = udp ?? tcp;
        if (found === undefined)
          throw new LexError(
            `Error: "${port}" does not look like a port.\nCannot parse dst/src address.\n`,
            1,
          );
        portNumber = found;
      }
    }
  }
  if (addr === '' || addr === '*') return { addr: 0, bits: 0, port: portNumber };
  if (addr.includes(':')) throw new Unsupported('IPv6 addresses in filters');
  const slash = addr.indexOf('/');
  const ip = addressOf(slash >= 0 ? addr.slice(0, slash) : addr);
  const bits = slash >= 0 ? Number(addr.slice(slash + 1)) : 32;
  if (
    ip === undefined ||
    !/^\d*$/.test(slash >= 0 ? addr.slice(slash + 1) : '') ||
    !(bits >= 0 && bits <= 32)
  )
    throw new LexError(
      `Error: an inet prefix is expected rather than "${addr}".\nCannot parse dst/src address.\n`,
      1,
    );
  return { addr: ip, bits, port: portNumber };
}

class Parser {
  private readonly words: string[];
  private at = 0;
  private lookahead: Token | undefined | null = null;
  /** The lexer's tok_type: the last address keyword, which decides how a bare word parses. */
  private hostKind: Keyword | undefined;

  constructor(
    args: readonly string[],
    private readonly dbs: { tcp: boolean; udp: boolean },
  ) {
    // get_token_from_line: each argument is split again at spaces and tabs; a backslash escapes the next character.
    this.words = args
      .flatMap((arg) => arg.split(/[ \t]+/).filter((w) => w !== ''))
      .map((w) => w.replace(/\\(.)/g, '$1'));
  }

  private lex(): Token | undefined {
    const word = this.words[this.at++];
    if (word === undefined) return undefined;
    const op = OPERATORS.get(word);
    if (op !== undefined) return { kind: op } as Token;
    if (word === 'dst' || word === 'src' || word === 'dport' || word === 'sport') {
      this.hostKind = word;
      return { kind: 'keyword', keyword: word };
    }
    if (UNMODELLED.has(word)) throw new Unsupported(`filter "${word}"`);
    const isPort = this.hostKind === 'dport' || this.hostKind === 'sport';
    return { kind: 'host', cond: parseHostCond(word, isPort, this.dbs) };
  }

  private peek(): Token | undefined {
    if (this.lookahead === null) this.lookahead = this.lex();
    return this.lookahead;
  }

  private next(): Token | undefined {
    const token = this.peek();
    this.lookahead = null;
    return token;
  }

  private startsExpr(token: Token | undefined): boolean {
    return token !== undefined && (token.kind === '(' || token.kind === '!' || token.kind === 'keyword');
  }

  /** applet: exprlist | nothing. */
  parseAll(): SsFilter | undefined {
    if (this.peek() === undefined) return undefined;
    const filter = this.exprList();
    if (this.peek() !== undefined) throw new SyntaxError_();
    return filter;
  }

  private exprList(): SsFilter {
    let left = this.expr();
    for (;;) {
      const token = this.peek();
      if (token?.kind === '|' || token?.kind === '&') {
        this.next();
        left = { type: token.kind === '|' ? 'or' : 'and', left, right: this.expr() };
      } else if (this.startsExpr(token)) left = { type: 'and', left, right: this.expr() };
      else return left;
    }
  }

  private host(): HostCond {
    const token = this.next();
    if (token?.kind !== 'host') throw new SyntaxError_();
    return token.cond;
  }

  private expr(): SsFilter {
    const token = this.next();
    if (token === undefined) throw new SyntaxError_();
    switch (token.kind) {
      case '(': {
        const inner = this.exprList();
        if (this.next()?.kind !== ')') throw new SyntaxError_();
        return inner;
      }
      case '!':
        return { type: 'not', inner: this.expr() };
      case 'keyword':
        return this.condition(token.keyword);
      default:
        throw new SyntaxError_();
    }
  }

  /** DCOND eq HOSTCOND, SCOND eq HOSTCOND, and the port comparisons with their rewrites (`>` is not `<=`). */
  private condition(keyword: Keyword): SsFilter {
    if (keyword === 'dst' || keyword === 'src') {
      if (this.peek()?.kind === '=') this.next();
      return { type: keyword === 'dst' ? 'dcond' : 'scond', cond: this.host() };
    }
    const d = keyword === 'dport';
    const op = this.peek();
    let kind: Token['kind'] = '=';
    if (op !== undefined && op.kind !== 'host') {
      kind = op.kind;
      this.next();
    }
    const eq: SsFilter['type'] = d ? 'dcond' : 'scond';
    const ge: SsFilter['type'] = d ? 'dge' : 'sge';
    const le: SsFilter['type'] = d ? 'dle' : 'sle';
    switch (kind) {
      case '=':
        return { type: eq, cond: this.host() };
      case 'neq':
        return { type: 'not', inner: { type: eq, cond: this.host() } };
      case 'geq':
        return { type: ge, cond: this.host() };
      case 'leq':
        return { type: le, cond: this.host() };
      case '>':
        return { type: 'not', inner: { type: le, cond: this.host() } };
      case '<':
        return { type: 'not', inner: { type: ge, cond: this.host() } };
      default:
        throw new SyntaxError_();
    }
  }
}

/** ssfilter_parse over the words after the state filter. `dbs` are the tables asked for (service names look there). */
export function parseFilter(args: readonly string[], dbs: { tcp: boolean; udp: boolean }): FilterParse {
  try {
    return { ok: true, filter: new Parser(args, dbs).parseAll() };
  } catch (error) {
    if (error instanceof SyntaxError_)
      return {
        ok: false,
        stderr: 'ss: bison bellows (while parsing filter): "syntax error!" Sorry.\n',
        exitCode: 255,
        usage: true,
      };
    if (error instanceof LexError)
      return { ok: false, stderr: error.stderr, exitCode: error.exitCode, usage: false };
    if (error instanceof Unsupported) return { ok: false, unsupported: error.what };
    throw error;
  }
}

function prefixMatch(addr: Ipv4Addr, cond: HostCond): boolean {
  if (cond.bits === 0) return true;
  const mask = cond.bits === 32 ? 0xffff_ffff : ~(0xffff_ffff >>> cond.bits) >>> 0;
  return (addr & mask) >>> 0 === (cond.addr & mask) >>> 0;
}

/** run_ssfilter. */
export function runFilter(filter: SsFilter, socket: FilterSocket): boolean {
  switch (filter.type) {
    case 'dcond':
      return (
        (filter.cond.port === -1 || filter.cond.port === socket.remotePort) &&
        prefixMatch(socket.remoteAddr, filter.cond)
      );
    case 'scond':
      return (
        (filter.cond.port === -1 || filter.cond.port === socket.localPort) &&
        prefixMatch(socket.localAddr, filter.cond)
      );
    case 'dge':
      return socket.remotePort >= filter.cond.port;
    case 'dle':
      return socket.remotePort <= filter.cond.port;
    case 'sge':
      return socket.localPort >= filter.cond.port;
    case 'sle':
      return socket.localPort <= filter.cond.port;
    case 'and':
      return runFilter(filter.left, socket) && runFilter(filter.right, socket);
    case 'or':
      return runFilter(filter.left, socket) || runFilter(filter.right, socket);
    case 'not':
      return !runFilter(filter.inner, socket);
    default:
      return filter satisfies never;
  }
}
