// Which packets an nth counter picks, on the kernel and on packetlab: nine pings through `-m statistic --mode nth`
// (xt_statistic, whose count libxt_statistic starts at every - packet) and through nft's `numgen inc mod 3`
// (nft_ng_inc, whose counter starts at modulus - 1); ping's lines say which echo requests were dropped. Also the
// policy counters of iptables-nft's built-in chains, which exist only when -P, -Z or iptables-restore made them.

import { describe, expect, it } from 'vitest';
import { differential, outputOf } from './harness.ts';
import { twoHosts } from './topologies.ts';

const NTH_RULES = `*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p icmp -m statistic --mode nth --every 3 --packet 0 -j DROP
-A OUTPUT -p icmp -m statistic --mode nth --every 2 --packet 1 -j DROP
COMMIT
`;

const NUMGEN_RULESET = `table ip harness {
  chain input {
    type filter hook input priority filter; policy accept;
    icmp type echo-request numgen inc mod 3 0 counter drop
  }
}
`;

/** The icmp_seq values ping printed a reply for. */
function answered(output: string): number[] {
  return [...output.matchAll(/icmp_seq=(\d+) /g)].map((match) => Number(match[1]));
}

describe('differential: nth counters', () => {
  it('-m statistic --mode nth --every N --packet P drops the packet of index P of each group of N', async (ctx) => {
    const scenario = twoHosts('statistic-nth')
      .iptablesRestore('b', NTH_RULES)
      .ping('a', '10.0.0.2', { count: 9, interval: 0.2, wait: 1 })
      .observe('b', 'iptables-save', '-c', '-t', 'filter')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    // INPUT drops requests 1, 4, 7; of the six answers (to 2 3 5 6 8 9), OUTPUT drops the 2nd, 4th and 6th.
    expect(answered(outputOf(result.linux, 'a: ping'))).toEqual([2, 5, 8]);
  });

  it('iptables -A makes the built-in chains without counters; -P gives a chain its policy counters', async (ctx) => {
    const scenario = twoHosts('statistic-append')
      .run(
        'b',
        'iptables',
        '-A',
        'INPUT',
        '-p',
        'icmp',
        '-m',
        'statistic',
        '--mode',
        'nth',
        '--every',
        '3',
        '--packet',
        '0',
        '-j',
        'DROP',
      )
      .run('b', 'iptables', '-P', 'OUTPUT', 'ACCEPT')
      .ping('a', '10.0.0.2', { count: 3, interval: 0.2, wait: 1 })
      .observe('b', 'iptables-save', '-c', '-t', 'filter')
      .observe('b', 'iptables', '-L', '-v', '-n', '-x')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    const saved = outputOf(result.linux, 'b: iptables-save');
    // nft_chain_builtin_add sends no counters; nft_chain_set (-P) does.
    expect(saved).toContain(':INPUT ACCEPT [0:0]');
    expect(saved).toContain(':OUTPUT ACCEPT [2:168]');
  });

  it('numgen inc mod 3 0 drops the 1st, 4th and 7th packets', async (ctx) => {
    const scenario = twoHosts('numgen-inc')
      .nft('b', NUMGEN_RULESET)
      .ping('a', '10.0.0.2', { count: 9, interval: 0.2, wait: 1 })
      .observe('b', 'nft', 'list', 'ruleset')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(answered(outputOf(result.linux, 'a: ping'))).toEqual([2, 3, 5, 6, 8, 9]);
  });
});
