// nft's connlimit statement (parser_bison.y: connlimit_stmt; statement.c: connlimit_stmt_print; json.c:
// connlimit_stmt_json): `ct count [over] N`, the connections conntrack holds that met the rule, in one list per
// rule. It runs as xt_connlimit with mask 0 (xt/ext-matches.ts), which is nf_conncount under both. Not modelled:
// `ct count` in a set's element (`add @s { ip saddr ct count over 2 }`, a list per key).

import type { Expr } from '../ir.ts';
import type { TokenStream } from './stream.ts';

/** `ct count [over] N`; `ct` is next. The count is a u32 (a larger number keeps its low 32 bits, as nft's does). */
export function parseCtCount(s: TokenStream): Expr {
  s.next();
  s.next();
  const over = s.acceptWord('over') !== undefined;
  const token = s.peek();
  if (token.kind !== 'number') s.fail(token, over ? 'number' : 'number or over');
  s.next();
  const limit = Number(BigInt(token.text) & 0xffff_ffffn);
  return {
    kind: 'match',
    name: 'connlimit',
    options: { name: 'connlimit', limit, mask: 0, daddr: false, above: over, nft: true },
  };
}

/** connlimit_stmt_print. */
export function formatCtCount(limit: number, over: boolean): string {
  return `ct count ${over ? 'over ' : ''}${limit}`;
}
