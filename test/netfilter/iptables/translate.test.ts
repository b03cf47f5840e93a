// Table-driven checks of how each iptables match and target becomes rule IR (what iptables-nft 1.8.9 sends the
// kernel: native comparisons, or an xt extension with the text nft prints for it) and its iptables-save words.

import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../../src/netfilter/iptables/parser.ts';
import { compileRule } from '../../../src/netfilter/iptables/rule.ts';
import { tokenizeRestoreLine } from '../../../src/netfilter/iptables/tokenize.ts';
import type { Expr, Rule } from '../../../src/netfilter/ir.ts';

function compile(line: string, table = 'filter') {
  const parsed = parseCommand(tokenizeRestoreLine(line), { restoreTable: table });
  if ('kind' in parsed) throw new Error(`parse failed: ${JSON.stringify(parsed)}`);
  return compileRule(parsed.rule!, table);
}

const meta = (key: 'mark' | 'l4proto' | 'iifname' | 'oifname') => ({
  selector: { kind: 'meta' as const, key },
});
const payload = (field: 'ip saddr' | 'ip daddr' | 'tcp dport' | 'tcp sport' | 'tcp flags' | 'icmp type') => ({
  selector: { kind: 'payload' as const, field },
});
const num = (value: number) => ({ kind: 'number' as const, value });
const COUNTER: Expr = { kind: 'counter' };

interface Case {
  readonly line: string;
  readonly table?: string;
  /** iptables-save's words after `-A CHAIN`. */
  readonly saved: string;
  readonly exprs?: readonly Expr[];
  /** What nft prints for the xt parts, in order. */
  readonly nft?: readonly string[];
}

const CASES: Case[] = [
  {
    line: '-A INPUT -s 10.1.2.3 -d 192.168.0.0/255.255.0.0 -i eth0 -p udp --sport 53 -j ACCEPT',
    saved: '-s 10.1.2.3/32 -d 192.168.0.0/16 -i eth0 -p udp -m udp --sport 53 -j ACCEPT',
    exprs: [
      {
        kind: 'cmp',
        left: [meta('iifname')],
        op: 'eq',
        right: { kind: 'string', value: 'eth0', wildcard: false },
      },
      { kind: 'cmp', left: [meta('l4proto')], op: 'eq', right: num(17) },
      { kind: 'cmp', left: [payload('ip saddr')], op: 'eq', right: num(0x0a010203) },
      {
        kind: 'cmp',
        left: [payload('ip daddr')],
        op: 'eq',
        right: { kind: 'prefix', addr: 0xc0a80000, len: 16 },
      },
      {
        kind: 'cmp',
        left: [{ selector: { kind: 'payload', field: 'udp sport' } }],
        op: 'eq',
        right: num(53),
      },
      COUNTER,
      { kind: 'verdict', verdict: { kind: 'accept' } },
    ],
  },
  {
    line: '-A FORWARD ! -o veth+ ! -p tcp -j DROP',
    saved: '! -o veth+ ! -p tcp -j DROP',
    exprs: [
      {
        kind: 'cmp',
        left: [meta('oifname')],
        op: 'ne',
        right: { kind: 'string', value: 'veth', wildcard: true },
      },
      { kind: 'cmp', left: [meta('l4proto')], op: 'ne', right: num(6) },
      COUNTER,
      { kind: 'verdict', verdict: { kind: 'drop' } },
    ],
  },
  {
    line: '-A INPUT -p tcp ! --dport 0:1023 -m tcp --sport 80:80',
    saved: '-p tcp -m tcp --sport 80 --dport 1024:65535',
    exprs: [
      { kind: 'cmp', left: [meta('l4proto')], op: 'eq', right: num(6) },
      { kind: 'cmp', left: [payload('tcp dport')], op: 'gt', right: num(1023) },
      { kind: 'cmp', left: [payload('tcp sport')], op: 'eq', right: num(80) },
      COUNTER,
    ],
  },
  {
    line: '-A INPUT -p tcp --syn -j ACCEPT',
    saved: '-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j ACCEPT',
    exprs: [
      { kind: 'cmp', left: [meta('l4proto')], op: 'eq', right: num(6) },
      { kind: 'cmp', left: [{ ...payload('tcp flags'), mask: 0x17 }], op: 'eq', right: num(2) },
      COUNTER,
      { kind: 'verdict', verdict: { kind: 'accept' } },
    ],
  },
  {
    line: '-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000',
    table: 'nat',
    saved: '-j MARK --set-xmark 0x4000/0x4000',
    exprs: [
      COUNTER,
      {
        kind: 'meta-set',
        key: 'mark',
        source: { kind: 'value', value: { ...meta('mark'), mask: 0xffffbfff, xor: 0x4000 } },
      },
    ],
    nft: ['meta mark set mark or 0x4000'],
  },
  {
    line: '-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000',
    table: 'nat',
    saved: '-j MARK --set-xmark 0x4000/0x0',
    nft: ['meta mark set mark xor 0x4000'],
  },
  {
    line: '-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN',
    table: 'nat',
    saved: '-m mark ! --mark 0x4000/0x4000 -j RETURN',
    exprs: [
      { kind: 'cmp', left: [{ ...meta('mark'), mask: 0x4000 }], op: 'ne', right: num(0x4000) },
      COUNTER,
      { kind: 'verdict', verdict: { kind: 'return' } },
    ],
  },
  {
    line: '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully',
    table: 'nat',
    saved: '-m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully',
    nft: ['', 'masquerade fully-random'],
  },
  {
    line: '-A KUBE-SEP-X -p tcp -m comment --comment "default/web:http" -m tcp -j DNAT --to-destination 10.244.1.9:8000',
    table: 'nat',
    saved: '-p tcp -m comment --comment "default/web:http" -m tcp -j DNAT --to-destination 10.244.1.9:8000',
    nft: ['', '', 'dnat to 10.244.1.9:8000'],
  },
  {
    line: '-A KUBE-SVC-X -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-X',
    table: 'nat',
    saved: '-m statistic --mode random --probability 0.50000000000 -j KUBE-SEP-X',
    nft: ['meta random & 2147483647 < 1073741824'],
  },
  {
    line: '-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS',
    table: 'nat',
    saved: '-m addrtype --dst-type LOCAL -j KUBE-NODEPORTS',
    nft: ['fib daddr type local'],
  },
  {
    line: '-A INPUT -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP',
    saved: '-m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP',
    exprs: [
      { kind: 'match', name: 'conntrack', options: { name: 'conntrack', stateMask: 0x206, invert: true } },
      COUNTER,
      { kind: 'verdict', verdict: { kind: 'drop' } },
    ],
    nft: ['ct status dnat'],
  },
  {
    line: '-A INPUT -m state --state NEW,ESTABLISHED',
    saved: '-m state --state NEW,ESTABLISHED',
    nft: ['ct state new,established'],
  },
  {
    line: '-A INPUT -m connmark ! --mark 0x1/0xf',
    saved: '-m connmark ! --mark 0x1/0xf',
    nft: ['ct mark and 0xf != 0x1'],
  },
  {
    line: '-A INPUT -p udp -m multiport ! --sports 53,67 -j ACCEPT',
    saved: '-p udp -m multiport ! --sports 53,67 -j ACCEPT',
    nft: ['udp sport != { 53, 67 }'],
  },
  {
    line: '-A INPUT -m recent --rcheck --seconds 60 --hitcount 4 --name SSH',
    saved: '-m recent --rcheck --seconds 60 --hitcount 4 --name SSH --mask 255.255.255.255 --rsource',
    nft: ['xt match recent'],
  },
  {
    line: '-A INPUT -p icmp --icmp-type host-unreachable -j ACCEPT',
    saved: '-p icmp -m icmp --icmp-type 3/1 -j ACCEPT',
    nft: ['xt match icmp'],
  },
  {
    line: '-A INPUT -p tcp -j REJECT --reject-with tcp-reset',
    saved: '-p tcp -j REJECT --reject-with tcp-reset',
    nft: ['reject with tcp reset'],
  },
  {
    line: '-A PREROUTING -j CONNMARK --save-mark --nfmask 0xff --ctmask 0xf',
    table: 'mangle',
    saved: '-j CONNMARK --save-mark --nfmask 0xff --ctmask 0xf',
    exprs: [
      COUNTER,
      {
        kind: 'ct-set',
        key: 'mark',
        source: {
          kind: 'xor',
          value: { selector: { kind: 'ct', key: 'mark' }, mask: 0xfffffff0 },
          other: { ...meta('mark'), mask: 0xff },
        },
      },
    ],
    nft: ['xt target CONNMARK'],
  },
  {
    line: '-A PREROUTING -j LOG --log-prefix "fw: " --log-level debug',
    table: 'mangle',
    saved: '-j LOG --log-prefix "fw: " --log-level 7',
    exprs: [COUNTER, { kind: 'log', prefix: 'fw: ', level: 7, flags: [] }],
    nft: ['log prefix "fw: " level debug'],
  },
  {
    line: '-A PREROUTING -p tcp -j TRACE',
    table: 'raw',
    saved: '-p tcp -j TRACE',
    exprs: [
      { kind: 'cmp', left: [meta('l4proto')], op: 'eq', right: num(6) },
      COUNTER,
      { kind: 'meta-set', key: 'nftrace', source: { kind: 'constant', value: 1 } },
    ],
  },
  {
    line: '-A PREROUTING -p udp --dport 53 -j NOTRACK',
    table: 'raw',
    saved: '-p udp -m udp --dport 53 -j NOTRACK',
    nft: ['notrack'],
  },
  {
    line: '-A POSTROUTING -s 10.0.0.0/8 -j SNAT --to-source 1.2.3.4-1.2.3.8 --persistent --random',
    table: 'nat',
    saved: '-s 10.0.0.0/8 -j SNAT --to-source 1.2.3.4-1.2.3.8 --random --persistent',
    nft: ['snat to 1.2.3.4-1.2.3.8 random,persistent'],
  },
  {
    line: '-A OUTPUT -p udp -j REDIRECT --to-ports 5353',
    table: 'nat',
    saved: '-p udp -j REDIRECT --to-ports 5353',
    nft: ['redirect to :5353'],
  },
];

describe('iptables rules compile to the IR iptables-nft builds', () => {
  for (const c of CASES) {
    it(c.line, () => {
      const compiled = compile(c.line, c.table);
      expect(compiled.iptables.args.join(' ')).toBe(c.saved);
      if (c.exprs !== undefined) expect(compiled.exprs).toEqual(c.exprs);
      if (c.nft !== undefined) expect((compiled.iptables.nft ?? []).map((span) => span.text)).toEqual(c.nft);
    });
  }

  it('keeps the comment as the rule comment', () => {
    expect(compile('-A INPUT -m comment --comment "a b" -j ACCEPT').comment).toBe('a b');
  });

  it('spans cover the expressions they print', () => {
    const compiled = compile('-A INPUT -m comment --comment x -m conntrack --ctstate NEW -j ACCEPT');
    const spans = compiled.iptables.nft ?? [];
    expect(spans.map((span) => [span.at, span.count, span.xt])).toEqual([
      [0, 1, true],
      [1, 1, true],
    ]);
    const rule: Rule = {
      handle: 1,
      exprs: compiled.exprs,
      comment: undefined,
      iptables: compiled.iptables,
      packets: 0,
      bytes: 0,
    };
    expect(rule.exprs[1]).toEqual({
      kind: 'cmp',
      left: [{ selector: { kind: 'ct', key: 'state' }, mask: 8 }],
      op: 'ne',
      right: num(0),
    });
  });
});
