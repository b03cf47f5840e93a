// The dccp match on forwarded DCCP packets (xt_dccp.c: dccp_mt): ports, the packet type's bit (INVALID for types
// 10-15), and an option found between the type's header and the data offset, each with its inversion; iptables'
// counters show which rules saw which packet.

import { describe, expect, it } from 'vitest';
import { internetChecksum } from '../../../src/wire/checksum.ts';
import { iptables, lab, ruleCounters, SEC, sendRaw } from './support.ts';

/** An IPv4 datagram from a (10.0.1.1) to b (10.0.2.1) carrying a DCCP header of `type` with `options` after it. */
function dccp(type: number, dport: number, options: readonly number[] = []): Uint8Array {
  // dccp_packet_hdr_len: REQUEST carries a 4-byte service code, DATA nothing, RESET 12 bytes, the others 8 or 12.
  const typeHeader = type === 0 ? 4 : type === 2 ? 0 : type === 3 || type === 4 ? 8 : 12;
  const headerLength = 12 + 4 + typeHeader + options.length; // X=1: a 48-bit sequence number
  const padded = Math.ceil(headerLength / 4) * 4;
  const datagram = new Uint8Array(20 + padded);
  datagram.set([0x45, 0, datagram.length >> 8, datagram.length & 0xff, 0, 1, 0, 0, 64, 33, 0, 0]);
  datagram.set([10, 0, 1, 1, 10, 0, 2, 1], 12);
  const checksum = internetChecksum(datagram, 0, 20);
  datagram[10] = checksum >> 8;
  datagram[11] = checksum & 0xff;
  const th = 20;
  datagram.set([0x9c, 0x40, dport >> 8, dport & 0xff, padded / 4, 0, 0, 0, (type << 1) | 1], th);
  datagram.set(options, th + 16 + typeHeader);
  return datagram;
}

describe('the dccp match on packets', () => {
  it('matches ports, types and options as dccp_mt does', () => {
    const l = lab('iptables-dccp');
    iptables(
      l.r,
      'iptables -A FORWARD -p dccp --dport 5001',
      'iptables -A FORWARD -p dccp ! --dport 5001',
      'iptables -A FORWARD -p dccp --dccp-types REQUEST,RESPONSE',
      'iptables -A FORWARD -p dccp ! --dccp-types REQUEST',
      'iptables -A FORWARD -p dccp --dccp-types INVALID',
      'iptables -A FORWARD -p dccp --dccp-option 32',
      'iptables -A FORWARD -p dccp ! --dccp-option 32',
    );
    sendRaw(l.a, dccp(0, 5001)); // REQUEST
    sendRaw(l.a, dccp(2, 5002, [1, 32, 3, 0])); // DATA: padding, then option 32 (its length 3)
    sendRaw(l.a, dccp(12, 5001)); // type 12: INVALID
    sendRaw(l.a, dccp(3, 5001, [0, 0, 0, 0])); // ACK with padding only
    l.sim.run(SEC);
    expect(ruleCounters(l.r, 'filter', 'FORWARD').map((pair) => Number(pair.split(':')[0]))).toEqual([
      3, 1, 1, 3, 1, 1, 3,
    ]);
  });
});
