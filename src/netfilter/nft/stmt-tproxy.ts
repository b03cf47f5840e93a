// nft's tproxy statement (nft_tproxy): `tproxy [ip] to [ADDR][:PORT]`, parsed and listed as nft 1.0.6 does, after a
// transport match; only prerouting may hold it (nft_tproxy_validate). Evaluation reuses xt_TPROXY's socket choice
// (iptables/target-tproxy.ts) but, as nft_tproxy_eval_v4, continues the rule and leaves the mark alone. Not
// supported: `tproxy ip6`.

import type { Expr, Family, HookName } from '../ir.ts';
import type { Token } from './lexer.ts';
import { type ErrorRecord, errorAt, type Location, span } from './location.ts';
import type { TokenStream } from './stream.ts';
import { formatIpv4 } from './types.ts';

export interface TproxyContext {
  readonly family: Family;
  readonly transportKnown: boolean;
  /** In inet tables, where an IPv4 match was made (nft then wants `tproxy ip to`). */
  readonly networkLoc: Location | undefined;
  report(error: ErrorRecord): void;
  address(): number;
}

/** After the `tproxy` keyword. */
export function parseTproxy(
  s: TokenStream,
  keyword: Token,
  ctx: TproxyContext,
): Extract<Expr, { kind: 'tproxy' }> {
  const version = s.peek();
  if (version.text === 'ip6')
    s.failAt(span(keyword.loc, version.loc), 'tproxy ip6 is not supported by packetlab');
  const explicit = version.text === 'ip';
  if (explicit) s.next();
  if (s.acceptWord('to') === undefined) s.fail(s.peek(), 'to');
  let addr = 0;
  let port = 0;
  if (s.peek().text !== ':') addr = ctx.address();
  if (s.acceptPunct(':') !== undefined) port = s.number().value;
  const whole = span(keyword.loc, s.previous().loc);
  if (!ctx.transportKnown)
    ctx.report(errorAt(whole, 'Transparent proxy support requires transport protocol match'));
  else if (ctx.family === 'inet' && addr !== 0 && !explicit)
    ctx.report(
      ctx.networkLoc === undefined
        ? errorAt(whole, 'ip or ip6 must be specified with address for inet tables.')
        : errorAt(
            whole,
            'conflicting protocols specified: ip vs. unknown. You must specify ip or ip6 family in tproxy statement',
            ctx.networkLoc,
          ),
    );
  return { kind: 'tproxy', addr, port, markValue: 0, markMask: 0, nft: true };
}

/** `tproxy to 10.0.0.1:8080`, `tproxy to :8080` (inet tables name the version: `tproxy ip to`). */
export function formatTproxy(expr: Extract<Expr, { kind: 'tproxy' }>, family: Family): string {
  const version = family === 'inet' && expr.addr !== 0 ? 'ip ' : '';
  return `tproxy ${version}to ${expr.addr !== 0 ? formatIpv4(expr.addr) : ''}${expr.port !== 0 ? `:${expr.port}` : ''}`;
}

/** nft_tproxy_validate: prerouting only. */
export function tproxyRefusedIn(exprs: readonly Expr[], hook: HookName): boolean {
  return hook !== 'prerouting' && exprs.some((expr) => expr.kind === 'tproxy' && expr.nft === true);
}
