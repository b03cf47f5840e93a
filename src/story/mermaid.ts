// `packetlab run --mermaid`: a Mermaid `sequenceDiagram` of the frames that crossed a veth between (or within)
// namespaces, one arrow per frame received, labelled with its protocol and addresses; participants in the order
// they first sent or received. Deterministic: it depends only on the frames and their order. No flowchart form.

import { formatIpv4, readIpv4 } from '../wire/address.ts';
import { readU16 } from '../wire/bytes.ts';

const TCP_FLAG_NAMES: readonly (readonly [number, string])[] = [
  [0x02, 'SYN'],
  [0x10, 'ACK'],
  [0x08, 'PSH'],
  [0x01, 'FIN'],
  [0x04, 'RST'],
];

const ICMP_TYPES: Readonly<Record<number, string>> = {
  0: 'echo reply',
  3: 'unreachable',
  8: 'echo request',
  11: 'time exceeded',
};

/** One frame's label: `TCP 10.0.0.1:41234 → 10.0.0.2:80 [SYN]`, `ARP who-has 10.0.0.2 tell 10.0.0.1`. */
export function frameLabel(frame: Uint8Array): string {
  if (frame.length < 14) return `frame of ${frame.length} bytes`;
  const ethertype = readU16(frame, 12);
  if (ethertype === 0x0806 && frame.length >= 42) {
    const who = formatIpv4(readIpv4(frame, 38));
    const tell = formatIpv4(readIpv4(frame, 28));
    return readU16(frame, 20) === 1 ? `ARP who-has ${who} tell ${tell}` : `ARP ${tell} is-at`;
  }
  if (ethertype !== 0x0800 || frame.length < 34 || frame[14]! >> 4 !== 4)
    return `ethertype 0x${ethertype.toString(16).padStart(4, '0')}`;
  const protocol = frame[23]!;
  const src = formatIpv4(readIpv4(frame, 26));
  const dst = formatIpv4(readIpv4(frame, 30));
  const l4 = 14 + (frame[14]! & 0xf) * 4;
  const firstFragment = (readU16(frame, 20) & 0x1fff) === 0;
  if (protocol === 6 && firstFragment && frame.length >= l4 + 14) {
    const bits = frame[l4 + 13]!;
    const flags = TCP_FLAG_NAMES.filter(([bit]) => (bits & bit) !== 0).map(([, name]) => name);
    return `TCP ${src}:${readU16(frame, l4)} → ${dst}:${readU16(frame, l4 + 2)} [${flags.join(',')}]`;
  }
  if (protocol === 17 && firstFragment && frame.length >= l4 + 8) {
    const dport = readU16(frame, l4 + 2);
    return `UDP ${src}:${readU16(frame, l4)} → ${dst}:${dport}${dport === 8472 || dport === 4789 ? ' VXLAN' : ''}`;
  }
  if (protocol === 1 && firstFragment && frame.length >= l4 + 1) {
    const type = frame[l4]!;
    return `ICMP ${src} → ${dst} ${ICMP_TYPES[type] ?? `type ${type}`}`;
  }
  return `IP proto ${protocol} ${src} → ${dst}`;
}

/** Collects the arrows; `diagram()` prints them. */
export class MermaidRecorder {
  private readonly participants = new Map<string, string>();
  private readonly arrows: string[] = [];

  /** A frame sent from namespace `from` arrived in namespace `to`. */
  crossing(from: string, to: string, frame: Uint8Array): void {
    this.arrows.push(`    ${this.id(from)}->>${this.id(to)}: ${escapeText(frameLabel(frame))}`);
  }

  diagram(): string {
    const lines = ['sequenceDiagram'];
    for (const [name, id] of this.participants) lines.push(`    participant ${id} as ${escapeText(name)}`);
    lines.push(...this.arrows);
    return `${lines.join('\n')}\n`;
  }

  private id(name: string): string {
    let id = this.participants.get(name);
    if (id === undefined) {
      id = `n${this.participants.size + 1}`;
      this.participants.set(name, id);
    }
    return id;
  }
}

/** Mermaid reads `;` as a statement end and `#` as an entity start: write them as entities. */
function escapeText(text: string): string {
  return text.replace(/#/g, '#35;').replace(/;/g, '#59;');
}
