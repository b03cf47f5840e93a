// Tracing one packet through a rebuilt node: the packet's description, what `packetlab trace` reports for a
// forwarded, a dropped, a locally delivered and a locally sent packet (nft monitor trace, path trace with marks,
// verdict, counters), its errors, and mutated snapshots that never make the reader, the rebuild or the trace throw.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatPacketSpec,
  formatTrace,
  loadSnapshot,
  parsePacketSpec,
  rebuildNode,
  tracePacket,
} from '../../src/node-snapshot/index.ts';
import { FIXTURE } from './support.ts';

/** The trace, its monitor lines with the trace id (a hash of the simulation's random skb address) as ID. */
function trace(packet: string) {
  const spec = parsePacketSpec(packet);
  if ('error' in spec) throw new Error(spec.error);
  const report = tracePacket(rebuildNode(loadSnapshot(FIXTURE)), spec);
  return {
    ...report,
    monitor: report.monitor.map((line) => line.replace(/^trace id [0-9a-f]{8} /, 'trace id ID ')),
  };
}

describe('the packet to trace', () => {
  it.each([
    'tcp 203.0.113.7:5555 > 172.18.0.2:30080 in eth0',
    'udp 10.0.0.1:53 > 10.0.0.2:0 in vethpod',
    'icmp 203.0.113.7 > 172.18.0.2 in eth0',
    'udp 172.18.0.2:4000 > 10.99.1.1:53 out',
  ])('reads %s', (text) => {
    const spec = parsePacketSpec(text);
    expect('error' in spec ? spec.error : formatPacketSpec(spec)).toBe(text);
  });

  it.each([
    ['sctp 1.2.3.4:1 > 5.6.7.8:2 in eth0', "'sctp' is not tcp, udp or icmp"],
    ['tcp 1.2.3.4 > 5.6.7.8:2 in eth0', "'1.2.3.4' needs a port (ADDRESS:PORT)"],
    ['tcp 1.2.3.400:1 > 5.6.7.8:2 in eth0', "'1.2.3.400' is not an IPv4 address"],
    ['udp 1.2.3.4:70000 > 5.6.7.8:2 in eth0', "'70000' is not a port (0-65535)"],
    ['tcp 1.2.3.4:1 5.6.7.8:2 in eth0', 'expected'],
    ['tcp 1.2.3.4:1 > 5.6.7.8:2 in', 'expected'],
    ['tcp 1.2.3.4:1 > 5.6.7.8:2 out eth0', 'expected'],
    ['', "'' is not tcp, udp or icmp"],
  ])('refuses %s', (text, error) => {
    const spec = parsePacketSpec(text);
    expect('error' in spec ? spec.error : '').toContain(error);
  });
});

describe('tracing a packet through the node', () => {
  it('a NodePort SYN: marked by iptables and nft, DNATed, routed by its mark through table 100', () => {
    const report = trace('tcp 203.0.113.7:5555 > 172.18.0.2:30080 in eth0');
    expect(report.error).toBeUndefined();
    expect(report.verdict).toEqual([
      'sent on vethpod to 0a:58:0a:f4:01:09: 203.0.113.7:5555->10.244.1.5:8080(tcp)',
    ]);
    // nft monitor trace as nft prints it: the mark after each policy once it is set.
    expect(report.monitor).toContain(
      'trace id ID ip mangle PREROUTING rule tcp dport 30080 counter packets 0 bytes 0 meta mark set mark or 0x4000 (verdict continue)',
    );
    expect(report.monitor).toContain('trace id ID inet mine pre policy accept meta mark 0x00004200 ');
    expect(report.monitor).toContain(
      'trace id ID ip nat PREROUTING rule ip daddr 172.18.0.2 tcp dport 30080 counter packets 0 bytes 0 dnat to 10.244.1.5:8080 (verdict accept)',
    );
    expect(report.monitor.at(-1)).toBe('trace id ID ip nat POSTROUTING policy accept meta mark 0x00004200 ');
    // The path with the mark at every step: 0 on arrival, 0x4200 once routed.
    expect(report.path).toEqual([
      '0.000000000 eth0        netif_receive_skb      203.0.113.7:5555->172.18.0.2:30080(tcp)',
      '0.000000000 eth0        ip_rcv                 203.0.113.7:5555->172.18.0.2:30080(tcp) mark 0x00000000',
      '0.000000000 eth0        ip_route_input         203.0.113.7:5555->10.244.1.5:8080(tcp) unicast mark 0x00004200',
      '0.000000000 br0         ip_forward             203.0.113.7:5555->10.244.1.5:8080(tcp) ttl 63 mark 0x00004200',
      '0.000000000 br0         dev_queue_xmit         203.0.113.7:5555->10.244.1.5:8080(tcp)',
      '0.000000000 br0         br_flood               203.0.113.7:5555->10.244.1.5:8080(tcp) br0 mark 0x00004200',
      '0.000000000 vethpod     dev_queue_xmit         203.0.113.7:5555->10.244.1.5:8080(tcp)',
    ]);
    expect(report.counters).toContain(
      'iptables nat: [1:40] -A PREROUTING -d 172.18.0.2/32 -p tcp -m tcp --dport 30080 -j DNAT --to-destination 10.244.1.5:8080',
    );
    expect(report.counters).toContain(
      'inet mine forward_check: ip daddr 10.244.1.5 counter packets 1 bytes 40',
    );
  });

  it('a pod to the Internet: FORWARD drops it (its source is not in the ipset)', () => {
    const report = trace('tcp 10.244.1.5:40000 > 8.8.8.8:443 in vethpod');
    expect(report.verdict).toEqual(['dropped on br0: NETFILTER_DROP (10.244.1.5:40000->8.8.8.8:443(tcp))']);
    expect(report.monitor.at(-1)).toBe('trace id ID ip filter FORWARD policy drop ');
    // Sent to the bridge's address, as a pod sends to its gateway.
    expect(report.monitor[0]).toContain('ether daddr 02:00:0a:f4:01:01');
    expect(report.counters).toEqual([
      'iptables mangle: :PREROUTING ACCEPT [1:40]',
      'iptables filter: :FORWARD DROP [1:40]',
      'iptables nat: :PREROUTING ACCEPT [1:40]',
    ]);
  });

  it('a SYN to a port nobody listens on: delivered, answered with a reset, freed as NO_SOCKET', () => {
    const report = trace('tcp 1.2.3.4:1 > 172.18.0.2:22 in eth0');
    expect(report.verdict).toEqual([
      'delivered to the node itself (ip_local_deliver): 1.2.3.4:1->172.18.0.2:22(tcp)',
      'sent on eth0 to 02:42:ac:12:00:01: 172.18.0.2:22->1.2.3.4:1(tcp)',
      'dropped on eth0: NO_SOCKET (1.2.3.4:1->172.18.0.2:22(tcp))',
    ]);
  });

  it('a local process: OUTPUT, the route, POSTROUTING', () => {
    const report = trace('udp 172.18.0.2:4000 > 10.99.1.1:53 out');
    expect(report.verdict).toEqual(['sent on eth0 to 02:42:ac:12:00:01: 172.18.0.2:4000->10.99.1.1:53(udp)']);
    expect(report.monitor[0]).toBe(
      'trace id ID ip packetlab_trace output packet: oif "eth0" ip saddr 172.18.0.2 ip daddr 10.99.1.1 ip dscp cs0 ip ecn not-ect ip ttl 64 ip id 0 ip length 36 udp sport 4000 udp dport 53 udp length 16 @th,64,64 0x7061636b65746c62 ',
    );
    expect(report.counters).toEqual(['iptables nat: :POSTROUTING ACCEPT [1:36]']);
  });

  it.each([
    ['tcp 1.2.3.4:1 > 172.18.0.2:22 in eth9', 'the node has no interface eth9'],
    [
      'tcp 1.2.3.4:1 > 172.18.0.2:22 in br0',
      "br0 is a bridge: name the interface the packet arrives on (a NIC, a veth, a bridge's port)",
    ],
    ['tcp 1.2.3.4:1 > 172.18.0.2:22 in lo', 'lo is a loopback: name the interface'],
  ])('says why it cannot send %s', (packet, error) => {
    expect(trace(packet).error).toContain(error);
  });

  it('prints the trace table, the monitor, the path, the verdict and the counters', () => {
    const packet = 'tcp 10.244.1.5:40000 > 8.8.8.8:443 in vethpod';
    const lines = formatTrace(packet, trace(packet));
    expect(lines.slice(0, 8)).toEqual([
      `# trace: ${packet}`,
      '# nftrace set by this table (load it on the node too to compare with `nft monitor trace`):',
      '#   table ip packetlab_trace {',
      '#   \tchain prerouting {',
      '#   \t\ttype filter hook prerouting priority -301; policy accept;',
      '#   \t\tip saddr 10.244.1.5 ip daddr 8.8.8.8 tcp sport 40000 tcp dport 443 meta nftrace set 1',
      '#   \t}',
      '#   }',
    ]);
    for (const heading of [
      '$ nft monitor trace',
      '# path trace (node namespace, skb->mark at each step)',
      '# verdict',
      '# counters that moved',
    ])
      expect(lines).toContain(heading);
  });
});

describe('bad input: a mutated snapshot', () => {
  const lines = FIXTURE.split('\n');
  type Mutation =
    | { readonly kind: 'delete' | 'duplicate'; readonly at: number }
    | { readonly kind: 'truncate'; readonly at: number }
    | { readonly kind: 'replace'; readonly at: number; readonly text: string };
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    fc.record({ kind: fc.constantFrom('delete' as const, 'duplicate' as const), at: fc.nat(lines.length) }),
    fc.record({ kind: fc.constant('truncate' as const), at: fc.nat(FIXTURE.length) }),
    fc.record({
      kind: fc.constant('replace' as const),
      at: fc.nat(FIXTURE.length),
      text: fc.string({ maxLength: 4 }),
    }),
  );
  /** Deletes or duplicates a line, cuts the file, or replaces one character by up to four. */
  const mutate = (text: string, steps: readonly Mutation[]): string => {
    let out = text;
    for (const step of steps) {
      if (step.kind === 'truncate') out = out.slice(0, step.at);
      else if (step.kind === 'replace') out = `${out.slice(0, step.at)}${step.text}${out.slice(step.at + 1)}`;
      else {
        const current = out.split('\n');
        const at = step.at % Math.max(1, current.length);
        if (step.kind === 'delete') current.splice(at, 1);
        else current.splice(at, 0, current[at] ?? '');
        out = current.join('\n');
      }
    }
    return out;
  };

  it('never throws: reading, rebuilding and tracing give problems, not exceptions', () => {
    const spec = parsePacketSpec('tcp 203.0.113.7:5555 > 172.18.0.2:30080 in eth0');
    if ('error' in spec) throw new Error(spec.error);
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), (steps) => {
        const text = mutate(FIXTURE, steps);
        const snapshot = loadSnapshot(text);
        const rebuilt = rebuildNode(snapshot);
        tracePacket(rebuilt, spec);
        // A changed file either reads the same or names a line within it.
        for (const problem of snapshot.problems)
          expect(problem.line).toBeLessThanOrEqual(text.split('\n').length + 1);
      }),
      { numRuns: 60, seed: 12 },
    );
  });
});
