import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.ts';

function draws(rng: Rng, count: number): number[] {
  return Array.from({ length: count }, () => rng.u32());
}

describe('rng', () => {
  it('pins the first draws of a known seed (catches a change in seedrandom or in our scaling)', () => {
    // Cross-checked against an independent Python transcription of Baagøe's Alea.
    expect(draws(new Rng('packetlab'), 4)).toEqual([0x81df5fa5, 0xaaad9f15, 0x25862596, 0x21450b86]);
    const numeric = new Rng(42);
    expect([numeric.u32(), numeric.int(1000), numeric.float()]).toEqual([
      2941466319, 722, 0.8455933198264652,
    ]);
    expect(new Rng('packetlab').fork('nat').u32()).toBe(0xf622ab20);
  });

  it('gives the same sequence for the same seed and a different one for another seed', () => {
    expect(draws(new Rng('seed-a'), 100)).toEqual(draws(new Rng('seed-a'), 100));
    expect(draws(new Rng('seed-a'), 100)).not.toEqual(draws(new Rng('seed-b'), 100));
    expect(draws(new Rng(7), 10)).toEqual(draws(new Rng('7'), 10));
  });

  it('u32 stays in range and uses the high bit', () => {
    const rng = new Rng('range');
    const values = draws(rng, 10_000);
    for (const value of values) {
      expect(Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff).toBe(true);
    }
    expect(values.some((value) => value >= 0x8000_0000)).toBe(true);
  });

  it('int stays below its bound and covers every value', () => {
    const rng = new Rng('int');
    for (const bound of [1, 2, 3, 7, 1000, 28_232, 0xffff_ffff, 0x1_0000_0000]) {
      for (let i = 0; i < 200; i++) {
        const value = rng.int(bound);
        expect(Number.isInteger(value) && value >= 0 && value < bound).toBe(true);
      }
    }
    const seen = new Set<number>();
    for (let i = 0; i < 200; i++) seen.add(rng.int(5));
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('int is unbiased for a bound that does not divide 2^32 (chi-square, 3 buckets)', () => {
    // With plain modulo, a bound of 3 * 2^30 favours the low third twice over; rejection must not.
    const rng = new Rng('bias');
    const bound = 3 * 2 ** 30;
    const counts = [0, 0, 0];
    const n = 30_000;
    for (let i = 0; i < n; i++) counts[Math.floor(rng.int(bound) / 2 ** 30)]!++;
    const expected = n / 3;
    const chi2 = counts.reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0);
    expect(chi2).toBeLessThan(13.8); // p = 0.001 for 2 degrees of freedom
  });

  it('intBetween includes both ends', () => {
    const rng = new Rng('between');
    const seen = new Set<number>();
    for (let i = 0; i < 500; i++) seen.add(rng.intBetween(32768, 32771));
    expect([...seen].sort()).toEqual([32768, 32769, 32770, 32771]);
    expect(rng.intBetween(5, 5)).toBe(5);
  });

  it('rejects bad bounds as programmer errors', () => {
    const rng = new Rng('bad');
    expect(() => rng.int(0)).toThrow(RangeError);
    expect(() => rng.int(1.5)).toThrow(RangeError);
    expect(() => rng.int(2 ** 32 + 1)).toThrow(RangeError);
    expect(() => rng.intBetween(3, 2)).toThrow(RangeError);
    expect(() => rng.bytes(-1)).toThrow(RangeError);
    expect(() => new Rng(Number.NaN)).toThrow(RangeError);
  });

  it('float is in [0, 1) with a plausible mean', () => {
    const rng = new Rng('float');
    let sum = 0;
    for (let i = 0; i < 10_000; i++) {
      const value = rng.float();
      expect(value >= 0 && value < 1).toBe(true);
      sum += value;
    }
    expect(Math.abs(sum / 10_000 - 0.5)).toBeLessThan(0.02);
  });

  it('chance(0) never and chance(1) always', () => {
    const rng = new Rng('chance');
    for (let i = 0; i < 100; i++) {
      expect(rng.chance(0)).toBe(false);
      expect(rng.chance(1)).toBe(true);
    }
  });

  it('bytes are the big-endian bytes of successive u32 draws, any length', () => {
    const expected = draws(new Rng('bytes'), 2);
    const bytes = new Rng('bytes').bytes(7);
    expect(bytes.length).toBe(7);
    const view = new DataView(bytes.buffer);
    expect(view.getUint32(0)).toBe(expected[0]);
    expect([bytes[4], bytes[5], bytes[6]]).toEqual([
      expected[1]! >>> 24,
      (expected[1]! >>> 16) & 0xff,
      (expected[1]! >>> 8) & 0xff,
    ]);
    expect(new Rng('bytes').bytes(0).length).toBe(0);
  });

  it('fork gives a child that does not depend on the parent draws or on other forks', () => {
    const quiet = new Rng('root');
    const childOfQuiet = quiet.fork('ports');
    const busy = new Rng('root');
    draws(busy, 50);
    busy.fork('other');
    const childOfBusy = busy.fork('ports');
    expect(draws(childOfBusy, 20)).toEqual(draws(childOfQuiet, 20));
    // and forking does not shift the parent
    const parentAlone = new Rng('root');
    const parentForked = new Rng('root');
    parentForked.fork('x');
    expect(draws(parentForked, 10)).toEqual(draws(parentAlone, 10));
  });

  it('fork streams differ from each other and from the parent', () => {
    const root = new Rng('root');
    const a = draws(root.fork('a'), 20);
    const b = draws(root.fork('b'), 20);
    expect(a).not.toEqual(b);
    expect(a).not.toEqual(draws(new Rng('root'), 20));
    expect(root.fork('c').seed).toBe('root/c');
    expect(root.fork('d').fork('e').seed).toBe('root/d/e');
  });

  it('refuses to fork the same label twice or a label with the path separator', () => {
    const root = new Rng('root');
    root.fork('nat');
    expect(() => root.fork('nat')).toThrow(/already forked/);
    expect(() => root.fork('a/b')).toThrow(/must not contain/);
  });
});
