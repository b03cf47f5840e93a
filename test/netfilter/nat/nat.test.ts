// Binding and rewriting: SNAT, MASQUERADE, DNAT, REDIRECT and null bindings on a router, packet by packet, with every checksum checked through the wire views.

import { describe, expect, it } from 'vitest';
import {
  DIR_REPLY,
  IPS_DST_NAT,
  IPS_DST_NAT_DONE,
  IPS_SRC_NAT,
  IPS_SRC_NAT_DONE,
} from '../../../src/netfilter/conntrack/table.ts';
import { createTuple } from '../../../src/netfilter/conntrack/tuple.ts';
import { udp } from '../../support/frames.ts';
import { echoPacket, ip, packetOf, tcpPacket, udpPacket } from '../../support/packets.ts';
import {
  addr,
  badChecksums,
  datagram,
  dnat,
  flow,
  forward,
  lab,
  masquerade,
  natHook,
  redirect,
  SEC,
  snat,
} from './harness.ts';

const syn = (src: string, dst: string) => tcpPacket({ src, dst, seq: 1000, flags: 'S' });
const synAck = (src: string, dst: string) => tcpPacket({ src, dst, seq: 5000, ack: 1001, flags: 'SA' });

function replyTuple(l: ReturnType<typeof lab>, index: number): string {
  const t = l.ct.tuple(index, DIR_REPLY, createTuple());
  return `${addr(t.src)}:${t.srcPort} > ${addr(t.dst)}:${t.dstPort}`;
}

describe('SNAT', () => {
  it('keeps the source port when it is free and rewrites only the source', () => {
    const l = lab();
    const pkt = syn('10.0.0.2:40000', '1.1.1.1:80');
    expect(forward(l, pkt, { postrouting: snat('192.168.1.1') })).toBe('accept');
    expect(flow(pkt)).toBe('192.168.1.1:40000 > 1.1.1.1:80');
    expect(badChecksums(datagram(pkt))).toEqual([]);
    const index = pkt.ctIndex;
    expect(l.ct.status(index) & (IPS_SRC_NAT | IPS_SRC_NAT_DONE | IPS_DST_NAT | IPS_DST_NAT_DONE)).toBe(
      IPS_SRC_NAT | IPS_SRC_NAT_DONE | IPS_DST_NAT_DONE,
    );
    expect(replyTuple(l, index)).toBe('1.1.1.1:80 > 192.168.1.1:40000');

    // The reply is un-NATed at PREROUTING: back to the client.
    const reply = synAck('1.1.1.1:80', '192.168.1.1:40000');
    expect(forward(l, reply)).toBe('accept');
    expect(flow(reply)).toBe('1.1.1.1:80 > 10.0.0.2:40000');
    expect(badChecksums(datagram(reply))).toEqual([]);
  });

  it('picks another port when the kept one is taken, from a random offset in 1024-65535', () => {
    const l = lab('lesson');
    const first = syn('10.0.0.3:40000', '1.1.1.1:80');
    expect(forward(l, first, { postrouting: snat('192.168.1.1') })).toBe('accept');
    const second = syn('10.0.0.2:40000', '1.1.1.1:80');
    expect(forward(l, second, { postrouting: snat('192.168.1.1') })).toBe('accept');
    expect(flow(first)).toBe('192.168.1.1:40000 > 1.1.1.1:80');
    expect(flow(second)).toBe('192.168.1.1:7354 > 1.1.1.1:80');
    expect(badChecksums(datagram(second))).toEqual([]);
  });

  it('keeps a port below 1024 in its class: 1-511, 600-1023', () => {
    const l = lab();
    for (const [sport, low, high] of [
      [80, 1, 511],
      [700, 600, 1023],
    ] as const) {
      forward(l, syn(`10.0.0.3:${sport}`, '1.1.1.1:80'), { postrouting: snat('192.168.1.1') });
      const pkt = syn(`10.0.0.2:${sport}`, '1.1.1.1:80');
      expect(forward(l, pkt, { postrouting: snat('192.168.1.1') })).toBe('accept');
      const port = Number(flow(pkt).split(' ')[0]!.split(':')[1]);
      expect(port).toBeGreaterThanOrEqual(low);
      expect(port).toBeLessThanOrEqual(high);
      expect(port).not.toBe(sport);
    }
  });

  it('with --random-fully does not keep even a free port', () => {
    const l2 = lab();
    const pkt2 = syn('10.0.0.2:40000', '1.1.1.1:80');
    expect(forward(l2, pkt2, { postrouting: snat('192.168.1.1', { fullyRandom: true }) })).toBe('accept');
    expect(flow(pkt2)).toBe('192.168.1.1:12602 > 1.1.1.1:80');
  });

  it('picks the address of a range by jhash2 of (source, destination); --persistent by source only', () => {
    const picks: string[] = [];
    const persistent: string[] = [];
    for (const dst of ['1.1.1.1', '8.8.8.8', '9.9.9.9']) {
      const l = lab();
      const pkt = syn('10.0.0.2:40000', `${dst}:80`);
      forward(l, pkt, { postrouting: snat('192.168.1.10-192.168.1.13') });
      picks.push(flow(pkt).split(':')[0]!);
      const lp = lab();
      const pp = syn('10.0.0.2:40000', `${dst}:80`);
      forward(lp, pp, { postrouting: snat('192.168.1.10-192.168.1.13', { persistent: true }) });
      persistent.push(flow(pp).split(':')[0]!);
    }
    // Recorded on Linux 6.18 (nft snat to 192.168.1.10-192.168.1.13 [persistent], one UDP flow per destination).
    expect(picks).toEqual(['192.168.1.13', '192.168.1.11', '192.168.1.12']);
    expect(persistent).toEqual(['192.168.1.13', '192.168.1.13', '192.168.1.13']);
  });
});

describe('MASQUERADE', () => {
  it('gives the second of two sources with the same port a port from a random offset (seed "lesson")', () => {
    const l = lab('lesson');
    l.host.masquerade.set(2, ip('192.168.1.1'));
    const a = syn('10.244.1.5:41000', '93.184.216.34:443');
    const b = syn('10.244.2.7:41000', '93.184.216.34:443');
    expect(forward(l, a, { postrouting: masquerade() })).toBe('accept');
    expect(forward(l, b, { postrouting: masquerade() })).toBe('accept');
    expect(flow(a)).toBe('192.168.1.1:41000 > 93.184.216.34:443');
    expect(flow(b)).toBe('192.168.1.1:7354 > 93.184.216.34:443');
    expect(badChecksums(datagram(b))).toEqual([]);
    // Same seed, same port.
    const again = lab('lesson');
    again.host.masquerade.set(2, ip('192.168.1.1'));
    forward(again, syn('10.244.1.5:41000', '93.184.216.34:443'), { postrouting: masquerade() });
    const b2 = syn('10.244.2.7:41000', '93.184.216.34:443');
    forward(again, b2, { postrouting: masquerade() });
    expect(flow(b2)).toBe(flow(b));
  });

  it('reuses a source mapping for another destination (find_appropriate_src)', () => {
    const l = lab('lesson');
    l.host.masquerade.set(2, ip('192.168.1.1'));
    forward(l, syn('10.244.1.5:41000', '93.184.216.34:443'), { postrouting: masquerade() });
    const b = syn('10.244.2.7:41000', '93.184.216.34:443');
    forward(l, b, { postrouting: masquerade() });
    const mapped = flow(b).split(' ')[0];
    const c = syn('10.244.2.7:41000', '1.1.1.1:53');
    forward(l, c, { postrouting: masquerade() });
    // 192.168.1.1:41000 > 1.1.1.1:53 would be free, but the source keeps its mapping.
    expect(flow(c)).toBe(`${mapped} > 1.1.1.1:53`);
  });

  it('forgets a mapping once its connections are gone', () => {
    const l = lab('lesson');
    l.host.masquerade.set(2, ip('192.168.1.1'));
    forward(l, syn('10.244.1.5:41000', '93.184.216.34:443'), { postrouting: masquerade() });
    const b = syn('10.244.2.7:41000', '93.184.216.34:443');
    forward(l, b, { postrouting: masquerade() });
    expect(flow(b)).toBe('192.168.1.1:7354 > 93.184.216.34:443');
    expect(l.nat.bySource.size).toBe(2);
    expect(l.ct.delete(b.ctIndex, 0)).toBe(true);
    l.host.clock = SEC;
    const c = syn('10.244.2.7:41000', '1.1.1.1:53');
    forward(l, c, { postrouting: masquerade() });
    // The dead mapping is unlinked on the walk; 41000 is free toward 1.1.1.1:53.
    expect(flow(c)).toBe('192.168.1.1:41000 > 1.1.1.1:53');
    expect(l.nat.bySource.size).toBe(2);
  });

  it('drops when the egress device has no address, and says so', () => {
    const l = lab();
    const pkt = syn('10.0.0.2:40000', '1.1.1.1:80');
    expect(forward(l, pkt, { postrouting: masquerade(), oif: 3 })).toBe('nat-drop');
    expect(l.host.logs).toEqual(['eth3 ate my IP address']);
  });
});

describe('DNAT', () => {
  it('rewrites the destination of the original direction and un-NATs the reply to the Service address', () => {
    const l = lab();
    const rule = dnat('10.244.1.9:8000');
    const request = syn('10.0.0.2:40000', '10.96.0.10:80');
    expect(forward(l, request, { prerouting: rule })).toBe('accept');
    expect(flow(request)).toBe('10.0.0.2:40000 > 10.244.1.9:8000');
    expect(badChecksums(datagram(request))).toEqual([]);
    expect(replyTuple(l, request.ctIndex)).toBe('10.244.1.9:8000 > 10.0.0.2:40000');

    const reply = synAck('10.244.1.9:8000', '10.0.0.2:40000');
    expect(forward(l, reply, { prerouting: rule })).toBe('accept');
    expect(flow(reply)).toBe('10.96.0.10:80 > 10.0.0.2:40000');
    expect(badChecksums(datagram(reply))).toEqual([]);

    const ack = tcpPacket({ src: '10.0.0.2:40000', dst: '10.96.0.10:80', seq: 1001, ack: 5001, flags: 'A' });
    expect(forward(l, ack, { prerouting: rule })).toBe('accept');
    expect(flow(ack)).toBe('10.0.0.2:40000 > 10.244.1.9:8000');
    expect(badChecksums(datagram(ack))).toEqual([]);
  });

  // Recorded on Linux 6.18 with `udp dport 80 dnat to 172.16.0.2:8000-8002` and two Service addresses.
  it('searches a port range from its start (offset 0) when the tuple is taken', () => {
    const l = lab();
    const rule = dnat('10.244.1.9:8000-8002');
    const first = syn('10.0.0.2:40000', '10.96.0.10:80');
    forward(l, first, { prerouting: rule });
    const second = syn('10.0.0.2:40000', '10.96.0.11:80');
    forward(l, second, { prerouting: rule });
    expect(flow(first)).toBe('10.0.0.2:40000 > 10.244.1.9:8000');
    expect(flow(second)).toBe('10.0.0.2:40000 > 10.244.1.9:8001');
  });

  it('does not move the port without a port range: the null binding at POSTROUTING moves the source port', () => {
    const l = lab('lesson');
    const first = syn('10.0.0.2:40000', '10.96.0.10:80');
    forward(l, first, { prerouting: dnat('10.244.1.9') });
    const second = syn('10.0.0.2:40000', '10.96.0.11:80');
    expect(forward(l, second, { prerouting: dnat('10.244.1.9') })).toBe('accept');
    expect(flow(first)).toBe('10.0.0.2:40000 > 10.244.1.9:80');
    expect(flow(second)).toBe('10.0.0.2:7354 > 10.244.1.9:80');
    expect(l.ct.status(second.ctIndex) & (IPS_SRC_NAT | IPS_DST_NAT)).toBe(IPS_SRC_NAT | IPS_DST_NAT);
    expect(badChecksums(datagram(second))).toEqual([]);
  });
});

describe('clash at confirm', () => {
  it('keeps a single SNAT port even when taken, and the packet dies at confirm (insert_failed)', () => {
    const l = lab();
    expect(forward(l, syn('10.0.0.3:40000', '1.1.1.1:80'), { postrouting: snat('192.168.1.1:5000') })).toBe(
      'accept',
    );
    const second = syn('10.0.0.2:40000', '1.1.1.1:80');
    expect(forward(l, second, { postrouting: snat('192.168.1.1:5000') })).toBe('CONNTRACK_INSERT_FAILED');
    expect(l.ct.stats.insert_failed).toBe(1);
    expect(second.ctIndex).toBe(-1);
  });
});

describe('REDIRECT', () => {
  it('sends a received packet to the primary address of its incoming device', () => {
    const l = lab();
    l.host.primary.set(1, ip('10.0.0.1'));
    const pkt = syn('10.0.0.2:40000', '1.1.1.1:80');
    expect(forward(l, pkt, { prerouting: redirect(':3128'), iif: 1 })).toBe('accept');
    expect(flow(pkt)).toBe('10.0.0.2:40000 > 10.0.0.1:3128');
    expect(badChecksums(datagram(pkt))).toEqual([]);
    const reply = synAck('10.0.0.1:3128', '10.0.0.2:40000');
    expect(natHook(l, reply, 'postrouting', undefined)).toBe('accept');
  });

  it('sends a locally generated packet to 127.0.0.1', () => {
    const l = lab();
    const pkt = syn('10.0.0.1:40000', '1.1.1.1:80');
    l.ct.process(pkt, 'OUTPUT', 0);
    expect(natHook(l, pkt, 'output', redirect(':8080'))).toBe('accept');
    expect(flow(pkt)).toBe('10.0.0.1:40000 > 127.0.0.1:8080');
    expect(badChecksums(datagram(pkt))).toEqual([]);
  });

  it('drops when the incoming device has no address', () => {
    const l = lab();
    const pkt = syn('10.0.0.2:40000', '1.1.1.1:80');
    expect(forward(l, pkt, { prerouting: redirect(), iif: 5 })).toBe('nat-drop');
  });
});

describe('null binding', () => {
  it('binds both manips without changing anything when the tuple is free', () => {
    const l = lab();
    const pkt = syn('10.0.0.2:40000', '1.1.1.1:80');
    const before = datagram(pkt);
    expect(forward(l, pkt)).toBe('accept');
    expect(datagram(pkt)).toEqual(before);
    expect(l.ct.status(pkt.ctIndex) & (IPS_SRC_NAT | IPS_DST_NAT | IPS_SRC_NAT_DONE | IPS_DST_NAT_DONE)).toBe(
      IPS_SRC_NAT_DONE | IPS_DST_NAT_DONE,
    );
  });

  it("moves the router's own source port when a SNATed connection already holds it", () => {
    const l = lab('lesson');
    forward(l, syn('10.0.0.2:40000', '1.1.1.1:80'), { postrouting: snat('192.168.1.1') });
    // The router itself connects from 192.168.1.1:40000 to the same server.
    const local = syn('192.168.1.1:40000', '1.1.1.1:80');
    l.ct.process(local, 'OUTPUT', 0);
    expect(natHook(l, local, 'output', undefined)).toBe('accept');
    expect(natHook(l, local, 'postrouting', undefined)).toBe('accept');
    expect(l.ct.confirm(local, 0)).toBe('accept');
    expect(flow(local)).toBe('192.168.1.1:7354 > 1.1.1.1:80');
    expect(l.ct.status(local.ctIndex) & IPS_SRC_NAT).toBe(IPS_SRC_NAT);
    expect(badChecksums(datagram(local))).toEqual([]);
  });
});

describe('setup', () => {
  it('drops a second binding of the same manip and leaves a confirmed connection alone', () => {
    const l = lab();
    const pkt = syn('10.0.0.2:40000', '1.1.1.1:80');
    l.ct.process(pkt, 'PREROUTING', 0);
    expect(l.nat.setup(pkt, snat('192.168.1.1'), 'src', 1, 2, 0)).toBe('accept');
    expect(l.nat.setup(pkt, snat('192.168.1.2'), 'src', 1, 2, 0)).toBe('drop');
    l.nat.nullBinding(pkt, 'dst', 0);
    expect(l.ct.confirm(pkt, 0)).toBe('accept');
    const index = pkt.ctIndex;
    const reply = replyTuple(l, index);
    const again = syn('10.0.0.2:40000', '1.1.1.1:80');
    l.ct.process(again, 'PREROUTING', 0);
    expect(again.ctIndex).toBe(index);
    expect(l.nat.setup(again, dnat('10.9.9.9'), 'dst', 1, 2, 0)).toBe('accept');
    expect(replyTuple(l, index)).toBe(reply);
  });
});

describe('UDP and ICMP', () => {
  it('leaves a zero UDP checksum zero and keeps a real one valid', () => {
    const l = lab();
    const none = packetOf(
      udp({
        src: ip('10.0.0.2'),
        dst: ip('1.1.1.1'),
        srcPort: 5353,
        dstPort: 53,
        payload: new Uint8Array(12),
        checksum: false,
      }),
    );
    forward(l, none, { postrouting: snat('192.168.1.1:2000') });
    expect(flow(none)).toBe('192.168.1.1:2000 > 1.1.1.1:53');
    const bytes = datagram(none);
    expect((bytes[26]! << 8) | bytes[27]!).toBe(0);
    const sum = udpPacket('10.0.0.3:5353', '1.1.1.1:53');
    forward(l, sum, { postrouting: snat('192.168.1.1:2000-2001') });
    expect(flow(sum)).toBe('192.168.1.1:2001 > 1.1.1.1:53');
    expect(badChecksums(datagram(sum))).toEqual([]);
  });

  it('moves a clashing ICMP echo id and translates the reply back', () => {
    const l = lab('lesson');
    l.host.masquerade.set(2, ip('192.168.1.1'));
    const a = echoPacket('10.0.0.3', '1.1.1.1', 7, 1);
    const b = echoPacket('10.0.0.2', '1.1.1.1', 7, 1);
    forward(l, a, { postrouting: masquerade() });
    forward(l, b, { postrouting: masquerade() });
    expect(flow(a)).toBe('192.168.1.1 > 1.1.1.1 icmp 8 id 7');
    expect(flow(b)).toBe('192.168.1.1 > 1.1.1.1 icmp 8 id 6330');
    expect(badChecksums(datagram(b))).toEqual([]);
    const id = Number(flow(b).split(' ').at(-1));
    const reply = echoPacket('1.1.1.1', '192.168.1.1', id, 1, true);
    expect(forward(l, reply)).toBe('accept');
    expect(flow(reply)).toBe('1.1.1.1 > 10.0.0.2 icmp 0 id 7');
    expect(badChecksums(datagram(reply))).toEqual([]);
  });
});
