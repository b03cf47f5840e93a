// Interface indexes in nft rules: names resolve to the ifindex when the rule is added (an unknown name is refused),
// indexes list as the device's current name, and packets match by index. Listings and errors as nft 1.0.6 printed
// them on this machine (`nft add rule` then `nft list ruleset` in a fresh namespace).

import { describe, expect, it } from 'vitest';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec, execOrThrow as must } from '../../../src/tools/exec.ts';
import { expected, lab, nft, nftCounters, run, type Step, udpProbe } from '../eval/support.ts';

describe('nft iif/oif/sdif by index', () => {
  it('lists names, numbers without a device, and refuses an unknown name as nft 1.0.6 does', () => {
    const ns = new Simulation({ seed: 'ifindex' }).addNamespace('n');
    must(ns, 'nft add table ip t');
    must(ns, 'nft add chain ip t c');
    for (const rule of [
      'iif "lo"',
      'iif lo',
      'iif 1',
      'iif { "lo" }',
      'meta iif lo',
      'oif 1',
      'meta sdif lo',
      'iif 7',
      'iif != lo',
      'iif { 1, lo }',
      'meta oif "lo" accept',
      'iif 0',
    ])
      expect(exec(ns, `nft add rule ip t c '${rule}'`).exitCode).toBe(0);
    const refused = exec(ns, `nft add rule ip t c 'iif "nosuchif"'`);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toBe(
      'Error: Interface does not exist\nadd rule ip t c iif "nosuchif"\n                    ^^^^^^^^^^\n',
    );
    expect(exec(ns, 'nft list chain ip t c').stdout).toBe(
      [
        'table ip t {',
        '\tchain c {',
        '\t\tiif "lo"',
        '\t\tiif "lo"',
        '\t\tiif "lo"',
        '\t\tiif "lo"',
        '\t\tiif "lo"',
        '\t\toif "lo"',
        '\t\tmeta sdif "lo"',
        '\t\tiif 7',
        '\t\tiif != "lo"',
        '\t\tiif { "lo" }',
        '\t\toif "lo" accept',
        '\t\tiif 0',
        '\t}',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('keeps the index of a deleted device: a re-created one of the same name is another device', () => {
    const ns = new Simulation({ seed: 'ifindex' }).addNamespace('n');
    must(ns, 'ip link add d0 type veth peer name p0');
    must(ns, 'ip link add d1 type veth peer name p1');
    must(ns, 'nft add table ip t');
    must(ns, 'nft add chain ip t c');
    must(ns, 'nft add rule ip t c iif d0 counter');
    must(ns, 'nft add rule ip t c oif { d1, lo } counter');
    must(ns, 'ip link del d0');
    must(ns, 'ip link add d0 type veth peer name p0');
    // nft 1.0.6 on Linux 6.18, the same commands (d1 renamed to e1 there; packetlab has no `ip link set name`).
    expect(exec(ns, 'nft list chain ip t c').stdout).toContain(
      '\t\tiif 3 counter packets 0 bytes 0\n\t\toif { "lo", "d1" } counter packets 0 bytes 0\n',
    );
  });

  it('matches packets by index, in sets too', () => {
    const l = lab('ifindex');
    nft(
      l.r,
      [
        'table ip f {',
        '  chain filt {',
        '    type filter hook forward priority 0;',
        '    iif "to-a" oif { "to-b" } udp dport 53 counter',
        '    iif "to-b" counter',
        '    oif "to-a" udp dport 54 drop',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    const steps: Step[] = [
      [udpProbe('a', '10.0.2.1'), 'passed'],
      [udpProbe('b', '10.0.1.1', { dport: 54 }), 'dropped'],
    ];
    expect(run(l, steps)).toEqual(expected(steps));
    expect(nftCounters(l.r, 'udp dport 53 counter')).toEqual(['1:32']);
    expect(nftCounters(l.r, 'iif "to-b" counter')).toEqual(['1:32']);
  });
});
