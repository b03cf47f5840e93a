// ct keys on forwarded packets: `ct helper` finds no helper on any connection (packetlab models none), so both its
// comparisons break the rule as nft_ct_get_eval does; `ct count` counts the connections the rule saw that conntrack
// still holds (nft_connlimit), here three UDP flows from three source ports.

import { describe, expect, it } from 'vitest';
import { expected, lab, nft, nftCounters, run, type Step, udpProbe } from './support.ts';

describe('ct helper and ct count on packets', () => {
  it('never matches ct helper, and counts connections for ct count', () => {
    const l = lab('nft-ct-keys');
    nft(
      l.r,
      `table ip t {
  chain c {
    type filter hook forward priority filter; policy accept;
    ct helper "ftp" counter drop
    ct helper != "ftp" counter drop
    udp dport 53 ct count over 2 counter drop
    udp dport 53 ct count 2 counter
  }
}
`,
    );
    const steps: Step[] = [
      [udpProbe('a', '10.0.2.1', { sport: 4001 }), 'passed'],
      [udpProbe('a', '10.0.2.1', { sport: 4002 }), 'passed'],
      [udpProbe('a', '10.0.2.1', { sport: 4001 }), 'passed'],
      // The third connection is over two.
      [udpProbe('a', '10.0.2.1', { sport: 4003 }), 'dropped'],
    ];
    expect(run(l, steps)).toEqual(expected(steps));
    expect(nftCounters(l.r, 'ct helper')).toEqual(['0:0', '0:0']);
    expect(nftCounters(l.r, 'ct count over 2')).toEqual(['1:32']);
    expect(nftCounters(l.r, 'ct count 2')).toEqual(['3:96']);
  });
});
