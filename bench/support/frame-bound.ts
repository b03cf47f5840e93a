// The allocation-free bound of a packet path: the same frame built, parsed, NAT-rewritten, encapsulated and decapsulated as the path does it, in one reused buffer with headroom, with no lookups (no routes, neighbours, FDB, sockets, conntrack, rules) and no scheduler.
//
// Each step is the byte work the stack must do whatever its data structures: the sender's UDP checksum and IPv4
// header, the IPv4 header checksum verified at every ip_rcv, the TTL decremented with an incremental checksum at
// every forward, the NAT rewrites with RFC 1624 updates, the VXLAN outer headers (outer UDP checksum over the whole
// inner frame when the device computes it) and their checks on the way in, the UDP checksum verified at the end.

import { readU16, readU32, writeU16, writeU32 } from '../../src/wire/bytes.ts';
import {
  checksumIsValid,
  internetChecksum,
  pseudoHeaderSum,
  updateChecksum16,
  updateChecksum32,
  updateUdpChecksum16,
  updateUdpChecksum32,
} from '../../src/wire/checksum.ts';
import type { PathName } from './path-fixtures.ts';

const HEADROOM = 128;
const ETH = 14;
const IP = 20;
const UDP = 8;
const VXLAN = 8;

export interface BoundEnds {
  readonly srcAddr: number;
  readonly dstAddr: number;
  /** The address after DNAT (the endpoint), the source after SNAT (the node); 0 when the path has none. */
  readonly dnatAddr: number;
  readonly snatAddr: number;
  readonly dnatPort: number;
  readonly outerSrc: number;
  readonly outerDst: number;
  readonly outerUdpChecksum: boolean;
}

export class FrameBound {
  private readonly buf: Uint8Array;
  private start = HEADROOM;
  /** Sum of the checks, so no step can be optimised away. */
  sink = 0;

  constructor(
    private readonly path: PathName,
    private readonly ends: BoundEnds,
    payloadBytes: number,
  ) {
    this.buf = new Uint8Array(HEADROOM + ETH + IP + UDP + payloadBytes);
    for (let i = 0; i < payloadBytes; i++) this.buf[HEADROOM + ETH + IP + UDP + i] = i;
  }

  /** One datagram of the flow (srcPort, dstPort) along the path. */
  run(srcPort: number, dstPort: number): void {
    const ends = this.ends;
    this.build(srcPort, dstPort, ends.srcAddr, ends.dstAddr);
    if (this.path === 'bridge') {
      this.ipRcv();
      this.udpVerify();
      return;
    }
    this.ipRcv();
    if (this.path === 'clusterip') this.rewriteDst(ends.dnatAddr, dstPort);
    if (this.path === 'nodeport') {
      this.rewriteDst(ends.dnatAddr, ends.dnatPort);
      this.rewriteSrc(ends.snatAddr, srcPort);
    }
    this.decrementTtl();
    this.encapsulate(srcPort);
    this.decapsulate();
    this.ipRcv();
    this.decrementTtl();
    this.ipRcv();
    this.udpVerify();
  }

  private get ip(): number {
    return this.start + ETH;
  }

  /** udp_sendmsg + ip_output + dev_hard_header: UDP header and checksum, IPv4 header and checksum, Ethernet. */
  private build(srcPort: number, dstPort: number, src: number, dst: number): void {
    const buf = this.buf;
    this.start = HEADROOM;
    const ip = this.ip;
    const udp = ip + IP;
    const udpLen = buf.length - udp;
    writeU16(buf, udp, srcPort);
    writeU16(buf, udp + 2, dstPort);
    writeU16(buf, udp + 4, udpLen);
    writeU16(buf, udp + 6, 0);
    writeU16(
      buf,
      udp + 6,
      internetChecksum(buf, udp, udp + udpLen, pseudoHeaderSum(src, dst, 17, udpLen)) || 0xffff,
    );
    this.ipHeader(ip, src, dst, 17, IP + udpLen, 64);
    this.ethHeader(this.start);
  }

  private ipHeader(
    ip: number,
    src: number,
    dst: number,
    protocol: number,
    totalLen: number,
    ttl: number,
  ): void {
    const buf = this.buf;
    buf[ip] = 0x45;
    buf[ip + 1] = 0;
    writeU16(buf, ip + 2, totalLen);
    writeU16(buf, ip + 4, 0);
    writeU16(buf, ip + 6, 0x4000);
    buf[ip + 8] = ttl;
    buf[ip + 9] = protocol;
    writeU16(buf, ip + 10, 0);
    writeU32(buf, ip + 12, src);
    writeU32(buf, ip + 16, dst);
    writeU16(buf, ip + 10, internetChecksum(buf, ip, ip + IP));
  }

  private ethHeader(at: number): void {
    const buf = this.buf;
    for (let i = 0; i < 12; i++) buf[at + i] = 0x0a + i;
    writeU16(buf, at + 12, 0x0800);
  }

  /** ip_rcv_core: version, length and header checksum. */
  private ipRcv(): void {
    const buf = this.buf;
    const ip = this.ip;
    const ok =
      buf[ip] === 0x45 && readU16(buf, ip + 2) <= buf.length - ip && checksumIsValid(buf, ip, ip + IP);
    this.sink += ok ? 1 : 0;
  }

  private udpVerify(): void {
    const buf = this.buf;
    const ip = this.ip;
    const udp = ip + IP;
    const len = readU16(buf, udp + 4);
    const pseudo = pseudoHeaderSum(readU32(buf, ip + 12), readU32(buf, ip + 16), 17, len);
    this.sink += checksumIsValid(buf, udp, udp + len, pseudo) ? 1 : 0;
  }

  /** ip_decrease_ttl. */
  private decrementTtl(): void {
    const buf = this.buf;
    const ip = this.ip;
    const old = readU16(buf, ip + 8);
    buf[ip + 8] = buf[ip + 8]! - 1;
    writeU16(buf, ip + 10, updateChecksum16(readU16(buf, ip + 10), old, readU16(buf, ip + 8)));
  }

  /** nf_nat_ipv4_manip_pkt for the destination: address and port, IPv4 and UDP checksums updated. */
  private rewriteDst(addr: number, port: number): void {
    const buf = this.buf;
    const ip = this.ip;
    const udp = ip + IP;
    const oldAddr = readU32(buf, ip + 16);
    const oldPort = readU16(buf, udp + 2);
    writeU32(buf, ip + 16, addr);
    writeU16(buf, ip + 10, updateChecksum32(readU16(buf, ip + 10), oldAddr, addr));
    writeU16(buf, udp + 2, port);
    let check = updateUdpChecksum32(readU16(buf, udp + 6), oldAddr, addr);
    check = updateUdpChecksum16(check, oldPort, port);
    writeU16(buf, udp + 6, check);
  }

  private rewriteSrc(addr: number, port: number): void {
    const buf = this.buf;
    const ip = this.ip;
    const udp = ip + IP;
    const oldAddr = readU32(buf, ip + 12);
    const oldPort = readU16(buf, udp);
    writeU32(buf, ip + 12, addr);
    writeU16(buf, ip + 10, updateChecksum32(readU16(buf, ip + 10), oldAddr, addr));
    writeU16(buf, udp, port);
    let check = updateUdpChecksum32(readU16(buf, udp + 6), oldAddr, addr);
    check = updateUdpChecksum16(check, oldPort, port);
    writeU16(buf, udp + 6, check);
  }

  /** vxlan_xmit_one: VXLAN, outer UDP (checksum over the inner frame), outer IPv4 and Ethernet, into the headroom. */
  private encapsulate(srcPort: number): void {
    const buf = this.buf;
    const ends = this.ends;
    const inner = this.start;
    const innerLen = buf.length - inner;
    const vxlan = inner - VXLAN;
    buf[vxlan] = 0x08;
    buf[vxlan + 1] = 0;
    buf[vxlan + 2] = 0;
    buf[vxlan + 3] = 0;
    writeU32(buf, vxlan + 4, 1 << 8);
    const udp = vxlan - UDP;
    const udpLen = UDP + VXLAN + innerLen;
    writeU16(buf, udp, 32_768 + (srcPort & 0x3fff));
    writeU16(buf, udp + 2, 8472);
    writeU16(buf, udp + 4, udpLen);
    writeU16(buf, udp + 6, 0);
    if (ends.outerUdpChecksum)
      writeU16(
        buf,
        udp + 6,
        internetChecksum(buf, udp, udp + udpLen, pseudoHeaderSum(ends.outerSrc, ends.outerDst, 17, udpLen)) ||
          0xffff,
      );
    this.start = udp - IP - ETH;
    this.ipHeader(this.start + ETH, ends.outerSrc, ends.outerDst, 17, IP + udpLen, 64);
    this.ethHeader(this.start);
  }

  /** ip_rcv of the outer packet, udp_rcv's checksum, vxlan_rcv's header check, then the inner frame. */
  private decapsulate(): void {
    this.ipRcv();
    this.udpVerify();
    const vxlan = this.ip + IP + UDP;
    this.sink += this.buf[vxlan] === 0x08 ? 1 : 0;
    this.start = vxlan + VXLAN;
  }
}
