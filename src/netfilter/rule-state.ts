// The state a rule owns: a limit's token bucket and a quota's consumed bytes live in their expressions (the kernel's nft_limit and nft_quota private data, one per rule), so a rule made from a compiled form that other rules share (iptables' line cache hands every namespace the same one) gets its own copies; every other expression stays shared.

import type { Expr } from './ir.ts';

/** `exprs` itself when nothing in it holds state; else a copy whose stateful expressions are new, as they were compiled. */
export function withOwnState(exprs: readonly Expr[]): readonly Expr[] {
  let own: Expr[] | undefined;
  for (let i = 0; i < exprs.length; i++) {
    const expr = exprs[i]!;
    if (expr.kind === 'limit') {
      own ??= exprs.slice();
      own[i] = { ...expr, bucket: { tokens: expr.bucket.tokens, last: expr.bucket.last } };
    } else if (expr.kind === 'quota') {
      own ??= exprs.slice();
      own[i] = { ...expr, consumed: { bytes: expr.consumed.bytes } };
    }
  }
  return own ?? exprs;
}
