// TCP in one namespace, for now without sockets: every segment that reaches this host is answered as a closed port
// answers it (tcp_v4_rcv → tcp_v4_send_reset), which is what a Service without a listener does. Listening and
// connected sockets come with the traffic step.

import type { Packet } from '../core/packet.ts';
import type { Ipv4Stack, SendResult } from '../net/ipv4.ts';
import { sendTcpReset } from '../net/tcp-reset.ts';
import type { Ipv4Addr } from '../wire/address.ts';
import { IPPROTO_TCP, type Ipv4View } from '../wire/ipv4.ts';
import { emitTcp, type TcpRepr, TcpView, tcpHeaderLen } from '../wire/tcp.ts';

export class TcpTable {
  readonly stats = { inSegs: 0, inErrs: 0, inCsumErrors: 0, outRsts: 0 };

  constructor(private readonly stack: Ipv4Stack) {
    stack.protocols.set(IPPROTO_TCP, (pkt, ip) => this.receive(pkt, ip));
  }

  /**
   * The first segment connect() sends (tcp_v4_connect → tcp_connect), without the socket that
   * would follow it up: Linux's SYN options (mss from the route MTU, sackOK, timestamps, nop,
   * wscale 7), window 64240, an initial sequence number from the seeded rng.
   */
  sendSyn(dst: Ipv4Addr, dstPort: number, srcPort: number, options: { mark?: number } = {}): SendResult {
    const route = this.stack.routeOutput(dst, options.mark !== undefined ? { mark: options.mark } : {});
    if (!route.ok) return { ok: false, error: route.error };
    const dev = this.stack.interfaces.byIndex(route.ifindex);
    const mss = (route.mtu || dev?.mtu || 1500) - 40;
    const repr: TcpRepr = {
      srcPort,
      dstPort,
      seqNumber: this.stack.ctx.rng.u32(),
      ackNumber: 0,
      flags: {
        fin: false,
        syn: true,
        rst: false,
        psh: false,
        ack: false,
        urg: false,
        ece: false,
        cwr: false,
      },
      window: 64240,
      urgentPointer: 0,
      options: [
        { type: 'mss', mss },
        { type: 'sack-permitted' },
        { type: 'timestamps', tsVal: Math.floor(this.stack.now / 1e6) >>> 0, tsEcr: 0 },
        { type: 'nop' },
        { type: 'window-scale', shift: 7 },
      ],
      payloadLen: 0,
    };
    const headerLen = tcpHeaderLen(repr);
    const pkt = this.stack.allocatePacket(headerLen);
    if (options.mark !== undefined) pkt.mark = options.mark;
    emitTcp(repr, TcpView.unchecked(pkt.buf, pkt.start, headerLen), {
      srcAddr: route.src,
      dstAddr: route.dst,
    });
    return this.stack.output(pkt, route, { protocol: IPPROTO_TCP, pmtudisc: 'do' });
  }

  /** tcp_v4_rcv: checksum, then no socket: reset (never in answer to a reset), and drop NO_SOCKET. */
  private receive(pkt: Packet, ip: Ipv4View): void {
    const segmentLen = ip.totalLen - ip.headerLen;
    const tcp = TcpView.checked(
      ip.bytes.subarray(0, ip.offset + ip.totalLen),
      ip.offset + ip.headerLen,
      segmentLen,
    );
    if (!(tcp instanceof TcpView)) {
      this.stats.inErrs++;
      this.stack.drop(pkt, 'PKT_TOO_SMALL');
      return;
    }
    if (!tcp.verifyChecksum({ srcAddr: ip.srcAddr, dstAddr: ip.dstAddr })) {
      this.stats.inCsumErrors++;
      this.stack.drop(pkt, 'TCP_CSUM');
      return;
    }
    this.stats.inSegs++;
    if (!tcp.rst) {
      this.stats.outRsts++;
      sendTcpReset(this.stack, pkt);
    }
    this.stack.drop(pkt, 'NO_SOCKET');
  }
}
