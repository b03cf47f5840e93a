// The socket a packet belongs to, for `-m socket`, `-j TPROXY`'s checks and nft's `socket` expression
// (nf_sk_lookup_slow_v4): TCP and UDP first fragments only; a reply of a SNATed connection is looked up by the
// address and port it had before NAT. Not modelled: skb->sk of locally generated packets (the lookup is by address).

import { IPS_SRC_NAT_DONE } from './conntrack/table.ts';
import type { SocketInfo } from './host.ts';
import type { PacketState } from './packet-state.ts';

function readU32(buf: Uint8Array, at: number): number {
  return ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0;
}

/** nf_sk_lookup_slow_v4 for the packet being evaluated; undefined when there is none. */
export function packetSocket(state: PacketState): SocketInfo | undefined {
  const lookup = state.host.socketLookup;
  const pkt = state.pkt;
  const buf = pkt.buf;
  const ip = pkt.network;
  const proto = buf[ip + 9]!;
  if (lookup === undefined || (proto !== 6 && proto !== 17)) return undefined;
  const th = ip + (buf[ip]! & 0x0f) * 4;
  if ((((buf[ip + 6]! << 8) | buf[ip + 7]!) & 0x1fff) !== 0 || th + 4 > pkt.end) return undefined;
  let daddr = readU32(buf, ip + 16);
  let dport = (buf[th + 2]! << 8) | buf[th + 3]!;
  const conntrack = state.conntrack;
  if (
    conntrack !== undefined &&
    pkt.ctIndex >= 0 &&
    pkt.ctReply &&
    (conntrack.status(pkt.ctIndex) & IPS_SRC_NAT_DONE) !== 0
  ) {
    const original = conntrack.tuple(pkt.ctIndex, 0, state.scratchTuple);
    daddr = original.src;
    dport = original.srcPort;
  }
  return lookup(proto, readU32(buf, ip + 12), (buf[th]! << 8) | buf[th + 1]!, daddr, dport, 'any');
}
