// The pure pieces: the restore tokenizer, xt evaluators the engine calls, ctime for iptables-save's header.

import { describe, expect, it } from 'vitest';
import { conntrackStateMatches } from '../../../src/netfilter/iptables/match-conntrack.ts';
import { icmpMatches } from '../../../src/netfilter/iptables/match-icmp.ts';
import { multiportMatches } from '../../../src/netfilter/iptables/match-multiport.ts';
import { ctime } from '../../../src/netfilter/iptables/save.ts';
import { tokenizeRestoreLine } from '../../../src/netfilter/iptables/tokenize.ts';

describe('tokenizeRestoreLine (add_param_to_argv)', () => {
  const cases: [string, string[]][] = [
    ['-A INPUT  -j ACCEPT', ['-A', 'INPUT', '-j', 'ACCEPT']],
    ['--comment "a b"', ['--comment', 'a b']],
    ['--comment "a\\"b" x', ['--comment', 'a"b', 'x']],
    ['--comment "x\\\\y"', ['--comment', 'x\\y']],
    ["--comment 'single'", ['--comment', "'single'"]],
    ['a"b"c', ['ab', 'c']],
    ['--comment ""', ['--comment', '']],
    ['"unterminated', ['unterminated']],
    ['a\\b', ['a\\b']],
  ];
  for (const [line, words] of cases) it(line, () => expect(tokenizeRestoreLine(line)).toEqual(words));
});

describe('xt evaluators', () => {
  it('conntrack: virtual DNAT state from the status bits, xor invert', () => {
    const opts = { name: 'conntrack', stateMask: 0x206, invert: true } as const;
    expect(conntrackStateMatches(opts, 8, 0)).toBe(true); // NEW, no NAT
    expect(conntrackStateMatches(opts, 2, 0)).toBe(false); // ESTABLISHED
    expect(conntrackStateMatches(opts, 8, 0x20)).toBe(false); // DNAT'ed
  });
  it('icmp: type, code range, any, invert', () => {
    expect(icmpMatches({ name: 'icmp', type: 3, codeMin: 1, codeMax: 1, invert: false }, 3, 1)).toBe(true);
    expect(icmpMatches({ name: 'icmp', type: 3, codeMin: 1, codeMax: 1, invert: true }, 3, 1)).toBe(false);
    expect(icmpMatches({ name: 'icmp', type: 3, codeMin: 1, codeMax: 1, invert: true }, 3, 4)).toBe(true);
    expect(icmpMatches({ name: 'icmp', type: 255, codeMin: 0, codeMax: 255, invert: false }, 8, 0)).toBe(
      true,
    );
  });
  it('multiport --ports: either side', () => {
    const opts = {
      name: 'multiport',
      side: 'either',
      ranges: [
        [22, 22],
        [8000, 8080],
      ],
      invert: false,
    } as const;
    expect(multiportMatches(opts, 22, 40000)).toBe(true);
    expect(multiportMatches(opts, 40000, 8001)).toBe(true);
    expect(multiportMatches(opts, 40000, 80)).toBe(false);
  });
});

describe('ctime', () => {
  it('prints virtual time 0 as the epoch', () => expect(ctime(0)).toBe('Thu Jan  1 00:00:00 1970'));
  it('pads the day with a space', () => expect(ctime(86400 * 40 + 3661)).toBe('Tue Feb 10 01:01:01 1970'));
});
