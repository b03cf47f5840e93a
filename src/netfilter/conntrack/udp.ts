// The UDP tracker: 30 s until both directions have been seen, then the 120 s stream timeout and ASSURED once the entry outlives its first 2 s; no UDP-Lite checksum coverage.
//
// Mirrors nf_conntrack_udp_packet and udp_error (net/netfilter/nf_conntrack_proto_udp.c):
// - an unconfirmed entry gets stream_ts = now + 2 s;
// - a packet of an entry that has SEEN_REPLY refreshes the timeout to 30 s, or, when
//   time_after(now, stream_ts), to 120 s and sets ASSURED (never for an IPS_NAT_CLASH entry);
// - otherwise the timeout is refreshed to 30 s.
// SEEN_REPLY is set by nf_conntrack_in after the tracker ran, so the first reply itself still
// gets 30 s: after a DNS-like exchange `conntrack -L` shows `udp 17 29 ...` without [UNREPLIED]
// and without [ASSURED], as on Linux. stream_ts lives in the first f64 of the entry's proto area.

import { checksumIsValid, pseudoHeaderSum } from '../../wire/checksum.ts';
import {
  type ConnTable,
  IPCT_ASSURED,
  IPS_ASSURED,
  IPS_CONFIRMED,
  IPS_NAT_CLASH,
  IPS_SEEN_REPLY,
  TRACK_ACCEPT,
  TRACK_INVALID,
} from './table.ts';
import { IPPROTO_UDP, readAddr } from './tuple.ts';

/** UDP sysctls in ns (nf_conntrack_udp_timeout, nf_conntrack_udp_timeout_stream). */
export interface UdpSettings {
  timeoutUnreplied: number;
  timeoutStream: number;
}

export const UDP_DEFAULT_TIMEOUT_SEC = 30;
export const UDP_DEFAULT_STREAM_TIMEOUT_SEC = 120;
/** How long an entry must live before a packet can make it a stream (2 * HZ in the kernel). */
export const UDP_STREAM_DELAY_NS = 2_000_000_000;

const UDP_HEADER_LEN = 8;
/** GRO_LEGACY_MAX_SIZE: a zero length field is accepted for larger (GSO) datagrams. */
const GRO_LEGACY_MAX_SIZE = 65_536;

export function defaultUdpSettings(): UdpSettings {
  return {
    timeoutUnreplied: UDP_DEFAULT_TIMEOUT_SEC * 1_000_000_000,
    timeoutStream: UDP_DEFAULT_STREAM_TIMEOUT_SEC * 1_000_000_000,
  };
}

/** The virtual time after which a packet makes the entry a stream (ct->proto.udp.stream_ts). */
export function udpStreamTs(table: ConnTable, index: number): number {
  return table.udpF64[table.udpSlot(index)]!;
}

/**
 * nf_conntrack_udp_packet for the datagram at `dataoff` (`end`: the IPv4 payload's end).
 * TRACK_INVALID for a short or malformed datagram or, when `verifyChecksum`, a bad non-zero
 * checksum (udp_error); TRACK_ACCEPT otherwise.
 */
export function udpPacket(
  table: ConnTable,
  index: number,
  buf: Uint8Array,
  nhoff: number,
  dataoff: number,
  end: number,
  verifyChecksum: boolean,
  settings: UdpSettings,
  now: number,
): number {
  // udp_error
  const skblen = end - dataoff;
  if (skblen < UDP_HEADER_LEN) return TRACK_INVALID;
  const udplen = (buf[dataoff + 4]! << 8) | buf[dataoff + 5]!;
  if (!(udplen === 0 && skblen > GRO_LEGACY_MAX_SIZE) && (udplen > skblen || udplen < UDP_HEADER_LEN)) {
    return TRACK_INVALID;
  }
  const check = (buf[dataoff + 6]! << 8) | buf[dataoff + 7]!;
  if (
    check !== 0 &&
    verifyChecksum &&
    !checksumIsValid(
      buf,
      dataoff,
      end,
      pseudoHeaderSum(readAddr(buf, nhoff + 12), readAddr(buf, nhoff + 16), IPPROTO_UDP, skblen),
    )
  ) {
    return TRACK_INVALID;
  }

  const status = table.status(index);
  const slot = table.udpSlot(index);
  if ((status & IPS_CONFIRMED) === 0) table.udpF64[slot] = now + UDP_STREAM_DELAY_NS;

  if ((status & IPS_SEEN_REPLY) !== 0) {
    // Traffic both ways: some kind of UDP stream. Still active after two seconds? Extend.
    let extra = settings.timeoutUnreplied;
    let stream = false;
    if (now > table.udpF64[slot]!) {
      extra = settings.timeoutStream;
      stream = (status & IPS_ASSURED) === 0;
    }
    table.refresh(index, extra, now);
    // Never ASSURED for a clash entry: it must time out soon.
    if ((status & IPS_NAT_CLASH) !== 0) return TRACK_ACCEPT;
    if (stream) {
      table.setStatus(index, IPS_ASSURED);
      table.cacheEvent(index, IPCT_ASSURED);
    }
  } else {
    table.refresh(index, settings.timeoutUnreplied, now);
  }
  return TRACK_ACCEPT;
}
