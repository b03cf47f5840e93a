// A capture compared as TCP byte streams rather than frame by frame: for each connection (in order of its first
// frame) and direction, the concatenated payload (the HTTP Date blanked, dissect.ts) and the control flags in order.
// For transfers larger than a segment, where Linux's veth carries GSO super-segments and grows its receive window
// (docs/deviations.md: no GSO/TSO, receive-window growth), so segment boundaries, ACKs and windows differ by design.
// Not handled: retransmitted bytes (counted twice), and frames other than TCP (counted, not compared).

import { dissectFrame, TcpSequenceSpaces } from './dissect.ts';
import type { CaptureResult } from './observed.ts';

export interface TcpStreams {
  /** `conn 1 client->server` → payload hex; `... flags` → control flags in order (`S`, `S.`, `F.`, `R.`). */
  readonly streams: ReadonlyMap<string, string>;
  readonly otherFrames: number;
}

/** TCP flag bits for the control letters tcpdump prints. */
const FIN = 0x01;
const SYN = 0x02;
const RST = 0x04;
const ACK = 0x10;

export function tcpStreams(capture: CaptureResult): TcpStreams {
  const flows = new TcpSequenceSpaces();
  const connections: string[] = [];
  const clients = new Map<string, string>();
  const streams = new Map<string, string>();
  let otherFrames = 0;
  for (const frame of capture.frames) {
    const fields = new Map(dissectFrame(frame, flows).map((f) => [f.name, f.value]));
    const flagsText = fields.get('tcp.flags');
    if (flagsText === undefined) {
      otherFrames++;
      continue;
    }
    const src = `${fields.get('ipv4.src')}:${fields.get('tcp.srcPort')}`;
    const dst = `${fields.get('ipv4.dst')}:${fields.get('tcp.dstPort')}`;
    const key = [src, dst].sort().join(' ');
    if (!connections.includes(key)) connections.push(key);
    const flags = Number(flagsText);
    // The client is whoever sent the SYN; a connection seen without one counts its first sender as the client.
    if (!clients.has(key) || (flags & (SYN | ACK)) === SYN) clients.set(key, src);
    const name = `conn ${connections.indexOf(key) + 1} ${clients.get(key) === src ? 'client->server' : 'server->client'}`;
    streams.set(
      `${name} payload`,
      (streams.get(`${name} payload`) ?? '') + (fields.get('tcp.payload') ?? ''),
    );
    if ((flags & (SYN | FIN | RST)) !== 0) {
      const letters = `${flags & SYN ? 'S' : ''}${flags & FIN ? 'F' : ''}${flags & RST ? 'R' : ''}${flags & ACK ? '.' : ''}`;
      streams.set(`${name} flags`, `${streams.get(`${name} flags`) ?? ''}${letters} `);
    }
  }
  return { streams, otherFrames };
}
