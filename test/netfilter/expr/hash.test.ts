// The hash expressions: jhash is lookup3's hashlittle (Bob Jenkins' published test values), scaled onto the
// modulus as reciprocal_scale does; symhash gives both directions of a flow the same value.

import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.ts';
import { jhash, reciprocalScale, symhashValue } from '../../../src/netfilter/expr/hash.ts';
import type { HashSelector } from '../../../src/netfilter/ir.ts';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('jhash', () => {
  it('is lookup3 hashlittle (the test values of lookup3.c: driver5)', () => {
    expect(jhash(bytes(''), 0, 0)).toBe(0xdeadbeef);
    expect(jhash(bytes(''), 0, 0xdeadbeef)).toBe(0xbd5b7dde);
    const score = bytes('Four score and seven years ago');
    expect(jhash(score, score.length, 0)).toBe(0x17770551);
    expect(jhash(score, score.length, 1)).toBe(0xcd628161);
  });

  it('scales a hash onto [0, modulus) by its high bits', () => {
    expect(reciprocalScale(0, 16)).toBe(0);
    expect(reciprocalScale(0xffff_ffff, 16)).toBe(15);
    expect(reciprocalScale(0x8000_0000, 3)).toBe(1);
  });
});

describe('symhash', () => {
  it('hashes both directions of a flow alike, within the modulus plus the offset', () => {
    const selector: HashSelector = {
      kind: 'hash',
      mode: 'symhash',
      inputs: [],
      sizes: [],
      mod: 4,
      seed: undefined,
      offset: 100,
    };
    const rng = new Rng('symhash');
    const forward = symhashValue(selector, rng, 0x0a000001, 0x0a000002, 40000, 80);
    const reverse = symhashValue(selector, rng, 0x0a000002, 0x0a000001, 80, 40000);
    expect(forward).toBe(reverse);
    expect(forward).toBeGreaterThanOrEqual(100);
    expect(forward).toBeLessThan(104);
  });
});
