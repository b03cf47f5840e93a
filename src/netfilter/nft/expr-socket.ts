// nft's `socket` expression (nft_socket): `socket transparent`, `socket mark` and `socket wildcard`, parsed as nft
// 1.0.6 writes them, checked as nft_socket_validate checks their hooks. Not supported: `socket cgroupv2` (no cgroups).
// Evaluation is in expr/socket.ts.

import type { Expr, HookName, Selector } from '../ir.ts';
import type { Token } from './lexer.ts';
import { span } from './location.ts';
import type { TokenStream } from './stream.ts';

/** After `socket`: the key. */
export function parseSocket(s: TokenStream, first: Token): Extract<Selector, { kind: 'socket' }> {
  const key = s.next();
  switch (key.text) {
    case 'transparent':
    case 'mark':
    case 'wildcard':
      return { kind: 'socket', key: key.text };
    case 'cgroupv2':
      return s.failAt(span(first.loc, key.loc), 'socket cgroupv2 is not supported by packetlab');
    default:
      return s.fail(key);
  }
}

/** nft_socket_validate: prerouting, input and output only. */
export function socketRefusedIn(exprs: readonly Expr[], hook: HookName): boolean {
  if (hook === 'prerouting' || hook === 'input' || hook === 'output') return false;
  for (const expr of exprs) {
    if (expr.kind !== 'cmp' && expr.kind !== 'lookup' && expr.kind !== 'vmap') continue;
    if (expr.left.some((value) => value.selector.kind === 'socket')) return true;
  }
  return false;
}
