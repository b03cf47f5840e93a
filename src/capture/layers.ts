// A frame printed one line per layer, tcpdump style: the link layer as `tcpdump -e` shows it, then each
// network-and-transport line tcpdump prints (a VXLAN frame gives its inner frame its own pair of lines).

import { formatFrame } from './print.ts';

/** The lines of `frame` (Ethernet), outermost layer first. */
export function formatLayers(frame: Uint8Array): string[] {
  const withLink = formatFrame(frame, { linkType: 1, showLinkLayer: true }).split('\n');
  const withoutLink = formatFrame(frame, { linkType: 1 }).split('\n');
  const lines: string[] = [];
  for (let i = 0; i < withLink.length; i++) {
    const full = withLink[i]!;
    // With -e, tcpdump starts the line with "SRC > DST, ethertype NAME (0xNNNN), length N: ".
    const cut = full.indexOf(': ');
    if (cut > 0 && / > .*, ethertype /.test(full.slice(0, cut))) {
      lines.push(`Ethernet ${full.slice(0, cut)}`);
      lines.push(withoutLink[i] ?? full.slice(cut + 2));
    } else {
      lines.push(withoutLink[i] ?? full);
    }
  }
  return lines;
}
