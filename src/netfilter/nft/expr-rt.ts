// The `rt` expression (nft_rt): `rt ip nexthop`, `rt mtu` (the TCP MSS the route allows) and `rt classid`, parsed
// as nft 1.0.6 writes them, checked as nft_rt_validate checks their hooks. Not supported: `rt ip6 nexthop`
// (no IPv6 routing here) and `rt ipsec` (no xfrm).

import type { Expr, Family, HookName, Selector } from '../ir.ts';
import type { Token } from './lexer.ts';
import { span } from './location.ts';
import type { TokenStream } from './stream.ts';

/** After `rt`: the key, and `ip` before `nexthop` (required in inet tables, where the version is unknown). */
export function parseRt(s: TokenStream, first: Token, family: Family): Extract<Selector, { kind: 'rt' }> {
  const key = s.next();
  switch (key.text) {
    case 'ip': {
      const nexthop = s.next();
      if (nexthop.text !== 'nexthop') s.fail(nexthop);
      return { kind: 'rt', key: 'nexthop' };
    }
    case 'nexthop':
      if (family === 'inet')
        s.failAt(
          span(first.loc, key.loc),
          'cannot determine ip protocol version, use "ip nexthop" or "ip6 nexthop" instead',
        );
      return { kind: 'rt', key: 'nexthop' };
    case 'mtu':
    case 'classid':
      return { kind: 'rt', key: key.text };
    case 'ip6':
    case 'ipsec':
      return s.failAt(span(first.loc, key.loc), `rt ${key.text} is not supported by packetlab`);
    default:
      return s.fail(key);
  }
}

/** nft_rt_validate: `rt mtu` (NFT_RT_TCPMSS) needs a route, so only forward, output and postrouting. */
export function rtRefusedIn(exprs: readonly Expr[], hook: HookName): boolean {
  if (hook === 'forward' || hook === 'output' || hook === 'postrouting') return false;
  for (const expr of exprs) {
    if (expr.kind !== 'cmp' && expr.kind !== 'lookup' && expr.kind !== 'vmap') continue;
    if (expr.left.some((value) => value.selector.kind === 'rt' && value.selector.key === 'mtu')) return true;
  }
  return false;
}
