// Reads back what `tcpdump -ni any` printed, one hop per line (device, direction, source, destination, the rest), so
// a scenario's checks can say what the packet looked like at each interface. Only the default one-line IPv4 form;
// a VXLAN frame's inner packet (printed on the next line, without a timestamp) is kept as `inner`.

export interface Hop {
  /** Empty when the capture was on one interface (`-i eth0`). */
  readonly device: string;
  /** tcpdump's packet type on `any`: In, Out, P (to another host: a bridge port), M, B. */
  readonly direction: string;
  readonly src: string;
  readonly dst: string;
  readonly rest: string;
  /** The encapsulated packet's `SRC > DST`, for a VXLAN (OTV) frame. */
  readonly inner: string | undefined;
  /** What follows the encapsulated packet's `SRC > DST: ` (its flags, sequence, length), for a VXLAN frame. */
  readonly innerRest: string | undefined;
}

const LINE = /^\d\d:\d\d:\d\d\.\d{6} (?:(\S+)\s+(In|Out|P|M|B)\s+)?IP (\S+) > (\S+): (.*)$/;
const INNER = /^IP (\S+ > \S+): (.*)$/;

export function hops(output: string): Hop[] {
  const result: Hop[] = [];
  for (const line of output.split('\n')) {
    const match = LINE.exec(line);
    if (match !== null) {
      const [, device = '', direction = '', src = '', dst = '', rest = ''] = match;
      result.push({ device, direction, src, dst, rest, inner: undefined, innerRest: undefined });
      continue;
    }
    const inner = INNER.exec(line);
    const last = result.at(-1);
    if (inner !== null && last !== undefined && last.inner === undefined)
      result[result.length - 1] = { ...last, inner: inner[1], innerRest: inner[2] };
  }
  return result;
}

/** `device src > dst` for each hop, the form checks compare. */
export function hopLines(list: readonly Hop[]): string[] {
  return list.map(
    (hop) =>
      `${hop.device === '' ? '' : `${hop.device} `}${hop.src} > ${hop.dst}${hop.inner === undefined ? '' : ` [${hop.inner}]`}`,
  );
}

/** The address part of tcpdump's `A.B.C.D.PORT`. */
export function addressOf(endpoint: string): string {
  return endpoint.split('.').slice(0, 4).join('.');
}

/** The port part of tcpdump's `A.B.C.D.PORT` (undefined for a bare address). */
export function portOf(endpoint: string): string | undefined {
  return endpoint.split('.')[4];
}
