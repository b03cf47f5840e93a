// ICMPv4 in the stack (net/ipv4/icmp.c): echo replies, errors with Linux's source choice, quote length and rate
// limits, PMTU learning from frag-needed, and dispatch of replies and errors to echo sockets and protocols.
// No timestamp or address-mask messages, no redirects.

import { type Packet, SK_KERNEL } from '../core/packet.ts';
import { TRACING } from '../core/trace.ts';
import type { NetDevice } from '../link/device.ts';
import type { Ipv4Addr } from '../wire/address.ts';
import { readU16 } from '../wire/bytes.ts';
import {
  ICMPV4_DEST_UNREACHABLE,
  ICMPV4_ECHO_REPLY,
  ICMPV4_ECHO_REQUEST,
  ICMPV4_FRAG_NEEDED,
  ICMPV4_HEADER_LEN,
  ICMPV4_TIME_EXCEEDED,
  Icmpv4View,
} from '../wire/icmpv4.ts';
import { IPPROTO_ICMP, Ipv4View } from '../wire/ipv4.ts';
import type { Ipv4Stack } from './ipv4.ts';

/** An ICMP error is at most 576 bytes: 20 of IP, 8 of ICMP, the rest quoted (icmp_send's `room`). */
const MAX_ERROR_QUOTE = 576 - 20 - ICMPV4_HEADER_LEN;
/** IPTOS_PREC_INTERNETCONTROL, OR-ed into the TOS of every error. */
const TOS_INTERNETCONTROL = 0xc0;
/** XRLIM_BURST_FACTOR: a peer may save up to six errors' worth of tokens. */
const XRLIM_BURST_FACTOR = 6;

/** What an echo socket (ping) hears: a reply, or an error quoting one of its requests. */
export type EchoEvent =
  | { kind: 'reply'; from: Ipv4Addr; seq: number; ttl: number; bytes: number; data: Uint8Array }
  | { kind: 'error'; from: Ipv4Addr; seq: number; type: number; code: number; info: number };

export type EchoListener = (event: EchoEvent) => void;

export class Icmp {
  /** Echo sockets by ICMP identifier (the ping socket's "port"). */
  readonly echoSockets = new Map<number, EchoListener>();
  /** inet_peer rate-limit state by destination: tokens in ns and the last refill time. */
  private readonly peers = new Map<Ipv4Addr, { tokensNs: number; lastNs: number }>();
  private globalCredit = -1;
  private globalStampNs = 0;
  /** Counters `nstat` shows as Icmp*: the ones this model moves. */
  readonly stats = {
    inMsgs: 0,
    inErrors: 0,
    inCsumErrors: 0,
    outMsgs: 0,
    outRateLimitGlobal: 0,
    outRateLimitHost: 0,
  };

  constructor(private readonly stack: Ipv4Stack) {}

  /** icmp_rcv: checksum, then the handler for the type. */
  receive(dev: NetDevice, pkt: Packet, ip: Ipv4View): void {
    this.stats.inMsgs++;
    const icmp = Icmpv4View.checked(ip.bytes.subarray(0, ip.offset + ip.totalLen), ip.offset + ip.headerLen);
    if (!(icmp instanceof Icmpv4View)) {
      this.stats.inErrors++;
      this.stack.drop(pkt, 'PKT_TOO_SMALL', dev);
      return;
    }
    if (!icmp.verifyChecksum()) {
      this.stats.inCsumErrors++;
      this.stack.drop(pkt, 'ICMP_CSUM', dev);
      return;
    }
    switch (icmp.type) {
      case ICMPV4_ECHO_REQUEST:
        if (this.stack.sysctls.int('net.ipv4.icmp_echo_ignore_all') === 0) this.reply(ip, icmp);
        return;
      case ICMPV4_ECHO_REPLY: {
        const listener = this.echoSockets.get(icmp.ident);
        const data = icmp.payload();
        listener?.({
          kind: 'reply',
          from: ip.srcAddr,
          seq: icmp.seqNo,
          ttl: ip.ttl,
          bytes: ICMPV4_HEADER_LEN + data.length,
          data,
        });
        return;
      }
      case ICMPV4_DEST_UNREACHABLE:
      case ICMPV4_TIME_EXCEEDED:
        this.receiveError(ip, icmp);
        return;
      default:
        return;
    }
  }

  /** icmp_unreach: learn the PMTU, then tell the protocol that sent the quoted datagram. */
  private receiveError(ip: Ipv4View, icmp: Icmpv4View): void {
    const quotedBytes = icmp.quoted();
    const quoted = Ipv4View.checkedHeader(quotedBytes, 0);
    if (!(quoted instanceof Ipv4View)) return;
    const info =
      icmp.type === ICMPV4_DEST_UNREACHABLE && icmp.code === ICMPV4_FRAG_NEEDED ? icmp.nextHopMtu : 0;
    if (info > 0) this.stack.learnPmtu(quoted.dstAddr, info);
    if (quoted.protocol === IPPROTO_ICMP) {
      const at = quoted.headerLen;
      if (quotedBytes.length < at + 8 || quotedBytes[at] !== ICMPV4_ECHO_REQUEST) return;
      const listener = this.echoSockets.get(readU16(quotedBytes, at + 4));
      listener?.({
        kind: 'error',
        from: ip.srcAddr,
        seq: readU16(quotedBytes, at + 6),
        type: icmp.type,
        code: icmp.code,
        info,
      });
      return;
    }
    this.stack.errorHandlers.get(quoted.protocol)?.(quoted, icmp.type, icmp.code, info);
  }

  /** icmp_echo → icmp_reply: same identifier, sequence and data, from the address that was asked. */
  private reply(ip: Ipv4View, request: Icmpv4View): void {
    const data = request.payload();
    const route = this.stack.routeOutput(ip.srcAddr, { src: ip.dstAddr });
    if (!route.ok) return;
    const pkt = this.stack.allocatePacket(ICMPV4_HEADER_LEN + data.length);
    // icmp_reply sends from the namespace's ICMP socket: a socket, without a file.
    pkt.skUid = SK_KERNEL;
    pkt.skGid = SK_KERNEL;
    const view = Icmpv4View.unchecked(pkt.buf, pkt.start);
    view.type = ICMPV4_ECHO_REPLY;
    view.code = 0;
    view.restOfHeader = request.restOfHeader;
    pkt.buf.set(data, pkt.start + ICMPV4_HEADER_LEN);
    view.fillChecksum();
    this.stats.outMsgs++;
    this.stack.output(pkt, route, { protocol: IPPROTO_ICMP, tos: (ip.dscp << 2) | ip.ecn, pmtudisc: 'dont' });
  }

  /**
   * icmp_send: an error about `orig` (whose network header is at `orig.network`) to its
   * sender. Silent for errors about errors, non-first fragments, and non-unicast sources.
   */
  sendError(orig: Packet, type: number, code: number, info: number): void {
    if (orig.network < 0) return;
    const ip = Ipv4View.unchecked(orig.buf, orig.network);
    if (ip.fragmentOffset !== 0) return;
    const src = ip.srcAddr;
    if (src === 0 || src >>> 28 === 0xe || src === 0xffff_ffff) return;
    if (ip.protocol === IPPROTO_ICMP && orig.end >= orig.network + ip.headerLen + 1) {
      const innerType = orig.buf[orig.network + ip.headerLen]!;
      if (innerType !== ICMPV4_ECHO_REQUEST && innerType !== ICMPV4_ECHO_REPLY) return;
    }
    if (this.stack.sysctls.int('net.packetlab.icmp_errors_blackhole') === 1) return;
    const isLocalDst = this.stack.addresses.isLocal(ip.dstAddr);
    const route = this.stack.routeOutput(src, isLocalDst ? { src: ip.dstAddr } : {});
    if (!route.ok) return;
    if (!this.allowed(type, code, route.ifindex, src)) return;
    const quoteLen = Math.min(orig.end - orig.network, ip.totalLen, MAX_ERROR_QUOTE);
    const pkt = this.stack.allocatePacket(ICMPV4_HEADER_LEN + quoteLen);
    pkt.skUid = SK_KERNEL;
    pkt.skGid = SK_KERNEL;
    const view = Icmpv4View.unchecked(pkt.buf, pkt.start);
    view.type = type;
    view.code = code;
    view.restOfHeader = info & 0xffff;
    pkt.buf.set(orig.buf.subarray(orig.network, orig.network + quoteLen), pkt.start + ICMPV4_HEADER_LEN);
    view.fillChecksum();
    this.stats.outMsgs++;
    const tos = ((ip.dscp << 2) & 0x1e) | TOS_INTERNETCONTROL;
    if (TRACING && this.stack.ctx.bus.wants.step)
      this.stack.step(orig, 'icmp_send', undefined, `type ${type} code ${code}`);
    this.stack.output(pkt, route, { protocol: IPPROTO_ICMP, tos, pmtudisc: 'dont' });
  }

  /**
   * icmpv4_global_allow + icmpv4_xrlim_allow: types outside icmp_ratemask and frag-needed
   * are never limited; errors toward loopback neither; the rest pass a global credit
   * (icmp_msgs_per_sec, icmp_msgs_burst) and a per-peer token bucket of icmp_ratelimit.
   */
  private allowed(type: number, code: number, outIfindex: number, peer: Ipv4Addr): boolean {
    const sysctls = this.stack.sysctls;
    if (type > 31 || (sysctls.int('net.ipv4.icmp_ratemask') & (1 << type)) === 0) return true;
    if (type === ICMPV4_DEST_UNREACHABLE && code === ICMPV4_FRAG_NEEDED) return true;
    const now = this.stack.now;
    const burst = sysctls.int('net.ipv4.icmp_msgs_burst');
    if (this.globalCredit < 0) this.globalCredit = burst;
    const elapsed = Math.min(1e9, now - this.globalStampNs);
    if (elapsed >= 1e9 / 50) {
      this.globalCredit = Math.min(
        burst,
        this.globalCredit + Math.floor((sysctls.int('net.ipv4.icmp_msgs_per_sec') * elapsed) / 1e9),
      );
      this.globalStampNs = now;
    }
    if (this.globalCredit <= 0) {
      this.stats.outRateLimitGlobal++;
      return false;
    }
    this.globalCredit--;
    if (this.stack.interfaces.byIndex(outIfindex)?.kind === 'loopback') return true;
    const timeoutNs = sysctls.int('net.ipv4.icmp_ratelimit') * 1e6;
    if (timeoutNs === 0) return true;
    // inet_getpeer starts rate_last 60 s in the past, so a new peer begins with a full bucket.
    const state = this.peers.get(peer) ?? { tokensNs: 0, lastNs: now - 60e9 };
    let tokens = Math.min(state.tokensNs + (now - state.lastNs), XRLIM_BURST_FACTOR * timeoutNs);
    state.lastNs = now;
    let allow = false;
    if (tokens >= timeoutNs) {
      tokens -= timeoutNs;
      allow = true;
    }
    state.tokensNs = tokens;
    this.peers.set(peer, state);
    if (!allow) this.stats.outRateLimitHost++;
    return allow;
  }
}
