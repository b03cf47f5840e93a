// IPv4 (print-ip.c's ip_print) and the dispatch to the transport printers; no IP options, no -v detail.

import { icmpPrint } from './icmp.ts';
import {
  IPPROTO_DCCP,
  IPPROTO_ESP,
  IPPROTO_ICMP,
  IPPROTO_ICMPV6,
  IPPROTO_IPIP,
  IPPROTO_NONE,
  IPPROTO_SCTP,
  IPPROTO_TCP,
  IPPROTO_UDP,
} from './ipproto.ts';
import { type Dissector, type IpContext, TRUNCATED } from './netdissect.ts';
import { tcpPrint } from './tcp.ts';
import { udpPrint } from './udp.ts';

/** IPv4 (print-ip.c's ip_print); `length` is what the link layer says follows its header. */
export function ipPrint(d: Dissector, at: number, length: number): void {
  d.protocol = 'ip';
  const versionIhl = d.u8(at);
  const version = versionIhl >>> 4;
  if (version !== 4) {
    d.print(version === 6 ? 'IP6, wrong link-layer encapsulation' : `IP${version}`);
    d.print(' (invalid)');
    return;
  }
  if (!d.eflag) d.print('IP ');
  d.need(at, 20);
  const hlen = (versionIhl & 0x0f) * 4;
  if (hlen < 20) {
    d.print(`bad-hlen ${hlen}`);
    return;
  }
  const totalLen = d.u16(at + 2);
  if (totalLen > length) d.print(`truncated-ip - ${totalLen - length} bytes missing! `);
  if (totalLen < hlen) {
    d.print(`bad-len ${totalLen}`);
    return;
  }
  d.snapEnd = Math.min(d.snapEnd, at + totalLen);
  const payloadLen = totalLen - hlen;
  const flagsOffset = d.u16(at + 6);
  const proto = d.u8(at + 9);
  const src = d.ipv4At(at + 12);
  const dst = d.ipv4At(at + 16);
  if ((flagsOffset & 0x1fff) !== 0) {
    d.print(`${src} > ${dst}: ip-proto-${proto}`);
    return;
  }
  if (proto !== IPPROTO_TCP && proto !== IPPROTO_UDP && proto !== IPPROTO_SCTP && proto !== IPPROTO_DCCP) {
    d.print(`${src} > ${dst}: `);
  }
  if (!d.has(at, hlen)) {
    d.print(` [remaining caplen(${d.available(at)}) < header length(${hlen})]`);
    throw TRUNCATED;
  }
  const fragmented = (flagsOffset & 0x2000) !== 0;
  const payload = at + hlen;
  const ip: IpContext = { at, src: d.u32(at + 12), dst: d.u32(at + 16), proto };
  switch (proto) {
    case IPPROTO_TCP:
      tcpPrint(d, payload, payloadLen, ip);
      return;
    case IPPROTO_UDP:
      udpPrint(d, payload, payloadLen, ip, fragmented);
      return;
    case IPPROTO_ICMP:
      icmpPrint(d, payload, payloadLen);
      return;
    case IPPROTO_IPIP:
      ipPrint(d, payload, payloadLen);
      return;
    case IPPROTO_ESP:
      d.protocol = 'esp';
      d.print(`ESP(spi=0x${d.u32(payload).toString(16).padStart(8, '0')}`);
      d.print(`,seq=0x${d.u32(payload + 4).toString(16)}), length ${payloadLen}`);
      return;
    case IPPROTO_ICMPV6:
      d.print('[ICMPv6 requires IPv6] (invalid)');
      return;
    case IPPROTO_NONE:
      d.print('no next header');
      return;
    default:
      d.print(` ip-proto-${proto} ${payloadLen}`);
  }
}
