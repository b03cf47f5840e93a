// nft_limit's token bucket and nft_quota's byte count as ladder tests on a manual clock: a burst, then the rate;
// `over` inverted; byte limits charged by length; a quota that counts every packet and matches while within.

import { describe, expect, it } from 'vitest';
import { limitMatches, limitTokensMax, quotaMatches } from '../../../src/netfilter/expr/limit.ts';
import type { LimitExpr, QuotaExpr } from '../../../src/netfilter/ir.ts';

const SEC = 1e9;

function limit(options: Partial<LimitExpr> = {}): LimitExpr {
  return {
    kind: 'limit',
    mode: 'packets',
    rate: 1,
    unit: 1,
    burst: 2,
    invert: false,
    bucket: { tokens: 0, last: -1 },
    ...options,
  };
}

describe('limit: the token bucket on virtual time', () => {
  it('lets a burst through, then one packet per second', () => {
    const l = limit();
    const at = (t: number): boolean => limitMatches(l, t * SEC, 84);
    expect([at(0), at(0.2), at(0.4)]).toEqual([true, true, false]);
    // The refused packet keeps its 0.4 s of credit: at 1.0 s there is exactly a second, at 1.5 s half of one.
    expect(at(1.0)).toBe(true);
    expect(at(1.5)).toBe(false);
    expect(at(2.0)).toBe(true);
  });

  it('with over, matches exactly the packets beyond the rate', () => {
    const l = limit({ invert: true });
    const at = (t: number): boolean => limitMatches(l, t * SEC, 84);
    expect([at(0), at(0.2), at(0.4), at(2.5)]).toEqual([false, false, true, false]);
  });

  it('uses 5 packets when no burst is given (NFT_LIMIT_PKT_BURST_DEFAULT)', () => {
    const l = limit({ rate: 10, burst: 0 });
    expect(limitTokensMax(l)).toBe(5e8);
    const passed = Array.from({ length: 8 }, () => limitMatches(l, 0, 84)).filter(Boolean).length;
    expect(passed).toBe(5);
  });

  it('charges byte limits by length: 1 kbytes/second with a 1 kbytes burst', () => {
    const l = limit({ mode: 'bytes', rate: 1024, burst: 1024 });
    // The bucket holds two seconds of credit; a 1000-byte packet costs 0.977 s, 100 bytes 0.098 s.
    expect([limitMatches(l, 0, 1000), limitMatches(l, 0, 1000), limitMatches(l, 0, 100)]).toEqual([
      true,
      true,
      false,
    ]);
    expect(limitMatches(l, 1 * SEC, 1000)).toBe(true);
    expect(limitMatches(l, 1 * SEC, 100)).toBe(false);
  });
});

describe('quota: bytes counted against the quota', () => {
  it('matches while the count, this packet included, is within; over is the rest', () => {
    const within: QuotaExpr = { kind: 'quota', bytes: 200, invert: false, consumed: { bytes: 0 } };
    const over: QuotaExpr = { kind: 'quota', bytes: 200, invert: true, consumed: { bytes: 0 } };
    expect([84, 84, 84].map((len) => quotaMatches(within, len))).toEqual([true, true, false]);
    expect([84, 116, 1].map((len) => quotaMatches(over, len))).toEqual([false, false, true]);
    expect(within.consumed.bytes).toBe(252);
  });

  it('starts from `used`', () => {
    const quota: QuotaExpr = { kind: 'quota', bytes: 100, invert: false, consumed: { bytes: 90 } };
    expect(quotaMatches(quota, 20)).toBe(false);
  });
});
