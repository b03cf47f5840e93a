// nft's tproxy statement on packets (nft_tproxy_eval_v4): a datagram is handed to the transparent socket on the
// given port and the rule goes on; without such a socket the rule breaks (xt_TPROXY would drop). Listings and errors
// were pinned from nft 1.0.6 (transport match required, prerouting only, `tproxy ip to` in inet tables).

import { describe, expect, it } from 'vitest';
import { exec } from '../../../src/tools/exec.ts';
import { lab, nft, nftCounters, sendUdp } from '../eval/support.ts';

describe('nft tproxy', () => {
  it('hands the datagram to the transparent socket, and breaks the rule without one', () => {
    const l = lab('tproxy');
    const got: number[] = [];
    l.b.udp.bind(0, 5353, (d) => got.push(d.dstPort), undefined, undefined, { transparent: true });
    l.b.udp.bind(0, 5454, () => got.push(-1)); // not transparent: tproxy does not take it
    nft(
      l.b,
      [
        'table ip f {',
        '  chain pre {',
        '    type filter hook prerouting priority -150;',
        '    udp dport 53 tproxy to :5353 counter accept',
        '    udp dport 54 tproxy to :5454 counter accept',
        '    udp dport 54 counter',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    sendUdp(l.a, '10.0.2.1', { dport: 53 });
    sendUdp(l.a, '10.0.2.1', { dport: 54 });
    l.sim.run(1e9);
    expect(got).toEqual([53]);
    expect(nftCounters(l.b, 'tproxy to :5353')).toEqual(['1:32']);
    expect(nftCounters(l.b, 'udp dport 54')).toEqual(['0:0', '1:32']);
    const refused = exec(l.b, "nft add rule ip f pre 'tproxy to :8080'");
    expect(refused.stderr.split('\n')[0]).toBe(
      'Error: Transparent proxy support requires transport protocol match',
    );
  });
});
