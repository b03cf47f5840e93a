// Sets updated from the packet path (nft_dynset: `update @set { ip saddr }`, `add @set { ... }`) on the virtual
// clock: the element a packet adds is found by the next lookups until the set's timeout runs out, `update`
// restarting it and `add` not; the listing prints the time left (kube-proxy's ClientIP affinity sets).

import { describe, expect, it } from 'vitest';
import { exec } from '../../../src/tools/exec.ts';
import { expected, lab, nft, run, type Step, udpProbe } from './support.ts';

const probe = (dport: number) => udpProbe('a', '10.0.2.1', { dport });

function ruleset(op: 'update' | 'add'): string {
  return `table ip t {
  set seen {
    type ipv4_addr
    flags dynamic,timeout
    timeout 10s
  }
  chain c {
    type filter hook forward priority filter; policy accept;
    udp dport 1 ${op} @seen { ip saddr }
    udp dport 53 ip saddr @seen drop
  }
}
`;
}

describe('nft_dynset on the virtual clock', () => {
  it('update @set: the key is found until the timeout runs out, each update restarting it', () => {
    const l = lab('dynset-update');
    nft(l.r, ruleset('update'));
    // Each probe runs the clock one second.
    const steps: Step[] = [
      [probe(53), 'passed'],
      [probe(1), 'passed'],
      [probe(53), 'dropped'],
      { wait: 5 },
      // 7 s after the update: refresh it, then 9 s later it still holds.
      [probe(1), 'passed'],
      { wait: 8 },
      [probe(53), 'dropped'],
      { wait: 1 },
      [probe(53), 'passed'],
    ];
    expect(run(l, steps)).toEqual(expected(steps));
  });

  it('add @set: a present key keeps its first expiry', () => {
    const l = lab('dynset-add');
    nft(l.r, ruleset('add'));
    const steps: Step[] = [
      [probe(1), 'passed'],
      { wait: 5 },
      [probe(1), 'passed'],
      { wait: 2 },
      // 9 s after the first add.
      [probe(53), 'dropped'],
      [probe(53), 'passed'],
    ];
    expect(run(l, steps)).toEqual(expected(steps));
  });

  it('lists the set with size 65535 (nft_dynset_init) and the time the element has left', () => {
    const l = lab('dynset-list');
    nft(l.r, ruleset('update'));
    run(l, [[probe(1), 'passed']]);
    l.sim.run(2.5e9);
    expect(exec(l.r, 'nft list set ip t seen').stdout).toBe(
      'table ip t {\n' +
        '\tset seen {\n' +
        '\t\ttype ipv4_addr\n' +
        '\t\tsize 65535\n' +
        '\t\tflags dynamic,timeout\n' +
        '\t\ttimeout 10s\n' +
        // Added as the probe crossed r, 3.5 s before the listing: 10 s less 3.5 s left.
        '\t\telements = { 10.0.1.1 expires 6s500ms }\n' +
        '\t}\n' +
        '}\n',
    );
  });
});
