// `nft -e` as nft 1.0.6 echoed each command on Linux 6.18 (pids aside): what the commit added, as `nft monitor`
// prints it, with `# handle N` under `-a`; a failed command echoes nothing, listings echo nothing.

import { describe, expect, it } from 'vitest';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec } from '../../../src/tools/exec.ts';

describe('nft -e', () => {
  it('echoes the objects each command added', () => {
    const ns = new Simulation({ seed: 'nft-echo' }).addNamespace('n');
    const echo = (command: string) =>
      exec(ns, `nft -e ${command}`).stdout.replace(/process \d+/, 'process P');
    expect(echo('add table ip t')).toBe('add table ip t\n# new generation 2 by process P (nft)\n');
    expect(echo('add rule ip t c accept')).toBe('');
    expect(echo('add chain ip t c')).toBe('add chain ip t c\n# new generation 3 by process P (nft)\n');
    expect(echo("add set ip t s '{ type ipv4_addr; }'")).toBe(
      'add set ip t s { type ipv4_addr; } \n# new generation 4 by process P (nft)\n',
    );
    expect(echo("add element ip t s '{ 1.1.1.1 }'")).toBe(
      'add element ip t s { 1.1.1.1 }\n# new generation 5 by process P (nft)\n',
    );
    expect(echo('-a add rule ip t c counter')).toBe(
      'add rule ip t c counter packets 0 bytes 0 # handle 3\n# new generation 6 by process P (nft)\n',
    );
    expect(echo("'add rule ip t c tcp dport { 1, 2 } accept'")).toBe(
      'add rule ip t c tcp dport { 1, 2 } accept\n# new generation 7 by process P (nft)\n',
    );
    expect(echo('list tables')).toBe('table ip t\n');
  });
});
