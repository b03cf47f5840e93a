// The reject statement of nft 1.0.6 (parser_bison.y: reject_stmt; evaluate.c: stmt_evaluate_reject; statement.c:
// reject_stmt_print) for the ip and inet families: `reject`, `with icmp [type] CODE`, `with icmpx [type] CODE`,
// `with icmpv6 [type] CODE` (inet only; IPv6 packets are not modelled, so it never fires on IPv4), `with tcp reset`.

import type { Family, RejectWith } from '../ir.ts';
import type { Token } from './lexer.ts';
import { type ErrorRecord, errorAt, type Location, span } from './location.ts';
import type { TokenStream } from './stream.ts';
import { symbolName, symbolValue } from './types.ts';

/** NFT_REJECT_ICMPX_* names, with the ICMPv4 code each stands for (nft_reject_icmp_code). */
const ICMPX_CODES: readonly (readonly [string, number])[] = [
  ['no-route', 0],
  ['port-unreachable', 3],
  ['host-unreachable', 1],
  ['admin-prohibited', 13],
];

/** icmpv6_code_type. */
const ICMPV6_CODES: readonly (readonly [string, number])[] = [
  ['no-route', 0],
  ['admin-prohibited', 1],
  ['addr-unreachable', 3],
  ['port-unreachable', 4],
  ['policy-fail', 5],
  ['reject-route', 6],
];

/** What the rule parser knows when the reject comes. */
export interface RejectContext {
  /** Families other than ip read reject as inet does (no ICMPv4 default; icmpx). */
  readonly family: Family;
  /** The transport protocol matched before, and where. */
  readonly transport: { readonly protocol: number; readonly loc: Location } | undefined;
  readonly networkKnown: boolean;
  /** In inet tables: where an IPv4 match made the network protocol known. */
  readonly networkLoc: Location | undefined;
  /** Inserts `meta l4proto N` / `meta nfproto N` before the reject. */
  pushDependency(key: 'l4proto' | 'nfproto', value: number): void;
  report(error: ErrorRecord): void;
}

function code(
  s: TokenStream,
  table: readonly (readonly [string, number])[] | 'icmp',
): { value: number | undefined; loc: Location } {
  s.acceptWord('type');
  const token: Token = s.peek();
  if (token.kind !== 'word' && token.kind !== 'number') s.fail(token);
  s.next();
  if (table === 'icmp') {
    const value = token.kind === 'number' ? token.value : symbolValue('icmp_code', token.text);
    return { value: value !== undefined && value <= 255 ? value : undefined, loc: token.loc };
  }
  const found = table.find(([name]) => name === token.text);
  return { value: found?.[1], loc: token.loc };
}

/** `reject ...`, the `reject` word next; returns how it answers. */
export function parseReject(s: TokenStream, ctx: RejectContext): RejectWith {
  const start = s.next();
  // reject_default: in inet tables an IPv4 context makes the default an ICMP reject, else it is icmpx.
  if (s.acceptWord('with') === undefined)
    return ctx.family === 'inet' && ctx.networkLoc === undefined
      ? { kind: 'icmp', code: 3, abstract: true }
      : { kind: 'icmp', code: 3 };
  const kind = s.peek();
  switch (kind.text) {
    case 'tcp': {
      s.next();
      const reset = s.expectWord('reset');
      const transport = ctx.transport;
      if (transport === undefined) ctx.pushDependency('l4proto', 6);
      else if (transport.protocol !== 6)
        ctx.report(
          errorAt(span(start.loc, start.loc), 'you cannot use tcp reset with this protocol', transport.loc),
        );
      void reset;
      return { kind: 'tcp-reset' };
    }
    case 'icmp': {
      s.next();
      const { value, loc } = code(s, 'icmp');
      if (value === undefined) ctx.report(errorAt(loc, 'Could not parse icmp code'));
      if (ctx.family === 'inet' && !ctx.networkKnown) ctx.pushDependency('nfproto', 2);
      return { kind: 'icmp', code: value ?? 3 };
    }
    case 'icmpx': {
      s.next();
      const { value, loc } = code(s, ICMPX_CODES);
      if (value === undefined) ctx.report(errorAt(loc, 'Could not parse icmpx code'));
      else if (ctx.family === 'ip')
        ctx.report(errorAt(loc, 'abstracted ICMP unreachable not supported', start.loc));
      return { kind: 'icmp', code: value ?? 3, abstract: true };
    }
    case 'icmpv6': {
      s.next();
      const { value, loc } = code(s, ICMPV6_CODES);
      if (value === undefined) ctx.report(errorAt(loc, 'Could not parse icmpv6 code'));
      else if (ctx.family === 'ip' || ctx.networkLoc !== undefined)
        ctx.report(errorAt(loc, 'conflicting protocols specified: ip vs ip6', ctx.networkLoc ?? start.loc));
      else if (!ctx.networkKnown) ctx.pushDependency('nfproto', 10);
      return { kind: 'icmpv6', code: value ?? 4 };
    }
    default:
      return s.fail(kind, 'icmp or icmpv6 or tcp or icmpx');
  }
}

/**
 * reject_stmt_print: in ip tables the port-unreachable default prints bare; in inet tables an explicit ICMP (or
 * ICMPv6) type always prints, and the icmpx port-unreachable default prints bare. iptables-nft rules say `icmp type`.
 */
export function formatReject(how: RejectWith, family: Family, iptables: boolean): string {
  switch (how.kind) {
    case 'tcp-reset':
      return 'reject with tcp reset';
    case 'icmpv6':
      return `reject with icmpv6 ${ICMPV6_CODES.find(([, value]) => value === how.code)?.[0] ?? how.code}`;
    case 'icmp': {
      if (how.abstract) {
        if (how.code === 3) return 'reject';
        return `reject with icmpx ${ICMPX_CODES.find(([, value]) => value === how.code)?.[0] ?? how.code}`;
      }
      if (how.code === 3 && family === 'ip') return 'reject';
      const name = symbolName('icmp_code', how.code) ?? String(how.code);
      return iptables ? `reject with icmp type ${name}` : `reject with icmp ${name}`;
    }
  }
}
