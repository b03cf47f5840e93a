// Snapshot texts for the node-snapshot tests: sections written as the script writes them.

import { readFileSync } from 'node:fs';

/** The snapshot the script wrote on a real node (Linux 6.18; the node of test/linux/snapshot.test.ts). */
export const FIXTURE = readFileSync('test/fixtures/node-snapshot/node.snapshot', 'utf8');

export interface SectionText {
  readonly name: string;
  readonly command: string;
  readonly stdout: string;
  readonly stderr?: string;
  readonly status?: number;
}

/** One section: its header, output lines after `|`, error lines after `!`, its status. */
export function section(entry: SectionText): string {
  const lines = [`section ${entry.name} ${entry.command}`];
  for (const line of entry.stdout.split('\n').slice(0, entry.stdout.endsWith('\n') ? -1 : undefined))
    lines.push(`|${line}`);
  if (entry.stderr !== undefined)
    for (const line of entry.stderr.split('\n').filter((text) => text !== '')) lines.push(`!${line}`);
  lines.push(`status ${entry.status ?? 0}`);
  return lines.join('\n');
}

/** A whole snapshot from sections. */
export function snapshotOf(...sections: SectionText[]): string {
  return ['packetlab-snapshot 1', ...sections.map(section), 'end', ''].join('\n');
}

/** The 1-based line number of the first line of `text` that contains `needle`. */
export function lineOf(text: string, needle: string): number {
  return text.split('\n').findIndex((line) => line.includes(needle)) + 1;
}
