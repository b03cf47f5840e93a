// A TCP capture as a ladder of segments, for bulk transfers whose captures are compared segment by segment rather
// than field by field: direction, relative sequence range, flags, relative acknowledgement, the window field and
// the IP id step; retransmissions (a range the sender already sent) are listed apart.

import { ETHERTYPE_IPV4, EthernetView } from '../../src/wire/ethernet.ts';
import { IPPROTO_TCP, Ipv4View } from '../../src/wire/ipv4.ts';
import { TcpView } from '../../src/wire/tcp.ts';

export interface SegmentLadder {
  /** `a>b 1:1449 . ack 1 win 63`, one line per first transmission, in capture order. */
  readonly segments: readonly string[];
  /** The same lines for segments whose sequence range was sent before. */
  readonly retransmissions: readonly string[];
  /** Whether every data segment of a direction carried the previous segment's IP id plus one. */
  readonly idsStepByOne: boolean;
}

interface Direction {
  isn: number;
  highest: number;
  lastId: number;
}

const FLAG_NAMES: readonly [number, string][] = [
  [0x02, 'S'],
  [0x01, 'F'],
  [0x04, 'R'],
  [0x08, 'P'],
];

/** The ladder of one TCP connection's frames on an Ethernet capture; other frames are skipped. */
export function segmentLadder(frames: readonly Uint8Array[]): SegmentLadder {
  const segments: string[] = [];
  const retransmissions: string[] = [];
  const directions = new Map<string, Direction>();
  let idsStepByOne = true;
  for (const frame of frames) {
    const eth = EthernetView.checked(frame);
    if (!(eth instanceof EthernetView) || eth.ethertype !== ETHERTYPE_IPV4) continue;
    const ip = Ipv4View.checked(frame.subarray(eth.headerLen));
    if (!(ip instanceof Ipv4View) || ip.protocol !== IPPROTO_TCP) continue;
    const tcp = TcpView.checked(
      ip.bytes.subarray(0, ip.offset + ip.totalLen),
      ip.offset + ip.headerLen,
      ip.totalLen - ip.headerLen,
    );
    if (!(tcp instanceof TcpView)) continue;
    const from = `${tcp.srcPort}`;
    const to = `${tcp.dstPort}`;
    let dir = directions.get(from);
    if (dir === undefined || tcp.syn) {
      dir = { isn: tcp.seqNumber, highest: 0, lastId: -1 };
      directions.set(from, dir);
    }
    const peer = directions.get(to);
    const len = tcp.segmentLen - tcp.headerLen;
    const seq = (tcp.seqNumber - dir.isn) >>> 0;
    const end = seq + len + (tcp.syn ? 1 : 0) + (tcp.fin ? 1 : 0);
    let flags = '';
    for (const [bit, name] of FLAG_NAMES) if (tcp.flags & bit) flags += name;
    if (tcp.ack) flags += '.';
    const ack = tcp.ack && peer !== undefined ? ` ack ${(tcp.ackNumber - peer.isn) >>> 0}` : '';
    const line = `${from}>${to} ${seq}:${seq + len} ${flags}${ack} win ${tcp.window}`;
    const sent = end > seq;
    if (sent && end <= dir.highest) {
      retransmissions.push(line);
      continue;
    }
    if (len > 0) {
      if (dir.lastId >= 0 && ip.ident !== ((dir.lastId + 1) & 0xffff)) idsStepByOne = false;
      dir.lastId = ip.ident;
    }
    if (sent) dir.highest = end;
    segments.push(line);
  }
  return { segments, retransmissions, idsStepByOne };
}
