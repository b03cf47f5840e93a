// One TCP segment onto IP: tcp_transmit_skb's header, options and advertised window, then ip_queue_xmit with
// the socket's mark and IP id, and resets for foreign segments; not the choice of what to send (send-
// path.ts).

import { type Packet, SK_KERNEL } from '../../core/packet.ts';
import { sendTcpReset } from '../../net/tcp-reset.ts';
import { TCP_HEADER_LEN, TcpView } from '../../wire/tcp.ts';
import { ackSent, advertisedWindow } from './ack-policy.ts';
import { ACK, SYN } from './constants.ts';
import type { Tcb } from './control-block.ts';
import { type OutgoingOptions, optionsLength, writeOptions } from './options.ts';
import { mtuReduced } from './send-path.ts';
import { countOut } from './stats.ts';

/** tcp_send_ack: a pure ACK at snd_nxt. */
export function sendAck(s: Tcb): void {
  transmit(s, ACK, s.sndNxt, 0, 0, undefined);
}

/** tcp_v4_send_reset for a segment s.socket connection cannot accept (the reset REJECT also sends). */
export function sendReset(s: Tcb, pkt: Packet): void {
  sendTcpReset(s.stack, pkt, s.mark);
}

/**
 * tcp_transmit_skb: header, options (SYN options when given, else timestamps), the window
 * from tcp_select_window (unscaled in a SYN), payload from the send buffer, checksum; every
 * segment carrying an ACK is tcp_event_ack_sent for the delayed-ACK engine.
 */
export function transmit(
  s: Tcb,
  flags: number,
  seq: number,
  bufferOffset: number,
  len: number,
  synOptions: OutgoingOptions | undefined,
): Packet {
  const options = synOptions ?? establishedOptions(s);
  const sack = synOptions === undefined && s.sackOk ? s.sack : undefined;
  const headerLen = TCP_HEADER_LEN + optionsLength(options, sack);
  const pkt = s.stack.allocatePacket(headerLen + len);
  if (len > 0) pkt.buf.set(s.sendBuf.subarray(bufferOffset, bufferOffset + len), pkt.start + headerLen);
  const tcp = TcpView.unchecked(pkt.buf, pkt.start, headerLen + len);
  tcp.srcPort = s.localPort;
  tcp.dstPort = s.remotePort;
  tcp.seqNumber = seq;
  tcp.ackNumber = flags & ACK ? s.window.rcvNxt : 0;
  tcp.headerLen = headerLen;
  tcp.reserved = 0;
  tcp.flags = flags;
  tcp.window = flags & SYN ? Math.min(s.window.rcvWnd, 0xffff) : advertisedWindow(s);
  tcp.urgentPointer = 0;
  writeOptions(pkt.buf, pkt.start + TCP_HEADER_LEN, options, sack);
  // tcp_options_write: a D-SACK block goes out once.
  if (sack !== undefined && sack.blockCount > 0) sack.dsackSent();
  tcp.fillChecksum(s.pseudo, headerLen + len);
  countOut(s, flags, seq, len);
  if (flags & ACK) ackSent(s);
  // A SYN-ACK leaves through ip_build_and_send_pkt and a TIME_WAIT ACK through the namespace's
  // control socket (ip_send_unicast_reply): DF and id 0, like any DF datagram without a connected socket.
  output(s, pkt, (flags & (SYN | ACK)) !== (SYN | ACK) && s.state !== 'TIME_WAIT');
  return pkt;
}

export function establishedOptions(s: Tcb): OutgoingOptions {
  s.outgoing.timestamps = s.tsOk;
  s.outgoing.tsVal = s.tsNow();
  s.outgoing.tsEcr = s.tsRecent;
  return s.outgoing;
}

/** ip_queue_xmit with the socket's mark, DF set (IP_PMTUDISC_DO is TCP's default) and the socket's IP id. */
export function output(s: Tcb, pkt: Packet, connected: boolean): void {
  pkt.mark = s.mark;
  // skb->sk: the socket's file credentials; a TIME_WAIT answer leaves from the control socket, without a file.
  const owned = s.state !== 'TIME_WAIT';
  pkt.skUid = owned ? s.uid : SK_KERNEL;
  pkt.skGid = owned ? s.gid : SK_KERNEL;
  const route = s.stack.routeOutput(s.remoteAddr, { src: s.localAddr, mark: s.mark, anySrc: s.transparent });
  s.outputOptions.ident = connected ? s.ipId : 0;
  if (connected) s.ipId = (s.ipId + 1) & 0xffff;
  // Process context: the segment before s.socket one reached the peer, and its answer came back, before s.socket one leaves.
  if (s.owned && s.sentWhileOwned) s.stack.ctx.backlog.drain();
  s.sentWhileOwned = s.owned;
  const sent = s.stack.output(pkt, route, s.outputOptions);
  // A path MTU learned since the segment was cut: ip_fragment refuses it and tells the socket
  // (icmp_send to itself, handled as tcp_v4_err would, once s.socket transmission is over).
  if (!sent.ok && sent.error === 'EMSGSIZE') {
    if (s.owned) s.mtuReducedDeferred = true;
    else s.stack.ctx.scheduler.schedule(0, () => mtuReduced(s));
  }
}
