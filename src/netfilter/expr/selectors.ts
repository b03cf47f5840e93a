// Reads the values rules compare: packet headers (nft_payload), metadata (nft_meta), conntrack (nft_ct), route
// types (nft_fib) and counters (nft_numgen); a value that does not exist for this packet is `undefined`, which ends
// the rule as the kernel's NFT_BREAK does.

import { PacketType } from '../../core/packet.ts';
import type { HashSelector, Selector, Value } from '../ir.ts';
import type { PacketState } from '../packet-state.ts';
import { readClock } from './clock.ts';
import { readFamilyField } from './family-fields.ts';
import { fibValue } from './fib.ts';
import { jhashValue, symhashValue } from './hash.ts';
import { rtValue } from './rt.ts';
import { socketValue } from './socket.ts';

/** nft's ct state bits (NF_CT_STATE_*_BIT). */
export const CT_STATE_BITS = { invalid: 1, established: 2, related: 4, new: 8, untracked: 64 } as const;

const IPPROTO_ICMP = 1;
const IPPROTO_TCP = 6;
const IPPROTO_UDP = 17;

/** The IPv4 protocol and transport header offset, or -1 when there is no (first-fragment) transport header. */
function transport(state: PacketState, protocol?: number): number {
  const { buf } = state.pkt;
  const ip = state.pkt.network;
  if (protocol !== undefined && buf[ip + 9] !== protocol) return -1;
  if (((buf[ip + 6]! & 0x1f) | buf[ip + 7]!) !== 0) return -1;
  const l4 = ip + (buf[ip]! & 0xf) * 4;
  return l4 + 4 <= state.pkt.end ? l4 : -1;
}

function u16(buf: Uint8Array, at: number): number {
  return (buf[at]! << 8) | buf[at + 1]!;
}

function u32(buf: Uint8Array, at: number): number {
  return ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0;
}

function payload(
  state: PacketState,
  field: Extract<Selector, { kind: 'payload' }>['field'],
): number | undefined {
  const { buf } = state.pkt;
  const ip = state.pkt.network;
  switch (field) {
    case 'ip saddr':
      return u32(buf, ip + 12);
    case 'ip daddr':
      return u32(buf, ip + 16);
    case 'ip protocol':
      return buf[ip + 9]!;
    case 'ip length':
      return u16(buf, ip + 2);
    case 'ip ttl':
      return buf[ip + 8]!;
    case 'ip id':
      return u16(buf, ip + 4);
    case 'ip frag-off':
      return u16(buf, ip + 6);
    case 'ip dscp':
      return buf[ip + 1]! >>> 2;
    case 'ip ecn':
      return buf[ip + 1]! & 3;
    case 'tcp sport':
    case 'tcp dport': {
      const l4 = transport(state, IPPROTO_TCP);
      return l4 < 0 ? undefined : u16(buf, l4 + (field === 'tcp sport' ? 0 : 2));
    }
    case 'tcp flags': {
      const l4 = transport(state, IPPROTO_TCP);
      return l4 < 0 || l4 + 14 > state.pkt.end ? undefined : buf[l4 + 13]!;
    }
    case 'udp sport':
    case 'udp dport': {
      const l4 = transport(state, IPPROTO_UDP);
      return l4 < 0 ? undefined : u16(buf, l4 + (field === 'udp sport' ? 0 : 2));
    }
    case 'th sport':
    case 'th dport': {
      const l4 = transport(state);
      return l4 < 0 ? undefined : u16(buf, l4 + (field === 'th sport' ? 0 : 2));
    }
    case 'icmp type':
    case 'icmp code': {
      const l4 = transport(state, IPPROTO_ICMP);
      return l4 < 0 ? undefined : buf[l4 + (field === 'icmp type' ? 0 : 1)]!;
    }
    case 'icmp id': {
      const l4 = transport(state, IPPROTO_ICMP);
      return l4 < 0 || l4 + 6 > state.pkt.end ? undefined : u16(buf, l4 + 4);
    }
    case 'ip version':
      return buf[ip]! >>> 4;
    case 'ip hdrlength':
      return buf[ip]! & 0xf;
    case 'ip checksum':
      return u16(buf, ip + 10);
    case 'tcp sequence':
    case 'tcp ackseq':
    case 'tcp doff':
    case 'tcp window':
    case 'tcp checksum':
    case 'tcp urgptr': {
      const l4 = transport(state, IPPROTO_TCP);
      if (l4 < 0 || l4 + 20 > state.pkt.end) return undefined;
      if (field === 'tcp sequence') return u32(buf, l4 + 4);
      if (field === 'tcp ackseq') return u32(buf, l4 + 8);
      if (field === 'tcp doff') return buf[l4 + 12]! >>> 4;
      return u16(buf, l4 + (field === 'tcp window' ? 14 : field === 'tcp checksum' ? 16 : 18));
    }
    case 'udp length':
    case 'udp checksum': {
      const l4 = transport(state, IPPROTO_UDP);
      return l4 < 0 || l4 + 8 > state.pkt.end ? undefined : u16(buf, l4 + (field === 'udp length' ? 4 : 6));
    }
    case 'icmp checksum': {
      const l4 = transport(state, IPPROTO_ICMP);
      return l4 < 0 ? undefined : u16(buf, l4 + 2);
    }
    case 'icmp sequence':
    case 'icmp mtu': {
      const l4 = transport(state, IPPROTO_ICMP);
      return l4 < 0 || l4 + 8 > state.pkt.end ? undefined : u16(buf, l4 + 6);
    }
    case 'icmp gateway': {
      const l4 = transport(state, IPPROTO_ICMP);
      return l4 < 0 || l4 + 8 > state.pkt.end ? undefined : u32(buf, l4 + 4);
    }
    case 'ether saddr':
    case 'ether daddr': {
      // Only packets that came in on an Ethernet device still have their MAC header in front.
      const mac = ip - 14;
      if (state.pkt.iif === 0 || mac < 0 || state.hook === 'output' || state.hook === 'postrouting')
        return undefined;
      const at = mac + (field === 'ether daddr' ? 0 : 6);
      return u16(buf, at) * 0x1_0000_0000 + u32(buf, at + 2);
    }
  }
}

function meta(
  state: PacketState,
  key: Extract<Selector, { kind: 'meta' }>['key'],
): number | string | undefined {
  const pkt = state.pkt;
  switch (key) {
    case 'mark':
      return pkt.mark >>> 0;
    case 'iif':
      return state.inDev?.ifindex;
    case 'oif':
      return state.outDev?.ifindex;
    // nft_meta_store_ifname: no device reads as the empty name (`! -o lo` matches in PREROUTING).
    case 'iifname':
      return state.inDev?.name ?? '';
    case 'oifname':
      return state.outDev?.name ?? '';
    case 'l4proto':
      // pkt->tprot is set only for IPv4 (nft_set_pktinfo_ipv4_validate in the bridge and netdev chains).
      return state.l2Protocol === 0x0800 ? pkt.buf[pkt.network + 9]! : undefined;
    case 'nfproto':
      return 2; // NFPROTO_IPV4
    case 'protocol':
      return state.l2Protocol;
    case 'length':
      return pkt.end - pkt.network;
    case 'pkttype':
      return pkt.pktType === PacketType.Outgoing ? PacketType.Host : pkt.pktType;
    case 'nftrace':
      return pkt.nftrace ? 1 : 0;
    // One CPU, no realms, no IPsec, no VRFs, every device in group 0 (default).
    case 'cpu':
    case 'priority': // nothing sets skb->priority here (no SO_PRIORITY, tc or meta priority set)
    case 'rtclassid':
    case 'ipsec':
    case 'sdif':
      return 0;
    case 'sdifname':
      return '';
    case 'iifgroup':
      return state.inDev === undefined ? undefined : 0;
    case 'oifgroup':
      return state.outDev === undefined ? undefined : 0;
    case 'iiftype':
      return state.inDev === undefined ? undefined : deviceType(state.inDev.kind);
    case 'oiftype':
      return state.outDev === undefined ? undefined : deviceType(state.outDev.kind);
    case 'iifkind':
      return state.inDev === undefined ? undefined : deviceKind(state.inDev.kind);
    case 'oifkind':
      return state.outDev === undefined ? undefined : deviceKind(state.outDev.kind);
    // nft_meta_get_eval_skugid: only packets a local socket sent have an owner; every process here is root.
    case 'skuid':
    case 'skgid':
    case 'cgroup':
      return locallyGenerated(state) ? 0 : undefined;
    case 'secmark':
      return 0; // no LSM labels packets

    case 'random':
      return state.host.rng.u32();
    case 'ibrname':
    case 'obrname':
    case 'ibrpvid':
    case 'ibrvproto':
      return undefined;
    case 'time':
    case 'day':
    case 'hour':
      return readClock(key, state.host.now());
  }
}

/** The rtnetlink kind of a device (`ip -d link`'s kind), as `meta iifkind` reads it; loopback has none. */
function deviceKind(kind: string): string | undefined {
  return kind === 'loopback' ? undefined : kind;
}

/** ARPHRD_* of a device (`meta iiftype`): loopback 772, the rest Ethernet. */
function deviceType(kind: string): number {
  return kind === 'loopback' ? 772 : 1;
}

/** A packet this host sent (the output path), which has the sending socket's owner. */
function locallyGenerated(state: PacketState): boolean {
  return state.hook === 'output' || (state.hook === 'postrouting' && state.inDev === undefined);
}

function conntrack(state: PacketState, selector: Extract<Selector, { kind: 'ct' }>): number | undefined {
  const pkt = state.pkt;
  if (selector.key === 'state') return state.ctStateBits();
  const ct = state.conntrack;
  if (ct === undefined || pkt.ctIndex < 0) return undefined;
  const index = pkt.ctIndex;
  switch (selector.key) {
    case 'status':
      return ct.status(index);
    case 'mark':
      return ct.mark(index);
    case 'direction':
      return pkt.ctReply ? 1 : 0;
    case 'expiration':
      return Math.floor(ct.timeoutRemaining(index, state.host.now()) / 1e6);
    case 'protocol':
      return ct.protocol(index);
    case 'l3proto':
      return 2; // NFPROTO_IPV4
    case 'zone':
      return 0; // conntrack zones are not modelled: every entry is in zone 0
    case 'id':
      return ct.id(index);
    case 'helper':
      // nft_ct_get_eval: a connection without a helper breaks the rule (NFT_BREAK); no helper is modelled.
      return undefined;
    case 'saddr':
    case 'daddr':
    case 'proto-src':
    case 'proto-dst': {
      const tuple = ct.tuple(index, selector.dir === 'reply' ? 1 : 0, state.scratchTuple);
      if (selector.key === 'saddr') return tuple.src;
      if (selector.key === 'daddr') return tuple.dst;
      return selector.key === 'proto-src' ? tuple.srcPort : tuple.dstPort;
    }
  }
}

/** nft_ng_inc's per-expression counters (priv->counter), keyed by the rule's selector object. */
const incCounters = new WeakMap<Selector, number>();

/** nft_ng_inc_gen: the counter starts at modulus - 1 (nft_ng_inc_init), so the first packet gets 0. */
function nextInc(selector: Extract<Selector, { kind: 'numgen' }>): number {
  const previous = incCounters.get(selector) ?? selector.mod - 1;
  const next = previous + 1 < selector.mod ? previous + 1 : 0;
  incCounters.set(selector, next);
  return next;
}

/** symhash over the IPv4 addresses and the transport ports (0 for a packet without them). */
function symhash(state: PacketState, selector: HashSelector): number {
  const { buf } = state.pkt;
  const ip = state.pkt.network;
  const l4 = transport(state);
  const proto = buf[ip + 9];
  const ports = l4 >= 0 && (proto === IPPROTO_TCP || proto === IPPROTO_UDP);
  return symhashValue(
    selector,
    state.host.rng,
    u32(buf, ip + 12),
    u32(buf, ip + 16),
    ports ? u16(buf, l4) : 0,
    ports ? u16(buf, l4 + 2) : 0,
  );
}

/** Reads one value for the packet, applying its bitwise transform. */
export function readValue(state: PacketState, value: Value): number | string | undefined {
  const selector = value.selector;
  let raw: number | string | undefined;
  switch (selector.kind) {
    case 'payload':
      raw = payload(state, selector.field);
      break;
    case 'meta':
      raw = meta(state, selector.key);
      break;
    case 'ct':
      raw = conntrack(state, selector);
      break;
    case 'fib':
      raw = fibValue(state, selector);
      break;
    case 'numgen':
      // nft_ng_random: a uniform draw in [0, mod), plus the offset; nft_ng_inc: the expression's own counter.
      raw =
        (selector.mode === 'inc' ? nextInc(selector) : state.host.rng.int(selector.mod)) + selector.offset;
      break;
    case 'hash':
      raw =
        selector.mode === 'jhash'
          ? jhashValue(selector, state.host.rng, state, readValue)
          : symhash(state, selector);
      break;
    case 'rt':
      raw = rtValue(state, selector);
      break;
    case 'socket':
      raw = socketValue(state, selector);
      break;
    case 'family-field':
      raw = readFamilyField(state, selector.field);
      break;
  }
  if (typeof raw !== 'number') return raw;
  if (value.mask !== undefined) raw = (raw & value.mask) >>> 0;
  if (value.xor !== undefined) raw = (raw ^ value.xor) >>> 0;
  return raw;
}
