// The packet as the stack carries it: one frame's bytes with headroom, plus the metadata Linux keeps in the skb.
//
// Headers are read and written in place through wire/ views. Encapsulation prepends into
// the headroom (`push`), decapsulation strips (`pull`); neither copies. A packet reaching
// several consumers (a bridge flood, a capture tap) is copied with `clone()`, by name.

/** Headroom reserved in front of every frame: room for two VXLAN encapsulations (2 x 50) and a VLAN tag. */
export const DEFAULT_HEADROOM = 128;

/**
 * Packet buffers are carved from 64 KiB slabs: a view on a shared ArrayBuffer costs a fraction
 * of a fresh backing store, which V8 allocates and accounts one by one. Slab space is never
 * reused, so a new buffer is zeroed; a slab is collected once no packet views it any more.
 * Buffers bigger than a quarter slab get their own.
 */
const SLAB_BYTES = 64 * 1024;
let slab = new Uint8Array(SLAB_BYTES);
let slabUsed = 0;

function packetBuffer(size: number): Uint8Array {
  if (size > SLAB_BYTES / 4) return new Uint8Array(size);
  if (slabUsed + size > SLAB_BYTES) {
    slab = new Uint8Array(SLAB_BYTES);
    slabUsed = 0;
  }
  const buf = slab.subarray(slabUsed, slabUsed + size);
  // Keep every buffer 8-byte aligned.
  slabUsed += (size + 7) & ~7;
  return buf;
}

/** Packet.skUid/skGid of a packet the stack's own control socket sent (a socket without a file). */
export const SK_KERNEL = -2;

/** Where a received frame was addressed, as the kernel's `skb->pkt_type` (and SLL2's packet type). */
export const enum PacketType {
  Host = 0,
  Broadcast = 1,
  Multicast = 2,
  OtherHost = 3,
  Outgoing = 4,
}

export class Packet {
  /** Backing storage; the frame is `buf[start, end)`. */
  buf: Uint8Array;
  start: number;
  end: number;
  /** Offset of the network header inside `buf` (the kernel's `skb_network_header`), -1 when unset. */
  network = -1;
  /** The 32-bit Netfilter mark (`skb->mark`). */
  mark = 0;
  /** The `meta nftrace` flag. */
  nftrace = false;
  /** The packet's own part of its trace id (the kernel hashes the skb's address): netfilter/trace.ts, traceIdOf. */
  traceId = 0;
  /** ifindex of the device the packet was received on, 0 for locally generated. */
  iif = 0;
  pktType: PacketType = PacketType.Host;
  /**
   * Held in a host queue (a neighbour's arp_queue) after its sender let it go: the kernel's fast clone
   * still alive, which skb_still_in_host_queue reads to skip a TCP retransmission.
   */
  hostQueued = false;
  /** Conntrack entry index and direction, owned by netfilter/conntrack (-1: none). */
  ctIndex = -1;
  ctReply = false;
  /** Conntrack info as netfilter reads it (`enum ip_conntrack_info`), owned by netfilter. */
  ctInfo = 0;
  /**
   * br_netfilter's state (the skb's nf_bridge extension): PREROUTING already ran at bridge level,
   * so ip_rcv skips it (ip_sabotage_in); and for a DNAT bridged back out after a neighbour lookup,
   * the port the frame came in on and its original source MAC (0: none).
   */
  brPrerouted = false;
  brDnatPort = 0;
  brDnatSrcMac = 0;
  /**
   * br_netfilter's bridge ports (nf_bridge->physindev / physoutdev, ifindex, 0: none), which `-m physdev`
   * reads; `physBridged` is set once the frame was bridged on to a port (physoutdev known).
   */
  physIn = 0;
  physOut = 0;
  /**
   * The owning socket's file credentials (skb->sk->sk_socket->file->f_cred) for `-m owner`: -1 no socket,
   * SK_KERNEL a kernel socket without a file (the ICMP and TCP control sockets' answers).
   */
  skUid = -1;
  skGid = -1;
  /**
   * The transparent socket TPROXY assigned to the packet (nf_tproxy_assign_sock): its bound address and port,
   * which the transport's demux takes instead of the packet's destination (0: none).
   */
  tproxyAddr = 0;
  tproxyPort = 0;

  constructor(buf: Uint8Array, start: number, end: number) {
    this.buf = buf;
    this.start = start;
    this.end = end;
  }

  /** A packet holding a copy of `frame` with `headroom` free bytes in front. */
  static fromFrame(frame: Uint8Array, headroom = DEFAULT_HEADROOM): Packet {
    const buf = packetBuffer(headroom + frame.length);
    buf.set(frame, headroom);
    return new Packet(buf, headroom, headroom + frame.length);
  }

  /** A packet with `length` zeroed bytes to fill in, and headroom in front. */
  static allocate(length: number, headroom = DEFAULT_HEADROOM): Packet {
    return new Packet(packetBuffer(headroom + length), headroom, headroom + length);
  }

  get length(): number {
    return this.end - this.start;
  }

  /** The frame's bytes (a view, not a copy). */
  frame(): Uint8Array {
    return this.buf.subarray(this.start, this.end);
  }

  /** Makes room for `bytes` more header bytes in front (the kernel's `skb_push`), growing the buffer only when the headroom is used up. */
  push(bytes: number): void {
    if (this.start < bytes) {
      const grown = new Uint8Array(this.buf.length + DEFAULT_HEADROOM + bytes);
      grown.set(this.buf.subarray(this.start, this.end), DEFAULT_HEADROOM + bytes);
      const shift = DEFAULT_HEADROOM + bytes - this.start;
      if (this.network >= 0) this.network += shift;
      this.buf = grown;
      this.start += shift;
      this.end += shift;
    }
    this.start -= bytes;
  }

  /** Removes `bytes` header bytes from the front (the kernel's `skb_pull`). */
  pull(bytes: number): void {
    if (bytes > this.length) throw new RangeError(`pull ${bytes} beyond a ${this.length}-byte frame`);
    this.start += bytes;
  }

  /** Trims the frame to `length` bytes (the kernel's `skb_trim`, e.g. Ethernet padding). */
  trim(length: number): void {
    if (length < this.length) this.end = this.start + length;
  }

  /** A deep copy, bytes and metadata, for fan-out points (bridge flood, capture). */
  clone(): Packet {
    const copy = Packet.fromFrame(this.frame(), this.start);
    copy.network = this.network;
    copy.mark = this.mark;
    copy.nftrace = this.nftrace;
    copy.traceId = this.traceId;
    copy.iif = this.iif;
    copy.pktType = this.pktType;
    copy.ctIndex = this.ctIndex;
    copy.ctReply = this.ctReply;
    copy.ctInfo = this.ctInfo;
    copy.brPrerouted = this.brPrerouted;
    copy.brDnatPort = this.brDnatPort;
    copy.brDnatSrcMac = this.brDnatSrcMac;
    copy.physIn = this.physIn;
    copy.physOut = this.physOut;
    copy.skUid = this.skUid;
    copy.skGid = this.skGid;
    copy.tproxyAddr = this.tproxyAddr;
    copy.tproxyPort = this.tproxyPort;
    return copy;
  }
}
