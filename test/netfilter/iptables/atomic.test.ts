// Bad input changes nothing: a failing iptables command or iptables-restore table leaves the ruleset as it was,
// and random command lines and restore files never throw.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec } from '../../../src/tools/exec.ts';
import { iptablesRestore } from '../../../src/tools/iptables.ts';

function namespace() {
  return new Simulation({ seed: 'iptables-atomic' }).addNamespace('node');
}

const BASE = `*filter
:INPUT DROP [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:KUBE-FORWARD - [0:0]
-A FORWARD -j KUBE-FORWARD
-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP
COMMIT
*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A POSTROUTING -j MASQUERADE
COMMIT
`;

function loaded() {
  const ns = namespace();
  expect(iptablesRestore(ns, [], BASE).exitCode).toBe(0);
  return ns;
}

describe('failures change nothing', () => {
  const bad: [string, number][] = [
    ['*filter\n-F\n-A INPUT -j ACCEPT\n-A INPUT --bogus\nCOMMIT\n', 2],
    ['*filter\n-F\n-A INPUT -j NOPE\nCOMMIT\n', 2],
    ['*filter\n-F\n-A NOPE -j ACCEPT\nCOMMIT\n', 1],
    ['*nat\n-A POSTROUTING -j REDIRECT\nCOMMIT\n', 4],
    ['*nat\n-A INPUT -j DNAT --to-destination 1.2.3.4\nCOMMIT\n', 4],
    ['*filter\n-A INPUT -j ACCEPT\n', 1],
    ['*filter\n-X KUBE-FORWARD\nCOMMIT\n', 4],
  ];
  for (const [input, exitCode] of bad) {
    it(`iptables-restore --noflush ${JSON.stringify(input)}`, () => {
      const ns = loaded();
      const before = exec(ns, 'iptables-save').stdout;
      const result = iptablesRestore(ns, ['--noflush'], input);
      expect(result.exitCode).toBe(exitCode);
      expect(exec(ns, 'iptables-save').stdout).toBe(before);
    });
  }

  it('a failing table keeps the tables committed before it', () => {
    const ns = namespace();
    const result = iptablesRestore(
      ns,
      [],
      '*filter\n-A INPUT -j ACCEPT\nCOMMIT\n*nat\n-A POSTROUTING -j REDIRECT\nCOMMIT\n',
    );
    expect(result.exitCode).toBe(4);
    expect(exec(ns, 'iptables -S INPUT').stdout).toBe('-P INPUT ACCEPT\n-A INPUT -j ACCEPT\n');
    expect(exec(ns, 'iptables -t nat -S POSTROUTING').stdout).toBe('-P POSTROUTING ACCEPT\n');
  });

  for (const line of [
    'iptables -X KUBE-FORWARD',
    'iptables -t nat -A INPUT -j MASQUERADE',
    'iptables -A INPUT -j NOPE',
    'iptables -D INPUT -j ACCEPT',
    'iptables -P INPUT BOGUS',
    'iptables -E KUBE-FORWARD INPUT',
  ]) {
    it(line, () => {
      const ns = loaded();
      const before = exec(ns, 'iptables-save').stdout;
      expect(exec(ns, line).exitCode).not.toBe(0);
      expect(exec(ns, 'iptables-save').stdout).toBe(before);
    });
  }
});

const WORDS = [
  '-A',
  '-I',
  '-D',
  '-R',
  '-N',
  '-X',
  '-F',
  '-Z',
  '-P',
  '-L',
  '-S',
  '-E',
  '-C',
  '-t',
  'nat',
  'raw',
  'mangle',
  'filter',
  'INPUT',
  'OUTPUT',
  'PREROUTING',
  'POSTROUTING',
  'KUBE-FORWARD',
  'X',
  '1',
  '2',
  '0',
  '!',
  '-s',
  '-d',
  '10.0.0.0/8',
  '1.2.3.4',
  '-p',
  'tcp',
  'udp',
  'icmp',
  '--dport',
  '--sport',
  '80',
  '1:2',
  '-m',
  'comment',
  '--comment',
  'mark',
  '--mark',
  '0x4000/0x4000',
  'conntrack',
  '--ctstate',
  'NEW,DNAT',
  'multiport',
  '--dports',
  'statistic',
  '--mode',
  'random',
  '--probability',
  '0.5',
  'recent',
  '--set',
  '--name',
  'addrtype',
  '--dst-type',
  'LOCAL',
  '-j',
  'ACCEPT',
  'DROP',
  'RETURN',
  'MARK',
  '--or-mark',
  '--set-xmark',
  'CONNMARK',
  '--save-mark',
  'DNAT',
  '--to-destination',
  '10.0.0.1:80',
  'SNAT',
  '--to-source',
  'MASQUERADE',
  '--random-fully',
  'REDIRECT',
  '--to-ports',
  'LOG',
  '--log-prefix',
  'REJECT',
  '--reject-with',
  'tcp-reset',
  'TRACE',
  'NOTRACK',
  'CT',
  '--notrack',
  '-n',
  '-v',
  '-x',
  '--line-numbers',
  '-i',
  '-o',
  'eth+',
  '-g',
  '-c',
  '--icmp-type',
  'any',
  '--tcp-flags',
  'SYN,ACK',
  'SYN',
  '--syn',
];

describe('random input never throws', () => {
  it('iptables command lines', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 8 })), { maxLength: 14 }),
        (words) => {
          const ns = loaded();
          const result = exec(
            ns,
            `iptables ${words.map((word) => `'${word.replaceAll("'", '')}'`).join(' ')}`,
          );
          expect(typeof result.exitCode).toBe('number');
          expect(exec(ns, 'iptables-save').exitCode).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('iptables-restore input', () => {
    const line = fc.oneof(
      fc.constantFrom(
        '*filter',
        '*nat',
        'COMMIT',
        ':INPUT DROP [1:2]',
        ':U - [0:0]',
        '# c',
        '',
        '[1:2] -A INPUT',
      ),
      fc.array(fc.constantFrom(...WORDS), { maxLength: 10 }).map((words) => words.join(' ')),
      fc.string({ maxLength: 20 }),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), fc.boolean(), (lines, counters) => {
        const ns = loaded();
        const result = iptablesRestore(ns, counters ? ['-c', '-n'] : ['-n'], `${lines.join('\n')}\n`);
        expect(typeof result.exitCode).toBe('number');
        const saved = exec(ns, 'iptables-save').stdout;
        const again = namespace();
        // -c: what -c put in the counters (a policy's [1:2]) must come back too.
        expect(iptablesRestore(again, ['-c'], saved).exitCode).toBe(0);
        expect(exec(again, 'iptables-save').stdout).toBe(saved);
      }),
      { numRuns: 1000 },
    );
  });
});
