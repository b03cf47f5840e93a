// ICMP tracking: echo by identifier, errors RELATED to the connection they quote, and what is refused.

import { describe, expect, it } from 'vitest';
import {
  Conntrack,
  CT_STATE_RELATED,
  ctStateBits,
  ctStateName,
  IP_CT_RELATED,
  IP_CT_RELATED_REPLY,
} from '../../../src/netfilter/conntrack/conntrack.ts';
import { icmpTuple } from '../../../src/netfilter/conntrack/tuple.ts';
import { icmp } from '../../support/frames.ts';
import { echoPacket, icmpErrorPacket, ip, packetOf, tcpPacket, udpPacket } from '../../support/packets.ts';
import { at, summary, trip } from './harness.ts';

describe('ICMP tracker', () => {
  it('tracks an echo request and its reply for 30 s, never ASSURED', () => {
    const ct = new Conntrack();
    const request = echoPacket('10.0.0.1', '10.0.0.2', 23009, 1);
    trip(ct, request, 0);
    expect(summary(ct, request, request.ctIndex, 0)).toBe('NEW - 30 UNREPLIED');
    const reply = echoPacket('10.0.0.2', '10.0.0.1', 23009, 1, true);
    trip(ct, reply, at(0.0002));
    expect(summary(ct, reply, reply.ctIndex, at(0.0002))).toBe('ESTABLISHED - 30 SEEN_REPLY');
    expect(reply.ctIndex).toBe(request.ctIndex);
    expect(reply.ctReply).toBe(true);
    expect(ct.tuple(request.ctIndex, 1)).toEqual(icmpTuple(ip('10.0.0.2'), ip('10.0.0.1'), 0, 0, 23009));
    // A second request with the same id is the same connection.
    const again = echoPacket('10.0.0.1', '10.0.0.2', 23009, 2);
    trip(ct, again, at(1));
    expect(ctStateName(again)).toBe('ESTABLISHED');
    expect(ct.count).toBe(1);
  });

  it('refuses an echo reply nobody asked for, and types without a reply partner', () => {
    const ct = new Conntrack();
    const reply = echoPacket('10.0.0.2', '10.0.0.1', 7, 1, true);
    trip(ct, reply, 0);
    expect(ctStateName(reply)).toBe('INVALID');
    const advert = packetOf(
      icmp(
        { src: ip('10.0.0.254'), dst: ip('10.0.0.1') },
        { kind: 'other', type: 9, code: 0, restOfHeader: 0, data: new Uint8Array(8) },
      ),
    );
    trip(ct, advert, 0);
    expect(ctStateName(advert)).toBe('INVALID');
    expect(ct.count).toBe(0);
    expect(ct.stats.invalid).toBe(2);
  });

  it('relates a port unreachable to the UDP flow it quotes, creating no entry', () => {
    const ct = new Conntrack();
    const datagram = udpPacket('10.0.0.1:42000', '10.0.0.2:9999');
    trip(ct, datagram, 0, 'OUTPUT');
    const error = icmpErrorPacket('10.0.0.2', '10.0.0.1', 'port-unreachable', datagram);
    trip(ct, error, at(0.0001));
    expect(ctStateName(error)).toBe('RELATED');
    expect(ctStateBits(error)).toBe(CT_STATE_RELATED);
    expect(error.ctIndex).toBe(datagram.ctIndex);
    expect(error.ctInfo).toBe(IP_CT_RELATED_REPLY);
    expect(ct.count).toBe(1);
    // The flow stays unreplied and its timeout is not refreshed by the error.
    expect(summary(ct, datagram, datagram.ctIndex, at(0.5))).toBe('NEW - 29 UNREPLIED');
  });

  it('relates a fragmentation-needed from a router on the path (PMTU discovery)', () => {
    const ct = new Conntrack();
    const syn = tcpPacket({ src: '10.244.1.5:41234', dst: '10.244.2.7:8000', seq: 1, flags: 'S' });
    trip(ct, syn, 0);
    const synack = tcpPacket({
      src: '10.244.2.7:8000',
      dst: '10.244.1.5:41234',
      seq: 9,
      ack: 2,
      flags: 'SA',
    });
    trip(ct, synack, 0);
    const big = tcpPacket({
      src: '10.244.1.5:41234',
      dst: '10.244.2.7:8000',
      seq: 2,
      ack: 10,
      flags: 'PA',
      payloadLen: 1460,
    });
    const error = icmpErrorPacket('10.244.1.1', '10.244.1.5', 'frag-needed', big);
    trip(ct, error, 0);
    expect(ctStateName(error)).toBe('RELATED');
    expect(error.ctInfo).toBe(IP_CT_RELATED_REPLY);
    // The same error travelling the original way (towards the server) is RELATED, not reply.
    const forward = icmpErrorPacket('10.244.2.1', '10.244.2.7', 'ttl-exceeded', synack);
    trip(ct, forward, 0);
    expect(forward.ctInfo).toBe(IP_CT_RELATED);
  });

  it('relates a TTL exceeded to the ping it quotes', () => {
    const ct = new Conntrack();
    const request = echoPacket('10.0.0.1', '10.9.9.9', 99, 1);
    trip(ct, request, 0);
    const error = icmpErrorPacket('10.0.0.254', '10.0.0.1', 'ttl-exceeded', request);
    trip(ct, error, 0);
    expect(ctStateName(error)).toBe('RELATED');
    expect(error.ctIndex).toBe(request.ctIndex);
  });

  it('counts an error about no known connection, or with a forged outer destination, as error', () => {
    const ct = new Conntrack();
    const stray = icmpErrorPacket(
      '10.0.0.2',
      '10.0.0.1',
      'port-unreachable',
      udpPacket('10.0.0.1:1', '10.0.0.2:2'),
    );
    trip(ct, stray, 0);
    expect(ctStateName(stray)).toBe('INVALID');
    expect(ct.stats.error).toBe(1);

    const datagram = udpPacket('10.0.0.1:42000', '10.0.0.2:9999');
    trip(ct, datagram, 0);
    const forged = icmpErrorPacket('10.0.0.2', '10.0.0.77', 'port-unreachable', datagram);
    trip(ct, forged, 0);
    expect(ctStateName(forged)).toBe('INVALID');
    expect(ct.stats.error).toBe(2);
    expect(ct.stats.invalid).toBe(0);
  });
});
