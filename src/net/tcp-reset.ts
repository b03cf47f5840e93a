// The TCP reset REJECT --reject-with tcp-reset sends back (net/ipv4/netfilter/nf_reject_ipv4.c: nf_send_reset):
// addresses and ports swapped; seq = the segment's ack if it had one, else ack = its seq + its length.

import { type Packet, SK_KERNEL } from '../core/packet.ts';
import { IPPROTO_TCP, Ipv4View } from '../wire/ipv4.ts';
import { emitTcp, NO_TCP_FLAGS, TCP_HEADER_LEN, TcpView } from '../wire/tcp.ts';
import type { Ipv4Stack } from './ipv4.ts';

/** `mark`: the socket's, for a reset a connection sends (tcp_v4_send_reset); REJECT's is 0 (IP4_REPLY_MARK). */
export function sendTcpReset(stack: Ipv4Stack, orig: Packet, mark = 0): void {
  const ip = Ipv4View.checked(orig.buf.subarray(0, orig.end), orig.network);
  if (!(ip instanceof Ipv4View) || ip.protocol !== IPPROTO_TCP || ip.fragmentOffset !== 0) return;
  const segmentLen = ip.totalLen - ip.headerLen;
  const tcp = TcpView.checked(ip.bytes, ip.offset + ip.headerLen, segmentLen);
  if (!(tcp instanceof TcpView) || tcp.rst) return;
  // nf_reject_ip_tcphdr_put: answer the ACK if there is one, else acknowledge what came.
  const payloadLen = segmentLen - tcp.headerLen;
  const ackNumber = tcp.ack ? 0 : (tcp.seqNumber + payloadLen + (tcp.syn ? 1 : 0) + (tcp.fin ? 1 : 0)) >>> 0;
  // nf_send_reset → ip_route_me_harder: the reset leaves from the address the segment was sent to, which a
  // router REJECTing in FORWARD does not own; the kernel routes it anyway (FLOWI_FLAG_ANYSRC). Deviation: that
  // fallback lookup is by destination only, so `ip rule from` the foreign source does not apply to it.
  let found = stack.routeOutput(ip.srcAddr, { src: ip.dstAddr, mark });
  if (!found.ok) found = stack.routeOutput(ip.srcAddr, { mark });
  if (!found.ok) return;
  const route = { ...found, src: ip.dstAddr };
  const pkt = stack.allocatePacket(TCP_HEADER_LEN);
  // ip_send_unicast_reply: the per-namespace TCP control socket, without a file.
  pkt.skUid = SK_KERNEL;
  pkt.skGid = SK_KERNEL;
  pkt.mark = mark;
  emitTcp(
    {
      srcPort: tcp.dstPort,
      dstPort: tcp.srcPort,
      seqNumber: tcp.ack ? tcp.ackNumber : 0,
      ackNumber,
      flags: { ...NO_TCP_FLAGS, rst: true, ack: !tcp.ack },
      window: 0,
      urgentPointer: 0,
      options: [],
      payloadLen: 0,
    },
    TcpView.unchecked(pkt.buf, pkt.start, TCP_HEADER_LEN),
    { srcAddr: route.src, dstAddr: route.dst },
  );
  stack.output(pkt, route, { protocol: IPPROTO_TCP, pmtudisc: 'do' });
}
