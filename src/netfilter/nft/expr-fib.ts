// The checks nft and the kernel make on `fib` expressions: the flag combinations nft's evaluate.c refuses
// (expr_evaluate_fib) and the hooks nft_fib_validate allows each result in. Evaluation is in expr/fib.ts.

import type { Expr, FibSelector, HookName } from '../ir.ts';
import { type ErrorRecord, errorAt, type Location, span } from './location.ts';

/** nft's flag errors, located at the flags written (`fib saddr . daddr oif` underlines `saddr . daddr`). */
export function fibFlagsError(
  flags: FibSelector['flags'],
  first: Location,
  last: Location,
): ErrorRecord | undefined {
  const at = span(first, last);
  if (flags.includes('saddr') && flags.includes('daddr'))
    return errorAt(at, 'fib: saddr and daddr are mutually exclusive');
  if (flags.includes('iif') && flags.includes('oif'))
    return errorAt(at, 'fib: iif and oif are mutually exclusive');
  if (!flags.includes('saddr') && !flags.includes('daddr'))
    return errorAt(at, 'fib: need either saddr or daddr');
  return undefined;
}

/** nft_fib_validate: the hooks a fib result may be read in. */
function allowedHooks(selector: FibSelector): readonly HookName[] {
  if (selector.result !== 'type') return ['prerouting', 'input', 'forward'];
  if (selector.flags.includes('iif')) return ['prerouting', 'input', 'forward'];
  if (selector.flags.includes('oif')) return ['output', 'postrouting', 'forward'];
  return ['prerouting', 'input', 'forward', 'output', 'postrouting'];
}

/** True when a rule of a base chain on `hook` reads a fib result the kernel refuses there (EOPNOTSUPP). */
export function fibRefusedIn(exprs: readonly Expr[], hook: HookName): boolean {
  for (const expr of exprs) {
    if (expr.kind !== 'cmp' && expr.kind !== 'lookup' && expr.kind !== 'vmap') continue;
    for (const value of expr.left)
      if (value.selector.kind === 'fib' && !allowedHooks(value.selector).includes(hook)) return true;
  }
  return false;
}
