// The flow mix of `packetlab bench rules|path --mix FILE` (docs/cli.md): one flow a line, as `packetlab trace`
// writes a packet, `tcp|udp SRC:PORT > DST:PORT in IFACE` or `icmp SRC > DST in IFACE`, then optionally
// `weight N` (how many of every sum-of-weights packets are that flow; 1 by default); `#` starts a comment. Or JSON:
// an array of `{ "packet": "tcp ...", "weight": N }`. Packets are received on the named interface (`out`, a packet
// the node sends itself, is not supported here). Errors name the file and line.

import { type PacketSpec, parsePacketSpec } from '../../node-snapshot/index.ts';

export interface MixFlow {
  readonly spec: PacketSpec & { readonly direction: { readonly kind: 'in'; readonly dev: string } };
  readonly weight: number;
  /** The flow as written, for the table. */
  readonly text: string;
  /** 1-based line of the file (the array index + 1 in JSON). */
  readonly line: number;
}

/** The most flows a mix holds, and the largest weight. */
const MAX_FLOWS = 1000;
const MAX_WEIGHT = 1000;

function flow(text: string, weight: number, line: number): MixFlow | string {
  const spec = parsePacketSpec(text);
  if ('error' in spec) return spec.error;
  if (spec.direction.kind === 'out')
    return "'out' (a packet the node sends) is not supported in a mix: name the interface it arrives on, 'in IFACE'";
  if (!Number.isInteger(weight) || weight < 1 || weight > MAX_WEIGHT)
    return `weight must be an integer from 1 to ${MAX_WEIGHT}, not ${weight}`;
  return { spec: spec as MixFlow['spec'], weight, text: text.trim().replace(/\s+/g, ' '), line };
}

function fromJson(file: string, value: unknown): readonly MixFlow[] | { readonly error: string } {
  if (!Array.isArray(value))
    return { error: `packetlab: ${file}: a JSON mix is an array of {"packet": "...", "weight": N}` };
  const flows: MixFlow[] = [];
  for (let i = 0; i < value.length; i++) {
    const item = value[i] as { packet?: unknown; weight?: unknown } | null;
    const at = `packetlab: ${file}: [${i}]`;
    if (typeof item !== 'object' || item === null || typeof item.packet !== 'string')
      return { error: `${at}: needs "packet": "tcp|udp SRC:PORT > DST:PORT in IFACE"` };
    const unknown = Object.keys(item).find((key) => key !== 'packet' && key !== 'weight');
    if (unknown !== undefined) return { error: `${at}: unknown key "${unknown}" (packet, weight)` };
    if (item.weight !== undefined && typeof item.weight !== 'number')
      return { error: `${at}: "weight" is a number` };
    const parsed = flow(item.packet, item.weight ?? 1, i + 1);
    if (typeof parsed === 'string') return { error: `${at}: ${parsed}` };
    flows.push(parsed);
  }
  return flows;
}

/** Reads a mix from its text; `file` names it in the errors. */
export function parseMix(file: string, text: string): readonly MixFlow[] | { readonly error: string } {
  let flows: readonly MixFlow[];
  if (text.trimStart().startsWith('[')) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { error: `packetlab: ${file}: ${error instanceof Error ? error.message : String(error)}` };
    }
    const read = fromJson(file, value);
    if ('error' in read) return read;
    flows = read;
  } else {
    const read: MixFlow[] = [];
    const rows = text.split('\n');
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!.replace(/#.*/, '').trim();
      if (row === '') continue;
      const match = /^(.*?)(?:\s+weight\s+(\S+))?$/.exec(row)!;
      const weightText = match[2];
      const weight =
        weightText === undefined ? 1 : /^\d+$/.test(weightText) ? Number(weightText) : Number.NaN;
      const parsed = flow(match[1]!, weight, i + 1);
      if (typeof parsed === 'string') return { error: `packetlab: ${file}:${i + 1}: ${parsed}` };
      read.push(parsed);
    }
    flows = read;
  }
  if (flows.length === 0) return { error: `packetlab: ${file}: the mix has no flow` };
  if (flows.length > MAX_FLOWS) return { error: `packetlab: ${file}: more than ${MAX_FLOWS} flows` };
  return flows;
}

/** The flows' order of sending: flow i appears weight_i times in every sum-of-weights packets, interleaved. */
export function schedule(flows: readonly MixFlow[]): Uint16Array {
  const total = flows.reduce((sum, entry) => sum + entry.weight, 0);
  const order = new Uint16Array(total);
  // Smooth weighted round robin (nginx's): each step the flow with the most credit goes and pays the total.
  const credit = flows.map(() => 0);
  for (let step = 0; step < total; step++) {
    let best = 0;
    for (let i = 0; i < flows.length; i++) {
      credit[i]! += flows[i]!.weight;
      if (credit[i]! > credit[best]!) best = i;
    }
    credit[best]! -= total;
    order[step] = best;
  }
  return order;
}
