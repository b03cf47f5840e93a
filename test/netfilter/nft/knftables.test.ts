// What kube-proxy's nftables transactions (knftables) use and the other fixtures did not, against what nft 1.0.6
// printed on Linux 6.18: chain comments, anonymous sets of one element, the handles anonymous sets take, the
// table line of `nft -a` listings of one chain, set or map, and deleting chains that still have rules.

import { describe, expect, it } from 'vitest';
import { runNft } from '../../../src/netfilter/nft/index.ts';
import { RulesetStore } from '../../../src/netfilter/ruleset.ts';

function load(text: string) {
  const netfilter = { store: new RulesetStore() };
  const result = runNft(netfilter, text, { file: 'test.nft' });
  expect(result.stderr).toBe('');
  expect(result.exitCode).toBe(0);
  /** A listing command; a leading `-a ` asks for handles, as on nft's command line. */
  return (command: string): string =>
    runNft(netfilter, command.replace(/^-a /, ''), { handles: command.startsWith('-a ') }).stdout;
}

describe('chain comments', () => {
  it('print first in the chain, before a base chain type, and the first comment stays', () => {
    const list = load(`add table ip t
add chain ip t c { comment "first" ; }
add chain ip t d
add chain ip t b { type filter hook input priority 0; comment "base one"; }
add chain ip t c { comment "second" ; }
add chain ip t d { comment "late" ; }
`);
    expect(list('list ruleset')).toBe(
      'table ip t {\n' +
        '\tchain c {\n\t\tcomment "first"\n\t}\n\n' +
        '\tchain d {\n\t}\n\n' +
        '\tchain b {\n\t\tcomment "base one"\n\t\ttype filter hook input priority filter; policy accept;\n\t}\n' +
        '}\n',
    );
    expect(list('list chains')).toBe(
      'table ip t {\n' +
        '\tchain c {\n\t\tcomment "first"\n\t}\n' +
        '\tchain d {\n\t}\n' +
        '\tchain b {\n\t\tcomment "base one"\n\t\ttype filter hook input priority filter; policy accept;\n\t}\n' +
        '}\n',
    );
  });

  it('read in a table block too, and print back as they were written', () => {
    const text = `table ip kube-proxy {
\tchain reject-chain {
\t\tcomment "helper for @no-endpoint-services / @no-endpoint-nodeports"
\t\treject
\t}
}
`;
    expect(load(text)('list ruleset')).toBe(text);
  });
});

describe('an anonymous set of one element is the element (evaluate.c: expr_evaluate_set)', () => {
  it('lists as a plain match, a flag test for a bitmask, and stays a set for concatenations and maps', () => {
    const list = load(`table ip t {
  chain c {
    ip daddr { 1.2.3.4 } accept
    ip daddr != { 1.2.3.4 } accept
    tcp dport { 80 } accept
    ip daddr { 1.2.3.4-1.2.3.9 } accept
    ip daddr != { 10.0.0.0/8 } accept
    meta mark { 0x1 } accept
    ct state { established } accept
    ip daddr . tcp dport { 1.2.3.4 . 80 } accept
    ip saddr { 10.0.0.0/8 } ip daddr { 10.96.0.0/16 } drop
    tcp flags { syn } accept
    numgen random mod 1 vmap { 0 : accept }
  }
}
`);
    expect(list('list chain ip t c')).toBe(
      'table ip t {\n\tchain c {\n' +
        [
          'ip daddr 1.2.3.4 accept',
          'ip daddr != 1.2.3.4 accept',
          'tcp dport 80 accept',
          'ip daddr 1.2.3.4-1.2.3.9 accept',
          'ip daddr != 10.0.0.0/8 accept',
          'meta mark 0x00000001 accept',
          'ct state established accept',
          'ip daddr . tcp dport { 1.2.3.4 . 80 } accept',
          'ip saddr 10.0.0.0/8 ip daddr 10.96.0.0/16 drop',
          'tcp flags syn accept',
          'numgen random mod 1 vmap { 0 : accept }',
        ]
          .map((line) => `\t\t${line}\n`)
          .join('') +
        '\t}\n}\n',
    );
  });
});

describe('handles', () => {
  it('an anonymous set or map takes a handle before its rule; a single element makes no set', () => {
    const list = load(`table ip t {
  chain x {
  }
  chain c {
    ip daddr { 10.96.0.0/16 } drop
    numgen random mod 1 vmap { 0 : goto x }
    ip saddr { 1.1.1.1, 2.2.2.2 } tcp dport { 22, 23 } accept
    accept
  }
}
`);
    // Chains x (1) and c (2); rule 3; the vmap 4, its rule 5; two sets 6 and 7, their rule 8; then 9.
    expect(
      list('-a list chain ip t c')
        .split('\n')
        .map((line) => /# handle (\d+)$/.exec(line)?.[1])
        .filter((handle) => handle !== undefined),
    ).toEqual(['2', '3', '5', '8', '9']);
  });

  it('-a prints the table handle only when it lists whole tables', () => {
    const list = load(`table ip t {
  set s { type ipv4_addr; }
  map m { type inet_proto . inet_service : verdict; }
  chain c { accept; }
}
`);
    expect(list('-a list ruleset').split('\n')[0]).toBe('table ip t { # handle 1');
    expect(list('-a list table ip t').split('\n')[0]).toBe('table ip t { # handle 1');
    for (const command of [
      '-a list chain ip t c',
      '-a list set ip t s',
      '-a list map ip t m',
      '-a list chains',
      '-a list sets',
      '-a list maps',
    ])
      expect(list(command).split('\n')[0], command).toBe('table ip t {');
  });
});

describe('delete chain (nf_tables_delchain)', () => {
  it('takes the rules of the chain with it, and goes only when nothing jumps to it, not even its own rules', () => {
    const netfilter = { store: new RulesetStore() };
    const nft = (text: string) => runNft(netfilter, text, { file: 'test.nft' });
    expect(
      nft(`add table ip t
add chain ip t c { type filter hook input priority 0 ; }
add rule ip t c accept
add chain ip t x
add rule ip t x accept
add chain ip t y
add rule ip t y jump x
add chain ip t z
add rule ip t z jump z
`).exitCode,
    ).toBe(0);
    expect(nft('delete chain ip t c').exitCode).toBe(0);
    for (const name of ['x', 'z'])
      expect(nft(`delete chain ip t ${name}\n`).stderr).toBe(
        `test.nft:1:19-19: Error: Could not process rule: Device or resource busy\ndelete chain ip t ${name}\n                  ^\n`,
      );
    expect(nft('delete chain ip t y').exitCode).toBe(0);
    expect(nft('delete chain ip t x').exitCode).toBe(0);
    expect(runNft(netfilter, 'list ruleset').stdout).toBe('table ip t {\n\tchain z {\n\t\tjump z\n\t}\n}\n');
  });

  it('a base chain with rules deleted and added again in one transaction goes to the end (kube-proxy restarting)', () => {
    const list = load(`add table ip t
add chain ip t b { type filter hook input priority 0 ; }
add rule ip t b accept
add chain ip t r
add chain ip t b
delete chain ip t b
add chain ip t b { type filter hook input priority 0 ; }
`);
    expect(list('list ruleset')).toBe(
      'table ip t {\n\tchain r {\n\t}\n\n\tchain b {\n\t\ttype filter hook input priority filter; policy accept;\n\t}\n}\n',
    );
  });
});
