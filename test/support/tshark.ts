// Reads a capture with the real tshark, checksum checks on, and reports every frame tshark finds malformed or
// with a bad checksum (expert warnings and above); VXLAN on Linux's port 8472 is decoded as VXLAN.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PI_WARN = 0x0060_0000;

export interface TsharkReport {
  readonly frames: number;
  /** `frame N: message` for each malformed frame or expert warning. */
  readonly problems: string[];
  /** One row per frame of the fields asked for (repeated values joined with ';'). */
  readonly rows: string[][];
}

/** Runs tshark over the pcap bytes, asking for `extraFields` per frame besides the checks. */
export function tsharkCheck(pcap: Uint8Array, extraFields: readonly string[] = []): TsharkReport {
  const dir = mkdtempSync(join(tmpdir(), 'packetlab-tshark-'));
  try {
    const path = join(dir, 'capture.pcap');
    writeFileSync(path, pcap);
    const fields = [
      'frame.number',
      '_ws.malformed',
      '_ws.expert.severity',
      '_ws.expert.message',
      ...extraFields,
    ];
    const args = [
      '-r',
      path,
      '-o',
      'ip.check_checksum:TRUE',
      '-o',
      'tcp.check_checksum:TRUE',
      '-o',
      'udp.check_checksum:TRUE',
    ];
    args.push('-d', 'udp.port==8472,vxlan', '-T', 'fields', '-E', 'separator=|', '-E', 'aggregator=;');
    for (const field of fields) args.push('-e', field);
    const result = spawnSync('tshark', args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`tshark failed: ${result.stderr}`);
    const problems: string[] = [];
    const rows = result.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.split('|'));
    for (const [number, malformed, severities, messages] of rows) {
      if (malformed !== '') problems.push(`frame ${number}: malformed`);
      const messageList = (messages ?? '').split(';');
      (severities ?? '').split(';').forEach((severity, i) => {
        if (severity !== '' && Number(severity) >= PI_WARN)
          problems.push(`frame ${number}: ${messageList[i]}`);
      });
    }
    return { frames: rows.length, problems, rows: rows.map((row) => row.slice(4)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
