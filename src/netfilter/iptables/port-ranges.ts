// The `--sport`/`--dport` ranges of the port-carrying matches that are not tcp/udp (sctp, dccp): saved as
// `[!] --sport A[:B]` and listed as ` spt[s]:[!]A[:B]`, as libxt_sctp.c and libxt_dccp.c print them alike.

export interface PortRange {
  readonly low: number;
  readonly high: number;
  readonly invert: boolean;
}

/** `A` for one port, else `A<sep>B`. */
export function portRangeText(range: PortRange, sep: string): string {
  return range.low === range.high ? `${range.low}` : `${range.low}${sep}${range.high}`;
}

/** The save words of both ranges, source first (`! --sport 1:2 --dport 3`). */
export function savePortRanges(sport: PortRange | undefined, dport: PortRange | undefined): string[] {
  const words: string[] = [];
  for (const [flag, range] of [
    ['--sport', sport],
    ['--dport', dport],
  ] as const) {
    if (range === undefined) continue;
    if (range.invert) words.push('!');
    words.push(flag, portRangeText(range, ':'));
  }
  return words;
}

/** `iptables -L`'s text of both ranges (` spt:5 dpts:!1:2`). */
export function printPortRanges(sport: PortRange | undefined, dport: PortRange | undefined): string {
  let text = '';
  for (const [label, range] of [
    ['spt', sport],
    ['dpt', dport],
  ] as const) {
    if (range === undefined) continue;
    const plural = range.low === range.high ? '' : 's';
    text += ` ${label}${plural}:${range.invert ? '!' : ''}${portRangeText(range, ':')}`;
  }
  return text;
}
