// Ladder-test helpers for conntrack: a manual clock in seconds, a packet's trip through the two hooks (process then confirm), a TCP conversation that keeps its own sequence numbers, and a one-line summary of an entry after each packet.

import type { Packet } from '../../../src/core/packet.ts';
import {
  type Conntrack,
  type ConntrackHook,
  ctStateName,
} from '../../../src/netfilter/conntrack/conntrack.ts';
import { IPS_ASSURED, IPS_SEEN_REPLY } from '../../../src/netfilter/conntrack/table.ts';
import { linuxSynOptions } from '../../support/frames.ts';
import { tcpPacket } from '../../support/packets.ts';

export const SEC = 1_000_000_000;

/** Seconds (may be fractional) to whole virtual ns. */
export function at(seconds: number): number {
  return Math.round(seconds * SEC);
}

export interface Trip {
  readonly process: string;
  readonly confirm: string;
}

/** Runs a packet through conntrack as the hooks will: process at PREROUTING, confirm at INPUT. */
export function trip(ct: Conntrack, pkt: Packet, now: number, hook: ConntrackHook = 'PREROUTING'): Trip {
  const processed = ct.process(pkt, hook, now);
  if (processed !== 'accept') return { process: processed, confirm: '-' };
  return { process: processed, confirm: ct.confirm(pkt, now) };
}

/** UNREPLIED, SEEN_REPLY or ASSURED, the way conntrack -L tells them apart. */
export function replyStatus(ct: Conntrack, index: number): string {
  const status = ct.status(index);
  if ((status & IPS_ASSURED) !== 0) return 'ASSURED';
  return (status & IPS_SEEN_REPLY) !== 0 ? 'SEEN_REPLY' : 'UNREPLIED';
}

/**
 * One ladder line after a packet: the packet's ctstate, then the entry's TCP state (or "-"),
 * remaining whole seconds and reply status; "gone" when `index` is no longer listed.
 */
export function summary(ct: Conntrack, pkt: Packet, index: number, now: number): string {
  const ctstate = ctStateName(pkt);
  if (index < 0 || !ct.isListed(index, now)) return `${ctstate} gone`;
  const state = ct.protocol(index) === 6 ? ct.tcpStateName(index) : '-';
  return `${ctstate} ${state} ${ct.timeoutSeconds(index, now)} ${replyStatus(ct, index)}`;
}

export interface ConversationOptions {
  readonly client: string;
  readonly server: string;
  readonly clientIsn?: number;
  readonly serverIsn?: number;
}

/**
 * A TCP conversation that numbers its own segments: each side's next sequence number advances
 * by payload, SYN and FIN; ACKs acknowledge everything the other side sent. SYN and SYN/ACK
 * carry Linux's options (window scale 7), later segments a window of 502 (64256 scaled).
 */
export class TcpConversation {
  private nextSeq: [number, number];

  constructor(readonly options: ConversationOptions) {
    this.nextSeq = [options.clientIsn ?? 1000, options.serverIsn ?? 5000];
  }

  /** `>` client to server, `<` server to client; flags as tcpdump letters. */
  segment(
    direction: '>' | '<',
    flags: string,
    payloadLen = 0,
    overrides: { seq?: number; ack?: number; window?: number } = {},
  ): Packet {
    const from = direction === '>' ? 0 : 1;
    const to = 1 - from;
    const seq = overrides.seq ?? this.nextSeq[from];
    const isAck = flags.includes('A');
    const isSyn = flags.includes('S');
    const ack = overrides.ack ?? (isAck ? this.nextSeq[to] : 0);
    const pkt = tcpPacket({
      src: from === 0 ? this.options.client : this.options.server,
      dst: from === 0 ? this.options.server : this.options.client,
      seq,
      ack,
      flags,
      window: overrides.window ?? (isSyn ? (from === 0 ? 64240 : 65160) : 502),
      payloadLen,
      ...(isSyn ? { options: linuxSynOptions(1460, 1000 + from) } : {}),
    });
    if (overrides.seq === undefined) {
      this.nextSeq[from] = (seq + payloadLen + (isSyn ? 1 : 0) + (flags.includes('F') ? 1 : 0)) >>> 0;
    }
    return pkt;
  }
}
