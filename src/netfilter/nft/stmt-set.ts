// The set statement's options (parser_bison.y: set_stmt, set_elem_expr_options; statement.c: set_stmt_print):
// `update @s { ip saddr timeout 10s counter }`, read after the key and listed after it in nft's order (timeout,
// then the counter). Not supported: `expires`, `comment`, and stateful expressions other than counter (limit,
// quota) inside the braces, and map updates (`update @m { ip saddr : 0x1 }`).

import type { Expr } from '../ir.ts';
import { formatDuration } from './printer.ts';
import { parseTime } from './rule.ts';
import type { TokenStream } from './stream.ts';

type SetUpdate = Extract<Expr, { kind: 'set-update' }>;

export function dynsetOp(word: string): SetUpdate['op'] {
  return word === 'add' ? 'add' : word === 'delete' ? 'delete' : 'update';
}

/** `timeout T` and `counter` after the key, in either order. */
export function parseDynsetOptions(s: TokenStream): Pick<SetUpdate, 'timeout' | 'counter'> {
  let timeout: number | undefined;
  let counter: boolean | undefined;
  for (;;) {
    if (s.acceptWord('timeout') !== undefined) {
      const time = s.next();
      timeout = parseTime(time);
      if (timeout === undefined) s.fail(time);
    } else if (s.acceptWord('counter') !== undefined) counter = true;
    else break;
  }
  return {
    ...(timeout === undefined ? {} : { timeout }),
    ...(counter === undefined ? {} : { counter }),
  };
}

/** ` timeout 10s counter` as nft lists the statement's options (the same under `-s`: no values are shown). */
export function dynsetOptionsText(expr: SetUpdate): string {
  let text = '';
  if (expr.timeout !== undefined) text += ` timeout ${formatDuration(expr.timeout)}`;
  if (expr.counter === true) text += ' counter';
  return text;
}
