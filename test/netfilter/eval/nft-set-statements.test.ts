// The set statement's options on the virtual clock (nft_dynset_eval): `update @s { ip saddr timeout 3s }` gives the
// element its own timeout instead of the set's, `counter` counts every packet that updates it, `delete @s` takes
// the key out from the packet path; a lookup on a set with `counter` counts on the element it finds.

import { describe, expect, it } from 'vitest';
import { exec } from '../../../src/tools/exec.ts';
import { expected, lab, nft, run, type Step, udpProbe } from './support.ts';

const probe = (dport: number) => udpProbe('a', '10.0.2.1', { dport });

const RULESET = `table ip t {
  set seen {
    type ipv4_addr
    flags dynamic,timeout
    timeout 1m
  }
  set hits {
    type ipv4_addr
    counter
    elements = { 10.0.1.1, 10.0.1.2 }
  }
  chain c {
    type filter hook forward priority filter; policy accept;
    udp dport 1 update @seen { ip saddr timeout 3s counter }
    udp dport 2 delete @seen { ip saddr }
    udp dport 53 ip saddr @seen drop
    udp dport 54 ip saddr @hits
  }
}
`;

describe('set statements with options', () => {
  it("update with a timeout: the element lasts the statement's 3 s, not the set's minute", () => {
    const l = lab('dynset-timeout');
    nft(l.r, RULESET);
    // Each probe runs the clock one second.
    const steps: Step[] = [[probe(1), 'passed'], [probe(53), 'dropped'], { wait: 1 }, [probe(53), 'passed']];
    expect(run(l, steps)).toEqual(expected(steps));
  });

  it('delete from the packet path: the next lookup misses', () => {
    const l = lab('dynset-delete');
    nft(l.r, RULESET);
    const steps: Step[] = [
      [probe(1), 'passed'],
      [probe(2), 'passed'],
      [probe(53), 'passed'],
    ];
    expect(run(l, steps)).toEqual(expected(steps));
  });

  it('lists the element with its own timeout, the time left and the packets that updated it', () => {
    const l = lab('dynset-counter');
    nft(l.r, RULESET);
    run(l, [
      [probe(1), 'passed'],
      [probe(1), 'passed'],
      [probe(54), 'passed'],
    ]);
    const listed = exec(l.r, 'nft list ruleset').stdout;
    // The second update, 2 s before the listing, restarted the 3 s timeout: 1 s left.
    expect(listed).toContain('elements = { 10.0.1.1 counter packets 2 bytes 64 timeout 3s expires 1s }');
    // Datagrams of 32 bytes; one lookup found 10.0.1.1 in @hits, 10.0.1.2 was never looked up.
    expect(listed).toContain(
      'elements = { 10.0.1.1 counter packets 1 bytes 32, 10.0.1.2 counter packets 0 bytes 0 }',
    );
    expect(exec(l.r, 'nft -s list set ip t seen').stdout).toContain(
      'elements = { 10.0.1.1 counter timeout 3s expires 1s }',
    );
  });
});
