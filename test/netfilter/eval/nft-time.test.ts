// `meta hour`, `meta day` and `meta time` on forwarded packets as the virtual clock runs (virtual 0 is
// 2023-11-14 22:13:20 UTC, a Tuesday): a ladder over an evening and midnight, with the drops counted.

import { describe, expect, it } from 'vitest';
import { expected, lab, nft, nftCounters, run, type Step, udpProbe } from './support.ts';

const probe = udpProbe('a', '10.0.2.1');

describe('the wall-clock meta keys on the virtual clock', () => {
  it('drops in the hour window, on the day, before the date, and across midnight', () => {
    const l = lab('nft-time');
    nft(
      l.r,
      `table ip t {
  chain c {
    type filter hook forward priority filter; policy accept;
    meta hour "23:30"-"00:30" counter drop
    meta day "Tuesday" meta hour "22:00"-"23:00" counter drop
    meta time > "2023-11-15 01:00:00" counter drop
  }
}
`,
    );
    const steps: Step[] = [
      [probe, 'dropped'], // Tuesday 22:13: the second rule
      { wait: 50 * 60 }, // 23:03
      [probe, 'passed'],
      { wait: 30 * 60 }, // 23:33: the wrapped window
      [probe, 'dropped'],
      { wait: 30 * 60 }, // Wednesday 00:03
      [probe, 'dropped'],
      { wait: 30 * 60 }, // 00:33: out of the window, Wednesday
      [probe, 'passed'],
      { wait: 30 * 60 }, // 01:03: after the date
      [probe, 'dropped'],
    ];
    expect(run(l, steps)).toEqual(expected(steps));
    expect(nftCounters(l.r, 'meta hour != "00:30"-"23:30"')).toEqual(['2:64']);
    expect(nftCounters(l.r, 'meta day')).toEqual(['1:32']);
    expect(nftCounters(l.r, 'meta time')).toEqual(['1:32']);
  });
});
