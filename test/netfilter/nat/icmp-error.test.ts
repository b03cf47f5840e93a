// ICMP errors from beyond a NAT router (nf_nat_icmp_reply_translation): the quoted datagram is translated back to the bytes its sender sent, the outer header follows the connection, and every checksum stays valid.

import { describe, expect, it } from 'vitest';
import type { Packet } from '../../../src/core/packet.ts';
import { internetChecksum } from '../../../src/wire/checksum.ts';
import { echoPacket, icmpErrorPacket, ip, packetOf, tcpPacket } from '../../support/packets.ts';
import { badChecksums, datagram, dnat, flow, forward, lab, masquerade, natHook, snat } from './harness.ts';

const IPV4_HEADER = 20;
const ICMP_HEADER = 8;
/** What the error quotes, as a view of its bytes. */
function quoted(pkt: Packet): Uint8Array {
  return datagram(pkt).subarray(IPV4_HEADER + ICMP_HEADER);
}

describe('ICMP errors through NAT', () => {
  it('frag-needed from beyond a SNAT reaches the client quoting exactly what it sent', () => {
    const l = lab();
    const rule = snat('192.168.1.1');
    forward(l, tcpPacket({ src: '10.0.0.2:40000', dst: '1.1.1.1:80', seq: 1000, flags: 'S' }), {
      postrouting: rule,
    });
    forward(l, tcpPacket({ src: '1.1.1.1:80', dst: '192.168.1.1:40000', seq: 5000, ack: 1001, flags: 'SA' }));
    const data = tcpPacket({
      src: '10.0.0.2:40000',
      dst: '1.1.1.1:80',
      seq: 1001,
      ack: 5001,
      flags: 'PA',
      payloadLen: 1400,
    });
    const sent = datagram(data);
    expect(forward(l, data, { postrouting: rule })).toBe('accept');
    expect(flow(data)).toBe('192.168.1.1:40000 > 1.1.1.1:80');

    // A hop beyond the router cannot forward 1440 bytes with DF set.
    const error = icmpErrorPacket('5.5.5.5', '192.168.1.1', 'frag-needed', data);
    expect(forward(l, error)).toBe('accept');
    expect(error.ctInfo).toBe(4); // IP_CT_RELATED_REPLY
    expect(flow(error)).toBe('5.5.5.5 > 10.0.0.2 icmp 3 id 0');
    const quote = quoted(error);
    expect(quote).toEqual(sent.subarray(0, quote.length));
    expect(badChecksums(datagram(error))).toEqual([]);
  });

  it('a whole quoted segment keeps a valid TCP checksum', () => {
    const l = lab();
    const syn = tcpPacket({ src: '10.0.0.2:40000', dst: '1.1.1.1:80', seq: 1000, flags: 'S' });
    const sent = datagram(syn);
    forward(l, syn, { postrouting: snat('192.168.1.1:2000') });
    const error = icmpErrorPacket('5.5.5.5', '192.168.1.1', 'port-unreachable', syn);
    expect(forward(l, error)).toBe('accept');
    expect(quoted(error)).toEqual(sent);
    expect(badChecksums(datagram(error))).toEqual([]);
  });

  it('frag-needed from behind a DNAT reaches the client from the Service address', () => {
    const l = lab();
    const rule = dnat('10.244.1.9:8000');
    const syn = tcpPacket({
      src: '10.0.0.2:40000',
      dst: '10.96.0.10:80',
      seq: 1000,
      flags: 'S',
      payloadLen: 1200,
    });
    const sent = datagram(syn);
    expect(forward(l, syn, { prerouting: rule })).toBe('accept');
    expect(flow(syn)).toBe('10.0.0.2:40000 > 10.244.1.9:8000');

    // The node's bridge toward the pod returns the error to the client.
    const error = icmpErrorPacket('10.244.1.1', '10.0.0.2', 'frag-needed', syn);
    expect(forward(l, error, { prerouting: rule })).toBe('accept');
    // PREROUTING leaves it (no DST_NAT in the reply direction); POSTROUTING translates it.
    expect(flow(error)).toBe('10.96.0.10 > 10.0.0.2 icmp 3 id 0');
    const quote = quoted(error);
    expect(quote).toEqual(sent.subarray(0, quote.length));
    expect(badChecksums(datagram(error))).toEqual([]);
  });

  it('time-exceeded for a masqueraded ping quotes the echo with its own id again', () => {
    const l = lab('lesson');
    l.host.masquerade.set(2, ip('192.168.1.1'));
    forward(l, echoPacket('10.0.0.3', '1.1.1.1', 7, 1), { postrouting: masquerade() });
    const ping = echoPacket('10.0.0.2', '1.1.1.1', 7, 1);
    const sent = datagram(ping);
    forward(l, ping, { postrouting: masquerade() });
    expect(flow(ping)).toBe('192.168.1.1 > 1.1.1.1 icmp 8 id 6330');
    const error = icmpErrorPacket('5.5.5.5', '192.168.1.1', 'ttl-exceeded', ping);
    expect(forward(l, error)).toBe('accept');
    expect(flow(error)).toBe('5.5.5.5 > 10.0.0.2 icmp 11 id 0');
    expect(quoted(error)).toEqual(sent);
    expect(badChecksums(datagram(error))).toEqual([]);
  });

  it('drops a redirect about a NATed connection', () => {
    const l = lab();
    const syn = tcpPacket({ src: '10.0.0.2:40000', dst: '1.1.1.1:80', seq: 1000, flags: 'S' });
    forward(l, syn, { postrouting: snat('192.168.1.1') });
    const bytes = datagram(icmpErrorPacket('5.5.5.5', '192.168.1.1', 'port-unreachable', syn));
    bytes[IPV4_HEADER] = 5; // ICMP redirect
    bytes[IPV4_HEADER + 1] = 1;
    bytes[IPV4_HEADER + 2] = 0;
    bytes[IPV4_HEADER + 3] = 0;
    const sum = internetChecksum(bytes, IPV4_HEADER, bytes.length);
    bytes[IPV4_HEADER + 2] = sum >>> 8;
    bytes[IPV4_HEADER + 3] = sum & 0xff;
    const redirect = packetOf(bytes);
    l.ct.process(redirect, 'PREROUTING', 0);
    expect(redirect.ctInfo).toBe(4);
    expect(natHook(l, redirect, 'prerouting', undefined)).toBe('drop');
  });
});
