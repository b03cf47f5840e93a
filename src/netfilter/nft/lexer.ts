// Tokenizer for the nft language, after nftables' scanner.l: words (identifiers, dotted IPv4 addresses, MAC
// addresses, `eth*` wildcards), decimal and 0x numbers, quoted strings, punctuation, newlines and `#` comments.
// No IPv6 addresses, no `$variables` or `include`, no scanner scopes: every keyword is a keyword everywhere.

import { parseIpv6 } from '../../wire/ipv6-text.ts';
import type { Location } from './location.ts';

export type TokenKind = 'word' | 'number' | 'quoted' | 'punct' | 'newline' | 'semicolon' | 'eof' | 'junk';

export interface Token {
  readonly kind: TokenKind;
  /** The text as written (without the quotes of a quoted string). */
  readonly text: string;
  readonly loc: Location;
  /** Numbers: the value (at most 2^53). */
  readonly value: number;
}

/**
 * Words nft's scanner returns as keywords: bison names them by their text in `unexpected X`, and they cannot
 * be table, chain or set names. Words not listed here (hook names, chain types, priority names, `filter`,
 * `trace`...) are plain strings, as in nft.
 */
export const KEYWORDS: ReadonlySet<string> = new Set([
  'table',
  'tables',
  'chain',
  'chains',
  'rule',
  'rules',
  'set',
  'sets',
  'map',
  'maps',
  'element',
  'elements',
  'add',
  'create',
  'insert',
  'delete',
  'replace',
  'flush',
  'list',
  'reset',
  'rename',
  'describe',
  'monitor',
  'ruleset',
  'hook',
  'type',
  'typeof',
  'priority',
  'policy',
  'device',
  'devices',
  'flags',
  'comment',
  'counter',
  'packets',
  'bytes',
  'accept',
  'drop',
  'continue',
  'return',
  'jump',
  'goto',
  'queue',
  'num',
  'reject',
  'with',
  'log',
  'prefix',
  'level',
  'notrack',
  'dnat',
  'snat',
  'masquerade',
  'redirect',
  'to',
  'random',
  'fully-random',
  'persistent',
  'meta',
  'mark',
  'ct',
  'state',
  'status',
  'direction',
  'original',
  'reply',
  'ip',
  'ip6',
  'inet',
  'arp',
  'bridge',
  'netdev',
  'tcp',
  'udp',
  'udplite',
  'sctp',
  'dccp',
  'th',
  'icmp',
  'icmpv6',
  'ether',
  'vlan',
  'fib',
  'numgen',
  'jhash',
  'symhash',
  'cpu',
  'skuid',
  'skgid',
  'rtclassid',
  'ibrname',
  'obrname',
  'iifgroup',
  'oifgroup',
  'cgroup',
  'ipsec',
  'secmark',
  'day',
  'hour',
  'time',
  'mod',
  'offset',
  'inc',
  'vmap',
  'iif',
  'oif',
  'iifname',
  'oifname',
  'l4proto',
  'nfproto',
  'protocol',
  'length',
  'pkttype',
  'nftrace',
  'saddr',
  'daddr',
  'sport',
  'dport',
  'id',
  'ttl',
  'dscp',
  'ecn',
  'code',
  'sequence',
  'handle',
  'position',
  'index',
  'timeout',
  'size',
  'interval',
  'constant',
  'dynamic',
  'fwd',
  'dup',
  'limit',
  'quota',
  'and',
  'or',
  'xor',
  'exists',
  'missing',
  'expiration',
  'proto-src',
  'proto-dst',
  'rt',
  'nexthop',
  'mtu',
  'reset',
  'window',
  'checksum',
  'version',
  'hdrlength',
  'frag-off',
  'll',
  'nh',
  'oiftype',
  'iiftype',
  'stateless',
  'include',
  'define',
  'counters',
  'quotas',
  'flowtable',
  'tproxy',
]);

const PUNCT2 = ['==', '!=', '<=', '>=', '<<', '>>'];
const PUNCT1 = '{}()[]:,.<>&|^!/+-@$*=';

function isLetter(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

function isWordChar(c: string): boolean {
  return isLetter(c) || isDigit(c) || c === '/' || c === '-' || c === '_' || c === '.';
}

// Sticky patterns, matched at the current position without copying the input.
const IPV4 = /\d{1,3}(?:\.\d{1,3}){3}/y;
const IPV6_MAPPED = /^[0-9a-fA-F:]*:\d+\.\d+\.\d+\.\d+/;
const IPV6_CANDIDATE = /^[0-9a-fA-F:]*:[0-9a-fA-F:]*/;
const MAC = /[0-9a-fA-F]{1,2}(?::[0-9a-fA-F]{1,2}){5}(?![0-9a-zA-Z:])/y;
const HEX = /0x[0-9a-fA-F]+/y;
const DEC = /\d+/y;

function matchAt(pattern: RegExp, text: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(text)?.[0];
}

/** An IPv6 address starting at `at` (nft's scanner has ip6addr tokens), with at least two colons; else undefined. */
function matchIpv6(text: string, at: number): string | undefined {
  const rest = text.slice(at);
  const match = IPV6_MAPPED.exec(rest) ?? IPV6_CANDIDATE.exec(rest);
  if (match === null) return undefined;
  const candidate = match[0];
  if (candidate.split(':').length < 3 || parseIpv6(candidate) === undefined) return undefined;
  return candidate;
}

/**
 * V8 cuts a substring of 13 characters or more as a view of the whole input: a chain name kept by a rule would keep
 * the whole `nft -f` file alive (1.6 KB per kube-proxy Service). Names and comments are copied out instead, each text
 * once per input (kube-proxy writes `mark-for-masquerade` in every Service's rules).
 */
const VIEW_LENGTH = 13;

/** Splits `text` into tokens, always ending with one `eof` token; never throws. */
export function tokenize(text: string): Token[] {
  const owned = new Map<string, string>();
  const own = (value: string): string => {
    if (value.length < VIEW_LENGTH) return value;
    let copy = owned.get(value);
    if (copy === undefined) {
      // Slicing a concatenation flattens it into a new string first: the copy no longer refers to `text`.
      copy = ` ${value}`.slice(1);
      owned.set(copy, copy);
    }
    return copy;
  };
  const tokens: Token[] = [];
  const lineStarts: number[] = [0];
  let line = 0;
  let i = 0;
  const push = (kind: TokenKind, start: number, length: number, tokenText: string, value = 0): void => {
    const first = start - lineStarts[line]! + 1;
    tokens.push({
      kind,
      text: tokenText,
      value,
      loc: { line: line + 1, first, last: first + Math.max(length, 1) - 1, textLine: line },
    });
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '\\' && text[i + 1] === '\n') {
      i += 2;
      line++;
      lineStarts[line] = i;
      continue;
    }
    if (c === '\n') {
      push('newline', i, 1, '\n');
      i++;
      line++;
      lineStarts[line] = i;
      continue;
    }
    if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === ';') {
      push('semicolon', i, 1, ';');
      i++;
      continue;
    }
    if (c === '"') {
      const end = text.indexOf('"', i + 1);
      const newline = text.indexOf('\n', i + 1);
      if (end < 0 || (newline >= 0 && newline < end)) {
        push('junk', i, 1, c);
        i++;
        continue;
      }
      push('quoted', i, end - i + 1, own(text.slice(i + 1, end)));
      i = end + 1;
      continue;
    }
    if (isDigit(c) || isLetter(c) || (c === ':' && text[i + 1] === ':')) {
      const ip6 = matchIpv6(text, i);
      if (ip6 !== undefined) {
        push('word', i, ip6.length, ip6);
        i += ip6.length;
        continue;
      }
    }
    if (isDigit(c) || isLetter(c)) {
      const mac = matchAt(MAC, text, i);
      if (mac !== undefined) {
        push('word', i, mac.length, mac);
        i += mac.length;
        continue;
      }
    }
    if (isDigit(c)) {
      const ip = matchAt(IPV4, text, i);
      if (ip !== undefined && !isLetter(text[i + ip.length] ?? '')) {
        push('word', i, ip.length, ip);
        i += ip.length;
        continue;
      }
      const number = matchAt(HEX, text, i) ?? matchAt(DEC, text, i)!;
      let j = i + number.length;
      // Digits running into letters ("80abc") form one word nft cannot parse as a number either.
      if (isLetter(text[j] ?? '') || text[j] === '_') {
        while (j < text.length && isWordChar(text[j]!)) j++;
        push('word', i, j - i, own(text.slice(i, j)));
        i = j;
        continue;
      }
      push('number', i, number.length, number, Number(number));
      i = j;
      continue;
    }
    if (isLetter(c) || c === '_') {
      let j = i + 1;
      while (j < text.length && isWordChar(text[j]!)) j++;
      if (text[j] === '*') j++;
      push('word', i, j - i, own(text.slice(i, j)));
      i = j;
      continue;
    }
    const two = text.slice(i, i + 2);
    if (PUNCT2.includes(two)) {
      push('punct', i, 2, two);
      i += 2;
      continue;
    }
    if (PUNCT1.includes(c)) {
      push('punct', i, 1, c);
      i++;
      continue;
    }
    push('junk', i, 1, c);
    i++;
  }
  // bison reports the end of input at column 1 of the line after the last newline, showing the last full line.
  const textLine = line > 0 && text.endsWith('\n') ? line - 1 : line;
  tokens.push({ kind: 'eof', text: '', value: 0, loc: { line: line + 1, first: 1, last: 1, textLine } });
  return tokens;
}

/** How bison names a token in `unexpected X` / `expecting X`. */
export function describeToken(token: Token): string {
  switch (token.kind) {
    case 'word':
      return KEYWORDS.has(token.text) ? token.text : 'string';
    case 'number':
      return 'number';
    case 'quoted':
      return 'quoted string';
    case 'newline':
      return 'newline';
    case 'semicolon':
      return 'semicolon';
    case 'eof':
      return 'end of file';
    case 'junk':
      return 'junk';
    case 'punct':
      switch (token.text) {
        case ':':
          return 'colon';
        case ',':
          return 'comma';
        case '{':
        case '}':
        case '(':
        case ')':
        case '[':
        case ']':
          return `'${token.text}'`;
        default:
          return token.text;
      }
  }
}
