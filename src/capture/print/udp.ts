// UDP (print-udp.c's udp_print): ports and length, and DNS on port 53, mDNS on 5353 and the VXLAN/OTV tunnels by port, the checksum with -vv; no other application protocols.

import { formatIpv4 } from '../../wire/address.ts';
import { pseudoHeaderSum } from '../../wire/checksum.ts';
import { domainPrint } from './domain.ts';
import { IPPROTO_UDP } from './ipproto.ts';
import { type Dissector, hex4, type IpContext, inCksum, inCksumShouldbe } from './netdissect.ts';
import { otvPrint } from './otv.ts';
import { vxlanPrint } from './vxlan.ts';

const NAMESERVER_PORT = 53;
const MULTICASTDNS_PORT = 5353;
const VXLAN_PORT = 4789;
const OTV_PORT = 8472;

/** UDP (print-udp.c's udp_print): addresses and ports, then VXLAN/OTV or `UDP, length N`. */
// Its truncations end this line only (udp_print's `trunc:`), as in tcpdump: -x still leaves out the link header.
export function udpPrint(d: Dissector, at: number, length: number, ip: IpContext): void {
  d.protocol = 'udp';
  const src = formatIpv4(ip.src);
  const dst = formatIpv4(ip.dst);
  if (!d.has(at + 2, 2)) {
    d.print(`${src} > ${dst}: `);
    d.printTrunc();
    return;
  }
  const srcPort = d.u16(at);
  const dstPort = d.u16(at + 2);
  const addresses = `${src}.${srcPort} > ${dst}.${dstPort}: `;
  if (length < 8) {
    d.print(`${addresses}truncated-udp ${length}`);
    return;
  }
  if (!d.has(at + 4, 2)) {
    d.print(addresses);
    d.printTrunc();
    return;
  }
  let ulen = d.u16(at + 4);
  if (ulen < 8) {
    d.print(`${addresses}truncated-udplength ${ulen}`);
    return;
  }
  ulen -= 8;
  let payloadLen = length - 8;
  if (ulen < payloadLen) payloadLen = ulen;
  const data = at + 8;
  if (data > d.snapEnd) {
    d.print(addresses);
    d.printTrunc();
    return;
  }
  d.print(addresses);
  if (d.vflag > 1 && !d.kflag && !ip.fragmented) {
    const field = d.u16(at + 6);
    if (field === 0) {
      d.print('[no cksum] ');
    } else if (d.has(data, payloadLen)) {
      // udp_cksum: the pseudo-header and the datagram up to the (clamped) UDP length.
      const covered = payloadLen + 8;
      const sum = inCksum(d.bytes, at, at + covered, pseudoHeaderSum(ip.src, ip.dst, IPPROTO_UDP, covered));
      d.print(
        sum !== 0
          ? `[bad udp cksum 0x${hex4(field)} -> 0x${hex4(inCksumShouldbe(field, sum))}!] `
          : '[udp sum ok] ',
      );
    }
  }
  if (d.qflag) {
    udpLengthPrint(d, ulen, payloadLen, ip.fragmented);
  } else if (srcPort === NAMESERVER_PORT || dstPort === NAMESERVER_PORT) {
    domainPrint(d, data, payloadLen);
  } else if (srcPort === MULTICASTDNS_PORT || dstPort === MULTICASTDNS_PORT) {
    domainPrint(d, data, payloadLen, true);
  } else if (srcPort === VXLAN_PORT || dstPort === VXLAN_PORT) {
    vxlanPrint(d, data, payloadLen);
  } else if (dstPort === OTV_PORT || srcPort === OTV_PORT) {
    otvPrint(d, data, payloadLen);
  } else {
    udpLengthPrint(d, ulen, payloadLen, ip.fragmented);
  }
}

function udpLengthPrint(d: Dissector, ulen: number, payloadLen: number, fragmented: boolean): void {
  if (ulen > payloadLen && !fragmented) d.print(`UDP, bad length ${ulen} > ${payloadLen}`);
  else d.print(`UDP, length ${ulen}`);
}
