// The acceptance check for captures: the all-frame-types capture, in Ethernet and SLL2 form, read by
// the real tshark with checksum verification on (nothing malformed, no bad checksum, VXLAN decoded
// down to the inner TCP) and by the real tcpdump (both files read without an error).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL2, PcapWriter } from '../../src/capture/pcap.ts';
import { millis } from '../../src/core/scheduler.ts';
import { type SampleFrame, sampleFrames, toSll2 } from '../support/frames.ts';
import { requireTool } from '../support/tools.ts';

const samples = sampleFrames();
const dir = mkdtempSync(join(tmpdir(), 'packetlab-tshark-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture(name: string, linkType: number, frame: (sample: SampleFrame) => Uint8Array): string {
  const writer = new PcapWriter({ linkType });
  samples.forEach((sample, i) => {
    writer.write(millis(100 * i), frame(sample));
  });
  const path = join(dir, name);
  writeFileSync(path, writer.bytes());
  return path;
}

const CAPTURES = [
  { name: 'Ethernet', path: () => capture('all.pcap', LINKTYPE_ETHERNET, (s) => s.frame) },
  { name: 'SLL2', path: () => capture('all-sll2.pcap', LINKTYPE_LINUX_SLL2, (s) => toSll2(s.frame, s.sll2)) },
];

function run(
  tool: string,
  args: readonly string[],
): { stdout: string; stderr: string; status: number | null } {
  const result = spawnSync(tool, args, { encoding: 'utf8', env: { ...process.env, TZ: 'UTC' } });
  return { stdout: result.stdout, stderr: result.stderr, status: result.status };
}

const CHECKSUMS_ON = [
  '-o',
  'ip.check_checksum:TRUE',
  '-o',
  'tcp.check_checksum:TRUE',
  '-o',
  'udp.check_checksum:TRUE',
  // Linux's VXLAN port; tshark decodes only the IANA port 4789 as VXLAN by itself.
  '-d',
  'udp.port==8472,vxlan',
];

/** tshark's fields for every frame, one row per frame, columns split on '|', repeated values on ';'. */
function fields(path: string, names: readonly string[]): string[][] {
  const args = ['-r', path, ...CHECKSUMS_ON, '-T', 'fields', '-E', 'separator=|', '-E', 'aggregator=;'];
  for (const name of names) args.push('-e', name);
  const result = run('tshark', args);
  expect(result.status).toBe(0);
  return result.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.split('|'));
}

// Wireshark's checksum status values and expert severities (epan/proto.h).
const GOOD = '1';
const NOT_PRESENT = '3';
const PI_WARN = 0x0060_0000;

/**
 * The one expected complaint. Linux quotes at most 548 bytes of the packet an ICMP error answers
 * (icmp_send keeps the error within 576 bytes), so a frag-needed error quotes a cut TCP segment
 * whose checksum covers the whole 1480 bytes; tshark verifies it over the cut anyway and reports
 * it bad. The quote is the original segment's first bytes, checksum included.
 */
const CUT_QUOTE = 'ICMP frag needed quoting TCP';

describe('the all-frame-types capture read by tshark', () => {
  for (const { name, path } of CAPTURES) {
    it(`finds nothing malformed and no bad checksum: ${name}`, (ctx) => {
      if (!requireTool('tshark', ctx)) return;
      const rows = fields(path(), [
        'frame.number',
        '_ws.malformed',
        '_ws.expert.severity',
        '_ws.expert.message',
        'ip.checksum.status',
        'icmp.checksum.status',
        'udp.checksum.status',
        'tcp.checksum.status',
      ]);
      expect(rows).toHaveLength(samples.length);
      rows.forEach(([number, malformed, severities, messages, ip, icmp, udp, tcp], i) => {
        const frame = `frame ${number} (${samples[i]!.name})`;
        expect(malformed, frame).toBe('');
        for (const status of ip!.split(';').filter((s) => s !== '')) expect(status, `${frame} ip`).toBe(GOOD);
        for (const status of icmp!.split(';').filter((s) => s !== ''))
          expect(status, `${frame} icmp`).toBe(GOOD);
        for (const status of udp!.split(';').filter((s) => s !== '')) {
          expect([GOOD, NOT_PRESENT], `${frame} udp`).toContain(status);
        }
        const warnings = severities!
          .split(';')
          .map((severity, j) => ({ severity: Number(severity), message: messages!.split(';')[j] ?? '' }))
          .filter(({ severity }) => severity >= PI_WARN)
          .map(({ message }) => message);
        if (samples[i]!.name === CUT_QUOTE) {
          expect(warnings.every((message) => message.startsWith('Bad checksum'))).toBe(true);
        } else {
          expect(warnings, frame).toEqual([]);
          for (const status of tcp!.split(';').filter((s) => s !== ''))
            expect(status, `${frame} tcp`).toBe(GOOD);
        }
      });
    });

    it(`decodes the inner TCP under VXLAN on both ports: ${name}`, (ctx) => {
      if (!requireTool('tshark', ctx)) return;
      const rows = fields(path(), [
        'frame.number',
        'vxlan.vni',
        'ip.src',
        'ip.dst',
        'tcp.dstport',
        'tcp.flags.syn',
      ]);
      const tunnelled = rows.filter(([, vni]) => vni !== '');
      expect(tunnelled.map(([, ...rest]) => rest)).toEqual([
        ['1', '172.18.0.2;10.244.1.5', '172.18.0.3;10.244.2.7', '80', '1'],
        ['4096', '172.18.0.2;10.244.1.5', '172.18.0.3;10.244.2.7', '80', '1'],
      ]);
    });
  }

  it('reads the next-hop MTU and the quoted header of the frag-needed error', (ctx) => {
    if (!requireTool('tshark', ctx)) return;
    const rows = fields(CAPTURES[0]!.path(), [
      'frame.number',
      'icmp.type',
      'icmp.code',
      'icmp.mtu',
      'ip.len',
      'tcp.seq',
    ]);
    const error = rows[samples.findIndex((s) => s.name === CUT_QUOTE)]!;
    // Type 3 code 4 with the next-hop MTU; the quoted header still says the segment was 1500 bytes.
    expect(error.slice(1, 5)).toEqual(['3', '4', '1450', '576;1500']);
  });
});

describe('the all-frame-types capture read by tcpdump', () => {
  for (const { name, path } of CAPTURES) {
    it(`reads every record without an error: ${name}`, (ctx) => {
      if (!requireTool('tcpdump', ctx)) return;
      const result = run('tcpdump', ['-nn', '-r', path()]);
      expect(result.status).toBe(0);
      expect(result.stderr).not.toMatch(/truncated|error|invalid/i);
      const packets = result.stdout.split('\n').filter((line) => /^\d\d:\d\d:\d\d\.\d{6} /.test(line));
      expect(packets).toHaveLength(samples.length);
    });
  }
});
