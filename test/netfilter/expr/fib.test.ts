// nft_fib on packets (nft_fib4_eval): the rpfilter form `fib saddr . iif oif missing` drops a source the router
// would not route back through the packet's in device, `fib daddr oif`/`oifname` read the route's device, and the
// flag and hook checks answer as nft 1.0.6 and Linux 6.18 did (pinned from `nft add rule` in a fresh namespace).

import { describe, expect, it } from 'vitest';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec, execOrThrow as must } from '../../../src/tools/exec.ts';
import { expected, lab, nft, nftCounters, run, type Step, udpProbe } from '../eval/support.ts';

describe('nft fib', () => {
  it('drops what reverse-path filtering refuses and reads the route toward daddr', () => {
    const l = lab('fib');
    // 10.0.3.0/24 sits behind a, but r routes it toward b: a's packets from it fail the strict reverse-path check.
    must(l.r, 'ip route del 10.0.3.0/24 via 10.0.1.1');
    must(l.r, 'ip route add 10.0.3.0/24 via 10.0.2.1');
    nft(
      l.r,
      [
        'table ip f {',
        '  chain pre {',
        '    type filter hook prerouting priority 0;',
        '    fib saddr . iif oif missing counter drop',
        '    fib daddr oifname "to-b" counter',
        '    fib daddr oif "to-a" counter',
        '    fib daddr . iif type local counter',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    const steps: Step[] = [
      [udpProbe('a', '10.0.2.1'), 'passed'],
      [udpProbe('a', '10.0.2.1', { src: '10.0.3.1' }), 'dropped'],
      [udpProbe('b', '10.0.1.1'), 'passed'],
    ];
    expect(run(l, steps)).toEqual(expected(steps));
    expect(nftCounters(l.r, 'oif missing')).toEqual(['1:32']);
    expect(nftCounters(l.r, 'oifname "to-b"')).toEqual(['1:32']);
    expect(nftCounters(l.r, 'oif "to-a"')).toEqual(['1:32']);
    expect(nftCounters(l.r, 'type local')).toEqual(['0:0']);
  });

  it('refuses the flag combinations and hooks nft and the kernel refuse', () => {
    const ns = new Simulation({ seed: 'fib' }).addNamespace('n');
    must(ns, 'nft add table ip t');
    must(ns, "nft 'add chain ip t c { type filter hook prerouting priority 0; }'");
    must(ns, "nft 'add chain ip t o { type filter hook output priority 0; }'");
    const cases: [string, string, string][] = [
      ['c', 'fib saddr . daddr oif missing', 'fib: saddr and daddr are mutually exclusive'],
      ['c', 'fib iif oif missing', 'fib: need either saddr or daddr'],
      ['c', 'fib daddr . iif . oif type local', 'fib: iif and oif are mutually exclusive'],
      ['c', 'fib daddr . oif type local', 'Could not process rule: Operation not supported'],
      ['o', 'fib daddr . iif type local', 'Could not process rule: Operation not supported'],
      ['o', 'fib saddr oif missing', 'Could not process rule: Operation not supported'],
    ];
    for (const [chain, rule, message] of cases) {
      const result = exec(ns, `nft add rule ip t ${chain} '${rule}'`);
      expect(result.exitCode, rule).toBe(1);
      expect(result.stderr.split('\n')[0], rule).toBe(`Error: ${message}`);
    }
    const carets = exec(ns, "nft add rule ip t c 'fib saddr . daddr oif missing'").stderr.split('\n')[2];
    expect(carets).toBe(`${' '.repeat(20)}${'^'.repeat(13)}`);
    must(ns, "nft add rule ip t c 'fib saddr oif exists'");
    must(ns, "nft add rule ip t c 'fib saddr . iif oif ne 0'");
    expect(exec(ns, 'nft list chain ip t c').stdout).toContain(
      '\t\tfib saddr oif exists\n\t\tfib saddr . iif oif != 0\n',
    );
  });
});
