// `typeof EXPR . EXPR [: EXPR]` in a set or map declaration (parser_bison.y: typeof_expr, set_block): the key (and
// data) types taken from the expressions named, and the text nft lists them with (`meta iifname` lists as
// `iifname`, `mark` as `meta mark`). Only expressions whose type the IR names are known; others are refused.

import type { DataType } from '../ir.ts';
import { errorAt, span } from './location.ts';
import type { TokenStream } from './stream.ts';

/** What one typeof expression is: its canonical text and its datatype. */
const TYPEOF_EXPRESSIONS: Readonly<Record<string, readonly [string, DataType]>> = {
  'ip saddr': ['ip saddr', 'ipv4_addr'],
  'ip daddr': ['ip daddr', 'ipv4_addr'],
  'ip protocol': ['ip protocol', 'inet_proto'],
  'meta l4proto': ['meta l4proto', 'inet_proto'],
  'tcp sport': ['tcp sport', 'inet_service'],
  'tcp dport': ['tcp dport', 'inet_service'],
  'udp sport': ['udp sport', 'inet_service'],
  'udp dport': ['udp dport', 'inet_service'],
  'th sport': ['th sport', 'inet_service'],
  'th dport': ['th dport', 'inet_service'],
  mark: ['meta mark', 'mark'],
  'meta mark': ['meta mark', 'mark'],
  'ct mark': ['ct mark', 'mark'],
  iifname: ['iifname', 'ifname'],
  oifname: ['oifname', 'ifname'],
  'meta iifname': ['iifname', 'ifname'],
  'meta oifname': ['oifname', 'ifname'],
  'ether saddr': ['ether saddr', 'ether_addr'],
  'ether daddr': ['ether daddr', 'ether_addr'],
  'ct state': ['ct state', 'ct_state'],
  'ct status': ['ct status', 'ct_status'],
  'ct original ip saddr': ['ct original ip saddr', 'ipv4_addr'],
  'ct original ip daddr': ['ct original ip daddr', 'ipv4_addr'],
  'ct reply ip saddr': ['ct reply ip saddr', 'ipv4_addr'],
  'ct reply ip daddr': ['ct reply ip daddr', 'ipv4_addr'],
};

/** The longest expression text any entry has, in words. */
const MAX_WORDS = 4;

export interface TypeofPart {
  readonly types: readonly DataType[];
  /** As nft lists it: `ip saddr . tcp dport`. */
  readonly text: string;
}

/** Reads one `.`-joined typeof expression list; an expression packetlab does not know is reported. */
export function parseTypeof(s: TokenStream): TypeofPart {
  const types: DataType[] = [];
  const texts: string[] = [];
  do {
    const first = s.peek();
    if (first.kind !== 'word') s.fail(first);
    const words: string[] = [];
    let known: readonly [string, DataType] | undefined;
    let taken = 0;
    for (let n = 0; n < MAX_WORDS && s.peek(n).kind === 'word'; n++) {
      words.push(s.peek(n).text);
      const entry = TYPEOF_EXPRESSIONS[words.join(' ')];
      if (entry !== undefined) {
        known = entry;
        taken = n + 1;
      }
    }
    if (known === undefined) {
      s.next();
      while (s.peek().kind === 'word') s.next();
      s.report(
        errorAt(span(first.loc, s.previous().loc), 'this typeof expression is not supported by packetlab'),
      );
      types.push('integer');
      texts.push(first.text);
      continue;
    }
    for (let n = 0; n < taken; n++) s.next();
    types.push(known[1]);
    texts.push(known[0]);
  } while (s.acceptPunct('.') !== undefined);
  return { types, text: texts.join(' . ') };
}
