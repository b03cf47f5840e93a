// xtables-monitor --trace lines against what the real one printed for a TRACE'd ping on lo (fixtures/
// xtables-monitor.txt), and the same path end to end through a namespace.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatXtablesTrace } from '../../../src/netfilter/iptables/monitor.ts';
import type { Chain, Rule, Table, Verdict } from '../../../src/netfilter/ir.ts';
import type { NftTraceEvent, TracedPacket } from '../../../src/netfilter/trace.ts';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec, spawn } from '../../../src/tools/exec.ts';

const here = dirname(fileURLToPath(import.meta.url));
const real = readFileSync(join(here, 'fixtures', 'xtables-monitor.txt'), 'utf8').split('\n');

/** The ICMP echo of the fixture: 84 bytes, ID 13410, DF, TTL 64, 127.0.0.1 to itself. */
function echo(): Uint8Array {
  const ip = new Uint8Array(84);
  ip.set([0x45, 0, 0, 84, 0x34, 0x62, 0x40, 0, 64, 1, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1, 8, 0]);
  return ip;
}

function event(
  tableName: string,
  chainName: string,
  type: NftTraceEvent['type'],
  verdict: Verdict,
  rule: Rule | undefined,
  packet: TracedPacket | undefined,
): NftTraceEvent {
  const chain: Chain = {
    name: chainName,
    handle: 1,
    base: undefined,
    rules: [],
    policyPackets: 0,
    policyBytes: 0,
    policyCounters: true,
  };
  const table: Table = {
    family: 'ip',
    name: tableName,
    handle: 1,
    nextHandle: 2,
    chains: new Map(),
    sets: new Map(),
    iptables: true,
  };
  return {
    id: 0xd4f9cc3c,
    family: 'ip',
    table,
    chain,
    type,
    rule,
    verdict,
    packet,
    mark: packet?.mark ?? 0,
    hook: 'output',
  };
}

function rule(handle: number, args: string[]): Rule {
  return { handle, exprs: [], comment: undefined, iptables: { args }, packets: 0, bytes: 0 };
}

describe('formatXtablesTrace', () => {
  const out: TracedPacket = {
    iifname: undefined,
    oifname: 'lo',
    mark: 0,
    linkHeader: undefined,
    network: echo(),
  };
  it('prints the packet, the rule and the policy as xtables-monitor 1.8.9 does', () => {
    const lines =
      formatXtablesTrace(
        event('raw', 'OUTPUT', 'rule', { kind: 'continue' }, rule(2, ['-p', 'icmp', '-j', 'TRACE']), out),
      ) + formatXtablesTrace(event('raw', 'OUTPUT', 'policy', { kind: 'accept' }, undefined, undefined));
    expect(lines).toBe(`${real.slice(0, 3).join('\n')}\n`);
  });

  it('shows the mark, jumps and the raw return code', () => {
    const input: TracedPacket = {
      iifname: 'lo',
      oifname: undefined,
      mark: 0x10,
      linkHeader: undefined,
      network: echo(),
    };
    const jump = rule(6, ['-j', 'CH']);
    expect(
      formatXtablesTrace(event('filter', 'INPUT', 'rule', { kind: 'jump', chain: 'CH' }, jump, input)),
    ).toBe(
      `PACKET: 2 d4f9cc3c IN=lo LOOPBACK SRC=127.0.0.1 DST=127.0.0.1 LEN=84 TOS=0x0 TTL=64 ID=13410 DF MARK=0x10 \n${real[12]!.replace('5b769f6d', 'd4f9cc3c')}\n`,
    );
    const ret = rule(7, ['-p', 'icmp', '-j', 'RETURN']);
    expect(formatXtablesTrace(event('filter', 'CH', 'rule', { kind: 'return' }, ret, undefined))).toBe(
      `${real[13]!.replace('5b769f6d', 'd4f9cc3c')}\n`,
    );
  });
});

describe('xtables-monitor --trace in a namespace', () => {
  it('reports the TRACE rule, the MARK rule and the verdicts in the real format', () => {
    const sim = new Simulation({ seed: 'xtables-monitor' });
    const ns = sim.addNamespace('node');
    exec(ns, 'ip link set lo up');
    for (const line of [
      'iptables -t raw -A OUTPUT -p icmp -j TRACE',
      'iptables -t mangle -A OUTPUT -p icmp -j MARK --set-mark 0x10',
      'iptables -A OUTPUT -p icmp -j ACCEPT',
    ])
      expect(exec(ns, line).exitCode).toBe(0);
    const monitor = spawn(ns, 'xtables-monitor --trace');
    if (!('stop' in monitor)) throw new Error(monitor.stderr);
    exec(ns, 'ping -c 1 127.0.0.1');
    const lines = monitor.stop().stdout.split('\n');
    const shape = (line: string) =>
      line
        .replace(/ [0-9a-f]{8} /, ' ID ')
        .replace(/rule:0x[0-9a-f]+/, 'rule:H')
        .replace(/ ID=\d+/, '');
    expect(lines.slice(0, 7).map(shape)).toEqual(real.slice(0, 7).map(shape));
  });
});
