// `packetlab snapshot`, `packetlab node FILE` and `packetlab trace FILE PACKET` (docs/cli.md, docs/snapshot.md):
// print the collecting script, rebuild a node from what it wrote, trace one packet through that node. The work is
// in src/node-snapshot/; this file reads the file and writes the text.

import { readFileSync } from 'node:fs';
import {
  formatRebuild,
  formatTrace,
  loadSnapshot,
  type NodeSnapshot,
  parsePacketSpec,
  rebuildNode,
  snapshotScript,
  tracePacket,
} from '../node-snapshot/index.ts';

export const SNAPSHOT_USAGE = 'usage: packetlab snapshot > snapshot.sh';
export const NODE_USAGE = 'usage: packetlab node FILE [--seed S]';
export const TRACE_USAGE =
  "usage: packetlab trace FILE 'tcp|udp SRC:PORT > DST:PORT in IFACE|out' [--seed S]  (icmp: 'icmp SRC > DST in IFACE')";

/** `packetlab snapshot`: the script on stdout. */
export async function snapshotCommand(words: readonly string[]): Promise<number> {
  if (words.length > 0) {
    process.stderr.write(`packetlab: snapshot takes no arguments\n${SNAPSHOT_USAGE}\n`);
    return 2;
  }
  process.stdout.write(snapshotScript());
  return 0;
}

interface Request {
  readonly positional: readonly string[];
  readonly seed: string | undefined;
}

function parseWords(words: readonly string[]): Request | { readonly error: string } {
  const positional: string[] = [];
  let seed: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--seed' || word.startsWith('--seed=')) {
      const value = word === '--seed' ? words[++i] : word.slice('--seed='.length);
      if (value === undefined || value === '') return { error: "packetlab: option '--seed' needs a value" };
      seed = value;
    } else if (word.startsWith('--')) return { error: `packetlab: unknown option '${word}'` };
    else positional.push(word);
  }
  return { positional, seed };
}

/** The snapshot, or the one line saying why there is none (exit 2). */
function load(file: string): NodeSnapshot | { readonly error: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? String(error);
    return { error: `packetlab: cannot read ${file}: ${code}` };
  }
  const snapshot = loadSnapshot(text);
  const notOne = snapshot.problems.find((problem) => problem.message.startsWith('not a packetlab snapshot'));
  if (
    notOne !== undefined &&
    snapshot.links.length === 0 &&
    snapshot.iptables === undefined &&
    snapshot.nft === undefined
  )
    return {
      error: `packetlab: ${file}:${notOne.line}: ${notOne.message} (packetlab snapshot prints the script that writes one)`,
    };
  return snapshot;
}

/** `packetlab node FILE`: exit 0 once the snapshot was read (parts not built are listed), 2 when it cannot be. */
export async function nodeCommand(words: readonly string[]): Promise<number> {
  const request = parseWords(words);
  if ('error' in request || request.positional.length !== 1) {
    process.stderr.write(`${'error' in request ? `${request.error}\n` : ''}${NODE_USAGE}\n`);
    return 2;
  }
  const file = request.positional[0]!;
  const snapshot = load(file);
  if ('error' in snapshot) {
    process.stderr.write(`${snapshot.error}\n`);
    return 2;
  }
  const rebuilt = rebuildNode(snapshot, request.seed !== undefined ? { seed: request.seed } : {});
  process.stdout.write(`${formatRebuild(file, snapshot, rebuilt).join('\n')}\n`);
  return 0;
}

/** `packetlab trace FILE PACKET`: exit 0 when the packet was sent (whatever its fate), 1 when it could not be, 2 on usage. */
export async function traceCommand(words: readonly string[]): Promise<number> {
  const request = parseWords(words);
  if ('error' in request || request.positional.length < 2) {
    process.stderr.write(`${'error' in request ? `${request.error}\n` : ''}${TRACE_USAGE}\n`);
    return 2;
  }
  const [file, ...packetWords] = request.positional;
  const packet = packetWords.join(' ');
  const spec = parsePacketSpec(packet);
  if ('error' in spec) {
    process.stderr.write(`packetlab: trace: ${spec.error}\n`);
    return 2;
  }
  const snapshot = load(file!);
  if ('error' in snapshot) {
    process.stderr.write(`${snapshot.error}\n`);
    return 2;
  }
  const rebuilt = rebuildNode(snapshot, request.seed !== undefined ? { seed: request.seed } : {});
  const built = formatRebuild(file!, snapshot, rebuilt);
  // The rebuild's commands are `packetlab node`'s business: the trace shows the header and what was not built.
  const summary = built.slice(built.findIndex((line) => line.startsWith('built: ')));
  const report = tracePacket(rebuilt, spec);
  process.stdout.write(`${[built[0]!, ...summary, '', ...formatTrace(packet, report)].join('\n')}\n`);
  return report.error === undefined ? 0 : 1;
}
