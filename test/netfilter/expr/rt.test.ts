// nft_rt on packets (nft_rt_get_eval): `rt ip nexthop` is the route's gateway (or daddr on a link route), `rt mtu`
// the MSS the path allows, and before routing there is no route to read (the rule breaks). Counters as Linux 6.18
// counted them for the same ruleset on the same three namespaces (a ping each way and one to b's second address).

import { describe, expect, it } from 'vitest';
import { exec } from '../../../src/tools/exec.ts';
import { lab, nft, nftCounters } from '../eval/support.ts';

describe('nft rt', () => {
  it('reads the next hop and the path MSS after routing, nothing before', () => {
    const l = lab('rt');
    nft(
      l.r,
      [
        'table ip f {',
        '  chain pre {',
        '    type filter hook prerouting priority 0;',
        '    rt classid 0 counter',
        '  }',
        '  chain filt {',
        '    type filter hook forward priority 0;',
        '    rt ip nexthop 10.0.2.1 counter',
        '    rt ip nexthop 10.0.1.1 counter',
        '    rt mtu 1460 counter',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    exec(l.a, 'ping -c 1 -W 1 10.0.2.1');
    exec(l.a, 'ping -c 1 -W 1 10.0.4.1');
    expect(nftCounters(l.r, 'rt classid "cosmos"')).toEqual(['0:0']);
    expect(nftCounters(l.r, 'nexthop 10.0.2.1')).toEqual(['2:168']);
    expect(nftCounters(l.r, 'nexthop 10.0.1.1')).toEqual(['2:168']);
    expect(nftCounters(l.r, 'rt mtu 1460')).toEqual(['4:336']);
  });
});
