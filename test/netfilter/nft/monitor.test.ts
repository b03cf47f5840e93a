// `nft monitor trace` lines against what the real nft 1.0.6 printed (fixtures/trace.txt, two namespaces joined
// by veth pairs on Linux 6.18). Each real packet line is turned back into header bytes, the events the kernel
// sent are rebuilt around the same rulesets (loaded through packetlab's nft and iptables-restore), and the
// monitor must print the real lines again byte for byte. Then the same through spawn() in a simulation.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { restoreRuleset } from '../../../src/netfilter/iptables/restore.ts';
import type { Rule, Table, Verdict } from '../../../src/netfilter/ir.ts';
import { formatRule, runNft, TraceMonitor } from '../../../src/netfilter/nft/index.ts';
import { RulesetStore } from '../../../src/netfilter/ruleset.ts';
import type { NftTraceEvent, TracedPacket, TraceListener } from '../../../src/netfilter/trace.ts';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec, spawn } from '../../../src/tools/exec.ts';

const here = dirname(fileURLToPath(import.meta.url));
const fixture = (name: string): string => readFileSync(join(here, 'fixtures', name), 'utf8');
const traceLines = fixture('trace.txt').split('\n');

const ICMP_TYPES: Record<string, number> = {
  'echo-request': 8,
  'echo-reply': 0,
  'destination-unreachable': 3,
};
const ICMP_CODES: Record<string, number> = { 'net-unreachable': 0, 'port-unreachable': 3 };
const TCP_FLAGS: Record<string, number> = { syn: 0x02, ack: 0x10 };
const DSCP: Record<string, number> = { cs0: 0, cs6: 0x30 };

function mac(text: string): number[] {
  return text.split(':').map((byte) => Number.parseInt(byte, 16));
}

function ipv4(text: string): number[] {
  return text.split('.').map(Number);
}

/** Rebuilds the headers a real `packet:` line describes (fields nft does not print stay zero). */
function packetOf(line: string): TracedPacket {
  const text = line.slice(line.indexOf('packet: ') + 8);
  const field = (name: string): string | undefined => {
    const match = new RegExp(`(?:^| )${name} ("[^"]*"|\\S+)`).exec(text);
    return match?.[1];
  };
  const iif = field('iif')?.slice(1, -1);
  const oif = field('oif')?.slice(1, -1);
  let linkHeader: Uint8Array | undefined;
  if (field('ether saddr') !== undefined)
    linkHeader = new Uint8Array([...mac(field('ether daddr')!), ...mac(field('ether saddr')!), 0x08, 0x00]);
  const ip = new Uint8Array(Number(field('ip length')));
  const protocol = text.includes('tcp sport') ? 6 : text.includes('udp sport') ? 17 : 1;
  ip.set([0x45, DSCP[field('ip dscp')!]! << 2, ip.length >> 8, ip.length & 255]);
  const id = Number(field('ip id'));
  ip.set([id >> 8, id & 255, 0, 0, Number(field('ip ttl')), protocol], 4);
  ip.set(ipv4(field('ip saddr')!), 12);
  ip.set(ipv4(field('ip daddr')!), 16);
  const u16 = (at: number, value: number): void => ip.set([value >> 8, value & 255], 20 + at);
  if (protocol === 6) {
    u16(0, Number(field('tcp sport')));
    u16(2, Number(field('tcp dport')));
    const flags = field('tcp flags ==')!;
    ip[20 + 12] = 0x50;
    ip[20 + 13] = flags.startsWith('0x') ? Number(flags) : TCP_FLAGS[flags]!;
    u16(14, Number(field('tcp window')));
  } else if (protocol === 17) {
    u16(0, Number(field('udp sport')));
    u16(2, Number(field('udp dport')));
    u16(4, Number(field('udp length')));
  } else {
    ip[20] = ICMP_TYPES[field('icmp type')!]!;
    ip[21] = ICMP_CODES[field('icmp code')!]!;
    u16(4, Number(field('icmp id')));
    u16(6, Number(field('icmp sequence')));
  }
  const rest = /@th,(\d+),(\d+) 0x([0-9a-f]+)/.exec(text);
  if (rest !== null) {
    const bytes = Number(rest[2]) / 8;
    const hex = rest[3]!.padStart(bytes * 2, '0');
    for (let i = 0; i < bytes; i++)
      ip[20 + Number(rest[1]) / 8 + i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  }
  return { iifname: iif, oifname: oif, mark: 0, linkHeader, network: ip };
}

function verdictOf(text: string): Verdict {
  const [kind, chain] = text.split(' ') as [string, string | undefined];
  if (kind === 'jump' || kind === 'goto') return { kind, chain: chain! };
  return { kind: kind as 'accept' | 'drop' | 'continue' | 'return' | 'queue' };
}

/**
 * The events behind real trace lines: `packet:` lines become the packet of the next event of that chain,
 * `rule` lines find the rule printing as the real text (a printer bug finds none), policy lines carry their mark.
 */
function eventsOf(
  lines: readonly string[],
  store: RulesetStore,
  unknown?: Rule,
  counters?: (rule: Rule) => { packets: number; bytes: number } | undefined,
): NftTraceEvent[] {
  const events: NftTraceEvent[] = [];
  let packet: TracedPacket | undefined;
  for (const line of lines) {
    const match = /^trace id ([0-9a-f]{8}) (ip|inet) (\S+) (\S+) (.*)$/.exec(line);
    if (match === null) throw new Error(`not a trace line: ${line}`);
    const [, id, family, tableName, chainName, rest] = match as unknown as [
      string,
      string,
      'ip' | 'inet',
      string,
      string,
      string,
    ];
    const table = store.ruleset.tables.find((t) => t.family === family && t.name === tableName) as Table;
    const chain = table.chains.get(chainName)!;
    const base = { id: Number.parseInt(id, 16), family, table, chain, hook: chain.base?.hook ?? '' };
    if (rest.startsWith('packet: ')) {
      packet = packetOf(line);
      continue;
    }
    const mark = /meta mark (0x[0-9a-f]{8})/.exec(rest);
    const markValue = mark === null ? 0 : Number(mark[1]);
    if (rest.startsWith('policy ')) {
      events.push({
        ...base,
        type: 'policy',
        rule: undefined,
        verdict: verdictOf(rest.split(' ')[1]!),
        packet,
        mark: markValue,
      });
    } else {
      const verdict = verdictOf(/\(verdict (.*)\)$/.exec(rest)![1]!);
      let rule: Rule | undefined;
      if (rest.startsWith('unknown rule handle')) rule = unknown;
      else {
        const text = rest.slice('rule '.length, rest.lastIndexOf(' (verdict'));
        rule = chain.rules.find(
          (candidate) => formatRule(candidate, table, counters ? { counters } : {}) === text,
        );
      }
      if (rule === undefined) throw new Error(`no rule prints as in: ${line}`);
      events.push({ ...base, type: 'rule', rule, verdict, packet, mark: markValue });
    }
    packet = undefined;
  }
  return events;
}

function storeWith(files: readonly string[], iptables?: string): RulesetStore {
  const store = new RulesetStore();
  for (const file of files) expect(runNft({ store }, fixture(file), { file }).stderr).toBe('');
  if (iptables !== undefined)
    expect(
      restoreRuleset(store, fixture(iptables), {
        counters: false,
        noflush: true,
        test: false,
        verbose: false,
        onlyTable: undefined,
      }).stderr,
    ).toBe('');
  return store;
}

function monitorOutput(
  store: RulesetStore,
  events: readonly NftTraceEvent[],
  afterStart?: () => void,
): string {
  const netfilter = { store, traceListeners: new Set<TraceListener>() };
  const monitor = new TraceMonitor(netfilter);
  afterStart?.();
  for (const event of events) for (const listener of netfilter.traceListeners) listener(event);
  return monitor.stop().stdout;
}

describe('nft monitor trace prints what the real one printed', () => {
  it('ping and a TCP SYN through an inet trace table, iptables-nft nat chains and an ip filter table', () => {
    const lines = traceLines.slice(0, 30);
    const store = storeWith(['trace-setup.nft'], 'trace-iptables.rules');
    expect(monitorOutput(store, eventsOf(lines, store))).toBe(`${lines.join('\n')}\n`);
  });

  it('UDP, a port unreachable quoting its datagram, and a whole TCP connection', () => {
    const lines = traceLines.slice(30, 65);
    const store = storeWith(['trace2-setup.nft']);
    expect(monitorOutput(store, eventsOf(lines, store))).toBe(`${lines.join('\n')}\n`);
  });

  it('a forwarded ping with input and output interfaces and a mark', () => {
    const lines = traceLines.slice(65, 73);
    const store = storeWith(['trace3-setup.nft']);
    expect(monitorOutput(store, eventsOf(lines, store))).toBe(`${lines.join('\n')}\n`);
  });

  it('counters as they were when the monitor started, and rules added since as unknown handles', () => {
    const store = storeWith(['trace4-setup.nft']);
    const rule = store.ruleset.tables[0]!.chains.get('pre')!.rules[0]!;
    rule.packets = 2;
    rule.bytes = 168;
    const netfilter = { store, traceListeners: new Set<TraceListener>() };
    const monitor = new TraceMonitor(netfilter);
    rule.packets = 3;
    rule.bytes = 252;
    expect(runNft({ store }, 'add rule ip t pre counter accept').exitCode).toBe(0);
    const added = store.ruleset.tables[0]!.chains.get('pre')!.rules[1]!;
    const lines = traceLines.slice(73, 76);
    const cached = (r: Rule) => (r === rule ? { packets: 2, bytes: 168 } : undefined);
    for (const event of eventsOf(lines, store, added, cached))
      for (const listener of netfilter.traceListeners) listener(event);
    // Real nft numbered the new rule 3 (handles count per table); packetlab's count per namespace.
    expect(monitor.stop().stdout).toBe(`${lines.join('\n').replace('handle 3', `handle ${added.handle}`)}\n`);
  });

  it('prints the link header raw when no input interface tells its type', () => {
    const store = storeWith(['trace3-setup.nft']);
    const table = store.ruleset.tables[0]!;
    const chain = table.chains.get('post')!;
    const packet = packetOf(traceLines[71]!);
    const event: NftTraceEvent = {
      id: 0x0c23a13,
      family: 'ip',
      table,
      chain,
      type: 'policy',
      rule: undefined,
      verdict: { kind: 'drop' },
      packet: { ...packet, iifname: undefined },
      mark: 0,
      hook: 'postrouting',
    };
    expect(monitorOutput(store, [event]).split('\n')[0]).toBe(
      'trace id 00c23a13 ip t post packet: oif "plabv2" @ll,0,112 0x168bc146fa3282ab944ffedd0800 ip saddr 10.0.0.2 ' +
        'ip daddr 10.1.0.2 ip dscp cs0 ip ecn not-ect ip ttl 63 ip id 61104 ip length 84 icmp type echo-request ' +
        'icmp code net-unreachable icmp id 1554 icmp sequence 1 @th,64,96 0xe6c10c6b000000001e200000 ',
    );
  });
});

describe('nft monitor trace in a simulation', () => {
  it('runs in the background through spawn and sees the incident trace table at work', () => {
    const sim = new Simulation({ seed: 'nft-monitor' });
    const node = sim.addNamespace('node');
    const client = sim.addNamespace('client');
    for (const [ns, line] of [
      [node, 'ip link set lo up'],
      [client, 'ip link set lo up'],
      [node, 'ip link add eth0 type veth peer name eth0 netns client'],
      [node, 'ip addr add 10.0.0.1/24 dev eth0'],
      [client, 'ip addr add 10.0.0.2/24 dev eth0'],
      [node, 'ip link set eth0 up'],
      [client, 'ip link set eth0 up'],
      [node, 'nft add table inet debug'],
      [node, "nft add chain inet debug trace '{ type filter hook prerouting priority -301; }'"],
      [node, 'nft add rule inet debug trace ip protocol icmp meta nftrace set 1'],
    ] as const)
      expect(exec(ns, line)).toMatchObject({ exitCode: 0, stderr: '' });
    expect(exec(node, 'nft monitor trace').exitCode).toBe(1);
    const monitor = spawn(node, 'nft monitor trace');
    if (!('stop' in monitor)) throw new Error(monitor.stderr);
    expect(exec(client, 'ping -c 1 10.0.0.1').exitCode).toBe(0);
    const output = monitor.stop();
    const lines = output.stdout.split('\n');
    expect(lines[0]).toMatch(
      /^trace id [0-9a-f]{8} inet debug trace packet: iif "eth0" ether saddr \S+ ether daddr \S+ ip saddr 10\.0\.0\.2 ip daddr 10\.0\.0\.1 ip dscp cs0 ip ecn not-ect ip ttl 64 ip id \d+ ip protocol icmp ip length 84 icmp type echo-request icmp code net-unreachable icmp id \d+ icmp sequence 1 @th,64,96 0x[0-9a-f]+ $/,
    );
    expect(lines[1]).toMatch(
      /^trace id [0-9a-f]{8} inet debug trace rule ip protocol icmp meta nftrace set 1 \(verdict continue\)$/,
    );
    expect(lines[2]).toMatch(/^trace id [0-9a-f]{8} inet debug trace policy accept $/);
    expect(monitor.done).toBe(true);
  });
});
