// Set and element commands as nft 1.0.6 on Linux 6.18 answered them (pinned from the real tool): `get element`
// (the interval a key falls in, ENOENT over the whole command), a constant set holding only what it was declared
// with (ENFILE), `nft -s` listings, and set statement errors from nft_dynset_init.

import { describe, expect, it } from 'vitest';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec } from '../../../src/tools/exec.ts';

function node() {
  const ns = new Simulation({ seed: 'set-commands' }).addNamespace('n');
  expect(exec(ns, 'nft add table ip t').exitCode).toBe(0);
  return ns;
}

const table = (body: string) => `table ip t {\n${body}}\n`;

describe('nft set commands', () => {
  it('get element prints the elements that hold the keys, intervals included', () => {
    const ns = node();
    exec(ns, "nft add set ip t i '{ type ipv4_addr; flags interval; elements = { 10.0.0.0/8, 1.2.3.4 } }'");
    expect(exec(ns, "nft get element ip t i '{ 10.1.2.3 }'").stdout).toBe(
      table('\tset i {\n\t\ttype ipv4_addr\n\t\tflags interval\n\t\telements = { 10.0.0.0/8 }\n\t}\n'),
    );
    expect(exec(ns, "nft get element ip t i '{ 10.0.0.0/16 }'").exitCode).toBe(0);
    expect(exec(ns, "nft get element ip t i '{ 9.9.9.9 }'")).toEqual({
      stdout: '',
      stderr:
        'Error: Could not process rule: No such file or directory\n' +
        'get element ip t i { 9.9.9.9 }\n' +
        '^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n',
      exitCode: 1,
    });
    expect(exec(ns, "nft get element ip t nope '{ 1.1.1.1 }'").stderr).toBe(
      'Error: No such file or directory\nget element ip t nope { 1.1.1.1 }\n                 ^^^^\n',
    );
  });

  it('a constant set takes no more elements than it was declared with; an empty one takes any', () => {
    const ns = node();
    exec(ns, "nft add set ip t m '{ type ipv4_addr; flags constant; elements = { 9.9.9.9, 8.8.8.8 } }'");
    expect(exec(ns, "nft delete element ip t m '{ 9.9.9.9 }'").exitCode).toBe(0);
    expect(exec(ns, "nft add element ip t m '{ 1.1.1.1 }'").exitCode).toBe(0);
    expect(exec(ns, "nft add element ip t m '{ 2.2.2.2 }'").stderr).toBe(
      'Error: Could not process rule: Too many open files in system\n' +
        'add element ip t m { 2.2.2.2 }\n' +
        '                     ^^^^^^^\n',
    );
    expect(exec(ns, 'nft list set ip t m').stdout).toBe(
      table('\tset m {\n\t\ttype ipv4_addr\n\t\tflags constant\n\t\telements = { 1.1.1.1, 8.8.8.8 }\n\t}\n'),
    );
    exec(ns, "nft add set ip t e '{ type ipv4_addr; flags constant; }'");
    expect(exec(ns, "nft add element ip t e '{ 1.1.1.1 }'").exitCode).toBe(0);
  });

  it('nft -s lists counters without their values', () => {
    const ns = node();
    exec(
      ns,
      "nft 'add set ip t s { type ipv4_addr; counter; elements = { 1.2.3.4 counter packets 3 bytes 100 } }'",
    );
    exec(ns, "nft 'add chain ip t c; add rule ip t c counter packets 5 bytes 50 accept'");
    expect(exec(ns, 'nft -s list ruleset').stdout).toBe(
      table(
        '\tset s {\n\t\ttype ipv4_addr\n\t\tcounter\n\t\telements = { 1.2.3.4 counter }\n\t}\n\n' +
          '\tchain c {\n\t\tcounter accept\n\t}\n',
      ),
    );
    expect(exec(ns, 'nft list set ip t s').stdout).toContain(
      'elements = { 1.2.3.4 counter packets 3 bytes 100 }',
    );
  });

  it('set statements: a timeout needs a set with timeouts, a counter a dynamic set (nft_dynset_init)', () => {
    const ns = node();
    exec(ns, "nft 'add set ip t s { type ipv4_addr; }; add set ip t d { type ipv4_addr; flags timeout; }'");
    exec(ns, "nft 'add chain ip t in { type filter hook input priority 0; }'");
    expect(exec(ns, "nft add rule ip t in update @s '{ ip saddr timeout 10s }'").stderr).toBe(
      'Error: Could not process rule: Operation not supported\n' +
        'add rule ip t in update @s { ip saddr timeout 10s }\n' +
        '                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n',
    );
    expect(exec(ns, "nft add rule ip t in update @d '{ ip saddr counter }'").stderr).toBe(
      'Error: Could not process rule: Invalid argument\n' +
        'add rule ip t in update @d { ip saddr counter }\n' +
        '                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n',
    );
    expect(exec(ns, "nft add rule ip t in add @d '{ ip saddr . tcp dport }'").stderr).toBe(
      'Error: datatype mismatch: expected IPv4 address, expression has type concatenation of (IPv4 address, internet network service)\n' +
        'add rule ip t in add @d { ip saddr . tcp dport }\n' +
        '                 ~~~~~~~~~^^^^^^^^^^^^^^^^^^^^~~\n',
    );
    expect(exec(ns, "nft add rule ip t in add @d '{ ip saddr timeout 10s }'").exitCode).toBe(0);
    // Declared by an earlier command, the set is not made dynamic; it gets nft_dynset_init's size.
    expect(exec(ns, 'nft list set ip t d').stdout).toBe(
      table('\tset d {\n\t\ttype ipv4_addr\n\t\tsize 65535\n\t\tflags timeout\n\t}\n'),
    );
  });
});
