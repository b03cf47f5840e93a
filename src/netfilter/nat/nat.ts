// NAT for one namespace: binding a new connection (SNAT, DNAT, MASQUERADE, REDIRECT or a null binding) by choosing its tuple and altering its reply tuple, then rewriting every packet of the connection at the NAT hooks; IPv4 only, no helpers (FTP, SIP, PPTP), no NETMAP, no masquerade flush on device or address loss.
//
// Mirrors net/netfilter/nf_nat_core.c: nf_nat_setup_info, nf_nat_alloc_null_binding,
// nf_nat_packet (and nf_nat_manip_pkt in manip.ts), with the per-target front halves of
// nft_nat_eval / xt_nat (range.ts), nf_nat_masquerade_ipv4 (masquerade.ts) and
// nf_nat_redirect_ipv4 (redirect.ts), and nf_nat_ipv4_fn's early exit for RELATED ICMP
// errors (icmp-reply.ts). The hook orchestration (which chains run, when a null binding is
// made) is nf_nat_inet_fn, in netfilter.ts.
//
// State lives in conntrack: the altered reply tuple, IPS_SRC_NAT / IPS_DST_NAT (this manip
// changed something) and IPS_SRC_NAT_DONE / IPS_DST_NAT_DONE (this manip is bound). NAT keeps
// only the by-source index (bysource.ts).

import type { Packet } from '../../core/packet.ts';
import { type Conntrack, IP_CT_RELATED, IP_CT_RELATED_REPLY } from '../conntrack/conntrack.ts';
import {
  DIR_ORIGINAL,
  DIR_REPLY,
  IPS_CONFIRMED,
  IPS_DST_NAT,
  IPS_DST_NAT_DONE,
  IPS_NAT_MASK,
  IPS_SRC_NAT,
  IPS_SRC_NAT_DONE,
} from '../conntrack/table.ts';
import { createTuple, IPPROTO_ICMP, invertTuple, tupleEquals } from '../conntrack/tuple.ts';
import type { NetfilterHost } from '../host.ts';
import type { Expr } from '../ir.ts';
import { BySourceIndex } from './bysource.ts';
import { IcmpReplyTranslator } from './icmp-reply.ts';
import { manipIpv4 } from './manip.ts';
import { masqueradeRange } from './masquerade.ts';
import { createRange, type Manip, type NatRange2, nullBindingRange, rangeFromRule } from './range.ts';
import { redirectRange } from './redirect.ts';
import { TupleChooser } from './unique-tuple.ts';

export type { Manip } from './range.ts';

/** The hooks NAT acts at (FORWARD has none). */
export type NatHook = 'prerouting' | 'input' | 'output' | 'postrouting';

export type NatVerdict = 'accept' | 'drop';

export type NatExpr = Extract<Expr, { kind: 'nat' }>;

const IPV4_TOTAL_LEN = 2;
const IPV4_PROTOCOL = 9;
const IPV4_DST = 16;

function doneBit(manip: Manip): number {
  return manip === 'src' ? IPS_SRC_NAT_DONE : IPS_DST_NAT_DONE;
}

/** HOOK2MANIP: PREROUTING and OUTPUT change the destination, INPUT and POSTROUTING the source. */
export function hookManip(hook: NatHook): Manip {
  return hook === 'prerouting' || hook === 'output' ? 'dst' : 'src';
}

export class Nat {
  /** Exposed for tests and `conntrack`-style tools: the index find_appropriate_src walks. */
  readonly bySource: BySourceIndex;
  private readonly chooser: TupleChooser;
  private readonly icmp: IcmpReplyTranslator;
  private readonly range: NatRange2 = createRange();
  private readonly reply = createTuple();
  private readonly current = createTuple();
  private readonly chosen = createTuple();
  private readonly other = createTuple();
  private readonly target = createTuple();

  constructor(
    private readonly conntrack: Conntrack,
    private readonly host: NetfilterHost,
  ) {
    this.bySource = new BySourceIndex(conntrack, () => host.rng.u32());
    this.chooser = new TupleChooser(conntrack, this.bySource, host.rng);
    this.icmp = new IcmpReplyTranslator(conntrack);
  }

  /** nf_nat_initialized: a binding of this manip type exists for the packet's connection. */
  isInitialized(pkt: Packet, manip: Manip): boolean {
    const index = pkt.ctIndex;
    return index >= 0 && (this.conntrack.status(index) & doneBit(manip)) !== 0;
  }

  /**
   * A nat statement (nft snat/dnat/masquerade/redirect, xt SNAT/DNAT/MASQUERADE/REDIRECT) on
   * a connection's first packet: nf_nat_setup_info with the statement's range. `iif` is 0 for
   * a locally generated packet; `oif` is the egress device (MASQUERADE). 'drop' only where the
   * kernel drops here: a binding of this manip already exists, MASQUERADE's device has no
   * address, REDIRECT's incoming device has none. A tuple that is still in use is not a drop
   * here: the packet dies at confirm (insert_failed).
   */
  setup(pkt: Packet, nat: NatExpr, manip: Manip, iif: number, oif: number, now: number): NatVerdict {
    const index = pkt.ctIndex;
    // nf_nat_inet_fn runs no nat rule without a conntrack.
    if (index < 0) return 'accept';
    const range = rangeFromRule(nat.range, nat.flags, this.range);
    let type = manip;
    switch (nat.type) {
      case 'snat':
      case 'dnat':
        break;
      case 'masquerade': {
        type = 'src';
        const origSrc = this.conntrack.tuple(index, DIR_ORIGINAL, this.current).src;
        const daddr = readAddr(pkt.buf, pkt.network + IPV4_DST);
        const step = masqueradeRange(this.host, range, origSrc, oif, daddr);
        if (step !== 'setup') return step;
        break;
      }
      case 'redirect':
        type = 'dst';
        if (!redirectRange(this.host, range, iif)) return 'drop';
        break;
      default: {
        const never: never = nat.type;
        throw new Error(`unknown nat type ${String(never)}`);
      }
    }
    return this.setupInfo(index, range, type, now);
  }

  /**
   * nf_nat_alloc_null_binding: no nat rule bound this manip, so the connection is bound to its
   * own address (the reply tuple's view of it); the port may still move if the tuple clashes.
   */
  nullBinding(pkt: Packet, manip: Manip, now: number): NatVerdict {
    const index = pkt.ctIndex;
    if (index < 0) return 'accept';
    const reply = this.conntrack.tuple(index, DIR_REPLY, this.reply);
    const addr = manip === 'src' ? reply.dst : reply.src;
    return this.setupInfo(index, nullBindingRange(addr, this.range), manip, now);
  }

  /**
   * nf_nat_ipv4_fn's packet part at `hook`: an ICMP error RELATED to a connection gets
   * nf_nat_icmp_reply_translation; any other packet of a connection NATed in the matching
   * direction is rewritten (nf_nat_packet → nf_nat_manip_pkt). 'drop' when headers are cut
   * short.
   */
  apply(pkt: Packet, hook: NatHook, _now: number): NatVerdict {
    const index = pkt.ctIndex;
    if (index < 0) return 'accept';
    const buf = pkt.buf;
    const nhoff = pkt.network;
    const end = ipEnd(pkt);
    const manip = hookManip(hook);
    const dir = pkt.ctReply ? DIR_REPLY : DIR_ORIGINAL;
    const ctinfo = pkt.ctInfo;
    if (
      (ctinfo === IP_CT_RELATED || ctinfo === IP_CT_RELATED_REPLY) &&
      buf[nhoff + IPV4_PROTOCOL] === IPPROTO_ICMP
    ) {
      return this.icmp.translate(buf, nhoff, end, index, dir, manip) ? 'accept' : 'drop';
    }
    // nf_nat_packet
    let statusBit = manip === 'src' ? IPS_SRC_NAT : IPS_DST_NAT;
    if (dir === DIR_REPLY) statusBit ^= IPS_NAT_MASK;
    if ((this.conntrack.status(index) & statusBit) === 0) return 'accept';
    // nf_nat_manip_pkt: aim to look like the inverse of the other direction.
    const other = this.conntrack.tuple(index, 1 - dir, this.other);
    const target = this.target;
    if (!invertTuple(other, target)) return 'accept';
    return manipIpv4(buf, nhoff, end, target, manip) ? 'accept' : 'drop';
  }

  /** nf_nat_setup_info. */
  private setupInfo(index: number, range: NatRange2, manip: Manip, now: number): NatVerdict {
    const conntrack = this.conntrack;
    const status = conntrack.status(index);
    // Can't set up NAT for a confirmed connection.
    if ((status & IPS_CONFIRMED) !== 0) return 'accept';
    if ((status & doneBit(manip)) !== 0) return 'drop';
    // What we have looks like the inverse of the reply: the original tuple after earlier manips.
    const current = this.current;
    if (!invertTuple(conntrack.tuple(index, DIR_REPLY, this.reply), current)) return 'accept';
    const chosen = this.chosen;
    this.chooser.choose(chosen, current, range, index, manip, now);
    if (!tupleEquals(chosen, current)) {
      // Alter the conntrack so that it recognises replies.
      const reply = this.reply;
      invertTuple(chosen, reply);
      conntrack.setReplyTuple(index, reply);
      conntrack.setStatus(index, manip === 'src' ? IPS_SRC_NAT : IPS_DST_NAT);
    }
    if (manip === 'src') this.bySource.add(index);
    conntrack.setStatus(index, doneBit(manip));
    return 'accept';
  }
}

/** Where the datagram ends: the IPv4 total length, or the buffer's end if that comes first. */
function ipEnd(pkt: Packet): number {
  const at = pkt.network + IPV4_TOTAL_LEN;
  if (at + 2 > pkt.end) return pkt.end;
  const end = pkt.network + ((pkt.buf[at]! << 8) | pkt.buf[at + 1]!);
  return Math.min(end, pkt.end);
}

function readAddr(buf: Uint8Array, at: number): number {
  return ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0;
}
