// The numgen and hash expressions of nft 1.0.6 (parser_bison.y: numgen_expr, hash_expr): `numgen inc|random mod N
// [offset O]`, `jhash EXPR mod N [seed S] [offset O]`, `symhash mod N [offset O]`, with the kernel's init checks
// (nft_ng_inc_init, nft_jhash_init: a zero or too large modulus, an offset that overflows 32 bits).

import type { Selector, Value } from '../ir.ts';
import { errorAt, type Location, span } from './location.ts';
import type { TokenStream } from './stream.ts';

const U32_MAX = 0xffff_ffff;

/** The kernel's refusal of a modulus and offset (ERANGE, EOVERFLOW), as nft reports it on the expression. */
function rangeError(s: TokenStream, loc: Location, mod: number, offset: number): void {
  if (mod === 0 || mod > U32_MAX)
    s.report(errorAt(loc, 'Could not process rule: Numerical result out of range'));
  else if (offset + mod - 1 > U32_MAX)
    s.report(errorAt(loc, 'Could not process rule: Value too large for defined data type'));
}

/** `numgen ...`, the `numgen` word consumed as `first`. */
export function parseNumgen(s: TokenStream, first: Location): Selector {
  const mode = s.next();
  if (mode.text !== 'random' && mode.text !== 'inc') s.fail(mode, 'random or inc');
  s.expectWord('mod');
  const mod = s.number().value;
  let offset = 0;
  if (s.acceptWord('offset') !== undefined) offset = s.number().value;
  rangeError(s, span(first, s.previous().loc), mod, offset);
  return { kind: 'numgen', mode: mode.text, mod: mod >>> 0, offset: offset >>> 0 };
}

/**
 * `jhash ...` or `symhash ...`, the word consumed as `first`; `input` reads one part of what jhash hashes and
 * `bytes` gives its register size.
 */
export function parseHash(
  s: TokenStream,
  first: { text: string; loc: Location },
  input: () => Value,
  bytes: (value: Value) => number,
): Selector {
  const inputs: Value[] = [];
  if (first.text === 'jhash') {
    do inputs.push(input());
    while (s.acceptPunct('.') !== undefined);
  }
  s.expectWord('mod');
  const mod = s.number().value;
  let seed: number | undefined;
  if (first.text === 'jhash' && s.acceptWord('seed') !== undefined) seed = s.number().value >>> 0;
  let offset = 0;
  if (s.acceptWord('offset') !== undefined) offset = s.number().value;
  rangeError(s, span(first.loc, s.previous().loc), mod, offset);
  return {
    kind: 'hash',
    mode: first.text === 'jhash' ? 'jhash' : 'symhash',
    inputs,
    sizes: inputs.map(bytes),
    mod: mod >>> 0,
    seed,
    offset: offset >>> 0,
  };
}

/** The highest value a numgen or hash yields (evaluate.c checks constants against it). */
export function generatorMax(selector: Selector): number | undefined {
  if (selector.kind !== 'numgen' && selector.kind !== 'hash') return undefined;
  // A zero modulus (also 2^32, truncated) makes the kernel refuse the rule instead.
  return selector.mod === 0 ? undefined : selector.offset + selector.mod - 1;
}
