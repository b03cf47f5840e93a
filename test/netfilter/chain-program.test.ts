// The compiled chain program (src/netfilter/chain-program.ts): its column tests give exactly the cmp expressions'
// outcome (prefixes, negations, ranges, masked marks, a field the packet lacks), reads are taken again after a rule
// ran a statement, and chains with the same expressions share one program while a changed one gets its own.

import { describe, expect, it } from 'vitest';
import type { Packet } from '../../src/core/packet.ts';
import { programOf } from '../../src/netfilter/chain-program.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec } from '../../src/tools/exec.ts';
import { ip, ipv4, tcp, udpDatagram } from '../support/frames.ts';
import { packetOf } from '../support/packets.ts';

const RULES = [
  'ip daddr 10.96.0.0/12 counter',
  'ip daddr != 10.96.0.0/12 counter',
  'tcp dport 80 counter',
  'tcp dport != 80 counter',
  'th dport 1000-2000 counter',
  'th dport != 1000-2000 counter',
  'ip protocol udp counter',
  'meta l4proto != tcp counter',
  'meta mark & 0x0000ff00 == 0x00000100 counter',
  'meta mark set 0x00000101',
  'meta mark & 0x0000ff00 == 0x00000100 counter',
  'ip saddr 10.244.1.5 ip daddr 10.96.0.10 udp dport 1500 counter',
];

function namespace() {
  const ns = new Simulation().addNamespace('n');
  const text = `table ip t {\n\tchain c {\n\t\ttype filter hook prerouting priority 0; policy accept;\n${RULES.map((rule) => `\t\t${rule}\n`).join('')}\t}\n}\n`;
  const loaded = exec(ns, 'nft -f -', { stdin: text });
  expect(loaded.exitCode, loaded.stderr).toBe(0);
  return ns;
}

/** The packets each rule's counter counted, in rule order (the mark-setting rule has none). */
function counts(ns: ReturnType<typeof namespace>): number[] {
  return [...exec(ns, 'nft list chain ip t c').stdout.matchAll(/counter packets (\d+)/g)].map((m) =>
    Number(m[1]),
  );
}

function run(ns: ReturnType<typeof namespace>, pkt: Packet): void {
  ns.netfilter.run('PREROUTING', pkt, ns.loopback, undefined);
}

const udpTo = (dst: string, port: number, options: { fragmentOffset?: number } = {}): Packet =>
  packetOf(
    ipv4(
      { src: ip('10.244.1.5'), dst: ip(dst), protocol: 17, ...options },
      udpDatagram({
        src: ip('10.244.1.5'),
        dst: ip(dst),
        srcPort: 5000,
        dstPort: port,
        payload: new Uint8Array(4),
      }),
    ),
  );

describe('compiled chain program', () => {
  it('matches as the expressions do: prefixes, negations, ranges, protocols, masked marks', () => {
    const ns = namespace();
    run(ns, udpTo('10.96.0.10', 1500));
    run(
      ns,
      packetOf(
        tcp({
          src: ip('10.1.1.1'),
          dst: ip('192.168.0.1'),
          srcPort: 1,
          dstPort: 80,
          seq: 1,
          flags: { syn: true },
        }),
      ),
    );
    // daddr in/out, tcp dport ==/!= (a UDP packet has no tcp dport: neither matches), th range ==/!=, udp, not tcp,
    // the mark test before (no packet has the mark yet) and after the statement that set it (both have it now), the
    // three-field rule.
    expect(counts(ns)).toEqual([1, 1, 1, 0, 1, 1, 1, 1, 0, 2, 1]);
  });

  it('fails every column test of a field the packet lacks (a non-first fragment has no ports)', () => {
    const ns = namespace();
    run(ns, udpTo('10.96.0.10', 1500, { fragmentOffset: 8 }));
    expect(counts(ns)).toEqual([1, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0]);
  });

  it('shares one program between chains with the same expressions, and compiles a changed chain anew', () => {
    const [a, b] = [new Simulation().addNamespace('a'), new Simulation().addNamespace('b')];
    const restore =
      '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -s 10.0.0.0/8 -p tcp -m tcp --dport 22 -j ACCEPT\nCOMMIT\n';
    for (const ns of [a, b]) expect(exec(ns, 'iptables-restore', { stdin: restore }).exitCode).toBe(0);
    const input = (ns: typeof a) => ns.netfilter.store.ruleset.tables[0]!.chains.get('INPUT')!;
    expect(input(a).rules).not.toBe(input(b).rules);
    expect(programOf(input(a).rules)).toBe(programOf(input(b).rules));
    const shared = programOf(input(b).rules);
    expect(exec(a, 'iptables -A INPUT -j DROP').exitCode).toBe(0);
    expect(programOf(input(a).rules)).not.toBe(shared);
    expect(programOf(input(b).rules)).toBe(shared);
  });
});
