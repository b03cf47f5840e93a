// __nf_conntrack_confirm: insertion, clashes (insert_failed, UDP's allow_clash), events, and the API NAT will use.

import { describe, expect, it } from 'vitest';
import {
  Conntrack,
  ctStateName,
  IP_CT_NEW,
  resetConntrack,
  setUntracked,
} from '../../../src/netfilter/conntrack/conntrack.ts';
import {
  DIR_ORIGINAL,
  DIR_REPLY,
  IPS_DST_NAT,
  IPS_DST_NAT_DONE,
  IPS_NAT_CLASH,
  IPS_SRC_NAT,
  IPS_SRC_NAT_DONE,
} from '../../../src/netfilter/conntrack/table.ts';
import { makeTuple } from '../../../src/netfilter/conntrack/tuple.ts';
import { ip, tcpPacket, udpPacket } from '../../support/packets.ts';
import { at, trip } from './harness.ts';

describe('confirm', () => {
  it('inserts on confirm only: before it, a second packet of the flow creates a second entry', () => {
    const ct = new Conntrack();
    const a = udpPacket('10.0.0.1:1000', '10.0.0.2:53');
    ct.process(a, 'OUTPUT', 0);
    expect(ct.entries(0)).toEqual([]);
    expect(ct.count).toBe(1);
    expect(ct.confirm(a, 0)).toBe('accept');
    expect(ct.entries(0)).toEqual([a.ctIndex]);
  });

  it('drops the loser of a TCP insert race (insert_failed)', () => {
    const ct = new Conntrack();
    const first = tcpPacket({ src: '10.0.0.1:1000', dst: '10.0.0.2:80', seq: 1, flags: 'S' });
    const second = tcpPacket({ src: '10.0.0.1:1000', dst: '10.0.0.2:80', seq: 1, flags: 'S' });
    ct.process(first, 'PREROUTING', 0);
    ct.process(second, 'PREROUTING', 0); // both before either confirm: two CPUs racing
    expect(ct.count).toBe(2);
    expect(ct.confirm(first, 0)).toBe('accept');
    expect(ct.confirm(second, 0)).toBe('CONNTRACK_INSERT_FAILED');
    expect(second.ctIndex).toBe(-1);
    expect(ct.stats.insert_failed).toBe(1);
    expect(ct.stats.drop).toBe(1);
    expect(ct.count).toBe(1);
  });

  it('resolves a UDP race without NAT by adopting the entry already in the table', () => {
    const ct = new Conntrack();
    const first = udpPacket('10.0.0.1:1000', '10.0.0.2:53');
    const second = udpPacket('10.0.0.1:1000', '10.0.0.2:53');
    ct.process(first, 'OUTPUT', 0);
    ct.process(second, 'OUTPUT', 0);
    expect(ct.confirm(first, 0)).toBe('accept');
    expect(ct.confirm(second, 0)).toBe('accept');
    expect(second.ctIndex).toBe(first.ctIndex);
    expect(second.ctInfo).toBe(IP_CT_NEW);
    expect(ct.stats.clash_resolve).toBe(1);
    expect(ct.stats.insert_failed).toBe(0);
    expect(ct.count).toBe(1);
  });

  it('keeps a UDP loser DNATed elsewhere under its reply tuple alone, for 1 s and unlisted (clash_resolve_harder)', () => {
    const ct = new Conntrack();
    const client = ip('10.244.1.5');
    const service = ip('10.96.0.10');
    const first = udpPacket('10.244.1.5:40000', '10.96.0.10:53');
    const second = udpPacket('10.244.1.5:40000', '10.96.0.10:53');
    ct.process(first, 'PREROUTING', 0);
    ct.process(second, 'PREROUTING', 0);
    // Each packet went through DNAT to a different endpoint.
    ct.setReplyTuple(first.ctIndex, makeTuple(ip('10.244.2.7'), client, 17, 53, 40000));
    ct.setStatus(first.ctIndex, IPS_DST_NAT | IPS_DST_NAT_DONE);
    ct.setReplyTuple(second.ctIndex, makeTuple(ip('10.244.3.9'), client, 17, 53, 40000));
    ct.setStatus(second.ctIndex, IPS_DST_NAT | IPS_DST_NAT_DONE);
    const loser = second.ctIndex;
    expect(ct.confirm(first, 0)).toBe('accept');
    expect(ct.confirm(second, 0)).toBe('accept');
    expect(second.ctIndex).toBe(loser);
    expect(ct.hasStatus(loser, IPS_NAT_CLASH)).toBe(true);
    expect(ct.timeoutRemaining(loser, 0)).toBe(1e9);
    expect(ct.entries(0)).toEqual([first.ctIndex]);
    // The endpoint's answer finds the loser; the client's next packet finds the winner.
    const answer = udpPacket('10.244.3.9:53', '10.244.1.5:40000');
    ct.process(answer, 'PREROUTING', at(0.1));
    expect(answer.ctIndex).toBe(loser);
    const next = udpPacket('10.244.1.5:40000', '10.96.0.10:53');
    ct.process(next, 'PREROUTING', at(0.1));
    expect(next.ctIndex).toBe(first.ctIndex);
    expect(ct.hasStatus(loser, 1 << 2)).toBe(false); // never ASSURED
    expect(ct.stats.clash_resolve).toBe(1);
    expect(ct.find(makeTuple(ip('10.244.3.9'), client, 17, 53, 40000), at(1.5))).toBe(-1);
    void service;
  });

  it('fails a UDP insert when SNAT gave two flows the same reply tuple', () => {
    const ct = new Conntrack();
    const node = ip('172.18.0.2');
    const server = ip('8.8.8.8');
    const a = udpPacket('10.244.1.5:40000', '8.8.8.8:53');
    const b = udpPacket('10.244.1.6:40000', '8.8.8.8:53');
    ct.process(a, 'PREROUTING', 0);
    ct.process(b, 'PREROUTING', 0);
    for (const pkt of [a, b]) {
      ct.setReplyTuple(pkt.ctIndex, makeTuple(server, node, 17, 53, 40000));
      ct.setStatus(pkt.ctIndex, IPS_SRC_NAT | IPS_SRC_NAT_DONE);
    }
    expect(ct.confirm(a, 0)).toBe('accept');
    expect(ct.confirm(b, 0)).toBe('CONNTRACK_INSERT_FAILED');
    expect(ct.stats.insert_failed).toBe(1);
  });

  it('confirms nothing for an untracked packet, and ignores a packet already tracked', () => {
    const ct = new Conntrack();
    const pkt = udpPacket('10.0.0.1:1000', '10.0.0.2:53');
    setUntracked(pkt);
    expect(ct.process(pkt, 'OUTPUT', 0)).toBe('accept');
    expect(ctStateName(pkt)).toBe('UNTRACKED');
    expect(ct.confirm(pkt, 0)).toBe('accept');
    expect(ct.count).toBe(0);
    resetConntrack(pkt);
    trip(ct, pkt, 0, 'OUTPUT');
    const index = pkt.ctIndex;
    // Loopback: the same packet comes back in at PREROUTING with its conntrack attached.
    expect(ct.process(pkt, 'PREROUTING', 0)).toBe('accept');
    expect(pkt.ctIndex).toBe(index);
  });
});

describe('events', () => {
  it('delivers one NEW or UPDATE per packet at confirm, and DESTROY on removal', () => {
    const ct = new Conntrack();
    const seen: string[] = [];
    ct.onEvent((type, index) => seen.push(`${type} ${ct.timeoutSeconds(index, 0)}`));
    trip(ct, udpPacket('10.0.0.1:1000', '10.0.0.2:53'), 0);
    trip(ct, udpPacket('10.0.0.2:53', '10.0.0.1:1000'), 0);
    trip(ct, udpPacket('10.0.0.1:1000', '10.0.0.2:53'), 0); // nothing changes: no event
    const index = ct.entries(0)[0]!;
    ct.setMark(index, 0x4000);
    trip(ct, udpPacket('10.0.0.1:1000', '10.0.0.2:53'), 0);
    ct.delete(index, 0);
    expect(seen).toEqual(['NEW 30', 'UPDATE 30', 'UPDATE 30', 'DESTROY 30']);
  });

  it('costs nothing when nobody listens: no event is cached', () => {
    const ct = new Conntrack();
    const pkt = udpPacket('10.0.0.1:1000', '10.0.0.2:53');
    trip(ct, pkt, 0);
    ct.onEvent(() => {
      throw new Error('no stale event may surface');
    });
    trip(ct, udpPacket('10.0.0.1:1000', '10.0.0.2:53'), 0);
  });
});

describe('the NAT interface', () => {
  it('answers nf_conntrack_tuple_taken and nf_nat_used_tuple with one probe each', () => {
    const ct = new Conntrack();
    const pkt = udpPacket('10.244.1.5:40000', '8.8.8.8:53');
    trip(ct, pkt, 0);
    const other = udpPacket('10.244.1.6:40000', '8.8.8.8:53');
    ct.process(other, 'PREROUTING', 0);
    // Would SNAT of `other` to 10.244.1.5:40000 collide? Its reply would be 8.8.8.8:53 -> 10.244.1.5:40000.
    const candidate = makeTuple(ip('10.244.1.5'), ip('8.8.8.8'), 17, 40000, 53);
    expect(ct.isNatTupleUsed(candidate, other.ctIndex, 0)).toBe(true);
    expect(
      ct.isNatTupleUsed(makeTuple(ip('10.244.1.5'), ip('8.8.8.8'), 17, 40001, 53), other.ctIndex, 0),
    ).toBe(false);
    expect(ct.stats.found).toBe(1);
    // The reply tuple as stored.
    expect(ct.tuple(pkt.ctIndex, DIR_REPLY)).toEqual(
      makeTuple(ip('8.8.8.8'), ip('10.244.1.5'), 17, 53, 40000),
    );
    expect(ct.isTupleTaken(ct.tuple(pkt.ctIndex, DIR_ORIGINAL), other.ctIndex, 0)).toBe(true);
    // An entry never takes its own tuple.
    expect(ct.isTupleTaken(ct.tuple(pkt.ctIndex, DIR_ORIGINAL), pkt.ctIndex, 0)).toBe(false);
    // Expired entries do not count.
    expect(ct.isTupleTaken(ct.tuple(pkt.ctIndex, DIR_ORIGINAL), other.ctIndex, at(31))).toBe(false);
  });

  it('refuses to change the reply tuple of a confirmed entry', () => {
    const ct = new Conntrack();
    const pkt = udpPacket('10.0.0.1:1000', '10.0.0.2:53');
    trip(ct, pkt, 0);
    expect(() => ct.setReplyTuple(pkt.ctIndex, makeTuple(1, 2, 17, 3, 4))).toThrow(/confirmed/);
  });
});
