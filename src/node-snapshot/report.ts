// What `packetlab node` and `packetlab trace` print: the commands that rebuilt the node (each with the snapshot
// lines it came from, a failure marked), a count of what was built, every part not built or built otherwise
// (FILE:LINE: what), and for a trace the nft table added, `nft monitor trace`, the path trace with marks, the
// verdict and the counters that moved. Text only; the command line writes it.

import { quoteWord } from './quote.ts';
import type { RebuiltNode } from './rebuild.ts';
import type { NodeSnapshot } from './sections.ts';
import type { TraceReport } from './trace.ts';

/** The rebuild, as `packetlab node FILE` prints it. */
export function formatRebuild(file: string, snapshot: NodeSnapshot, rebuilt: RebuiltNode): string[] {
  const lines: string[] = [];
  const host = snapshot.hostname ?? 'an unnamed node';
  lines.push(
    `# ${file}: ${host}${snapshot.kernel === undefined ? '' : ` (Linux ${snapshot.kernel})`}, rebuilt as namespace ${rebuilt.node.name}`,
  );
  const commands = rebuilt.commands.map((command) => command.argv.map(quoteWord).join(' '));
  const width = Math.min(72, Math.max(0, ...commands.map((command) => command.length)));
  rebuilt.commands.forEach((command, index) => {
    const failed = command.result.exitCode === 0 ? '' : ` FAILED (exit ${command.result.exitCode})`;
    const note = command.note === '' ? '' : `: ${command.note}`;
    lines.push(`${commands[index]!.padEnd(width)}  # ${command.source}${note}${failed}`);
  });
  lines.push('');
  lines.push(`built: ${rebuilt.summary.join(', ')}`);
  if (rebuilt.unsupported.length === 0) lines.push('not built: nothing');
  else {
    lines.push(`not built, or built otherwise (${rebuilt.unsupported.length}):`);
    for (const entry of rebuilt.unsupported) lines.push(`${file}:${entry.line}: ${entry.message}`);
  }
  return lines;
}

/** A trace, as `packetlab trace FILE PACKET` prints it after the rebuild's summary. */
export function formatTrace(packet: string, report: TraceReport): string[] {
  const lines: string[] = [
    `# trace: ${packet}`,
    '# nftrace set by this table (load it on the node too to compare with `nft monitor trace`):',
  ];
  for (const line of report.ruleset.trimEnd().split('\n')) lines.push(`#   ${line}`);
  if (report.error !== undefined) {
    lines.push(`packetlab: trace: ${report.error}`);
    return lines;
  }
  lines.push('', '$ nft monitor trace', ...report.monitor);
  lines.push('', '# path trace (node namespace, skb->mark at each step)', ...report.path);
  lines.push('', '# verdict', ...report.verdict);
  lines.push('', '# counters that moved');
  if (report.counters.length === 0) lines.push('(none)');
  else lines.push(...report.counters);
  return lines;
}
