// Captures of whole conversations written by packetlab's `tcpdump -w` and read by the real tshark with every checksum
// verified: an HTTP exchange (curl and httpServer), a transfer over a lossy link (netem loss on the segment, a fixed
// seed), a DNS lookup and an `nc -u` exchange. Nothing malformed, no bad checksum, and TCP analysis flags only where
// the scenario caused them: none on the clean exchange; retransmissions, duplicate ACKs and gaps on the lossy one.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lookupHost } from '../../src/app/dns/resolver.ts';
import { dnsServer } from '../../src/app/dns/server.ts';
import { httpServer } from '../../src/app/http/server.ts';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec, execOrThrow, spawn } from '../../src/tools/exec.ts';
import { requireTool } from '../support/tools.ts';

/** tshark's expert severities (epan/proto.h): a Chat is a SYN or a request line; Note and up is a finding. */
const PI_NOTE = 0x0040_0000;
/** Notes of TCP's session tracking, not of its analysis: which side closed first (tcp.connection.fin_active). */
const CLOSING = /^This frame (initiates|undergoes) the connection closing$/;

interface FrameReport {
  readonly number: number;
  readonly malformed: boolean;
  /** `ip.checksum.status` etc. per layer present: 1 is Good, 0 Bad, 2 Unverified. */
  readonly checksums: readonly string[];
  /** Whether tshark's TCP analysis flagged the frame (`tcp.analysis.flags`). */
  readonly analysed: boolean;
  /** Expert messages of severity Note and above. */
  readonly findings: readonly string[];
  readonly tcpLen: number;
}

const run = (ns: Namespace, line: string, stdin?: string): string =>
  execOrThrow(ns, line, stdin === undefined ? {} : { stdin });

/** a (10.0.0.1) and b (10.0.0.2) on one segment, so the segment can be impaired; a captures on its eth0. */
function lab(seed: string) {
  const sim = new Simulation({ seed });
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  const segment = sim.addSegment('net');
  segment.attach(a, 'eth0');
  segment.attach(b, 'eth0');
  run(a, 'ip addr add 10.0.0.1/24 dev eth0');
  run(b, 'ip addr add 10.0.0.2/24 dev eth0');
  run(a, 'ip link set eth0 up');
  run(b, 'ip link set eth0 up');
  const capture = spawn(a, 'tcpdump -n -i eth0 -w /conversation.pcap');
  if (!('stop' in capture)) throw new Error(capture.stderr);
  const stop = (): Uint8Array => {
    sim.run(5e9);
    capture.stop();
    const bytes = sim.files.get('/conversation.pcap');
    if (bytes === undefined) throw new Error('no capture file');
    return bytes;
  };
  return { sim, a, b, segment, stop };
}

/** The real tshark over the capture with IP, TCP and UDP checksums verified; one report per frame. */
function tshark(pcap: Uint8Array, extraArgs: readonly string[] = []): FrameReport[] {
  const dir = mkdtempSync(join(tmpdir(), 'packetlab-conversation-'));
  try {
    const path = join(dir, 'conversation.pcap');
    writeFileSync(path, pcap);
    const fields = [
      'frame.number',
      '_ws.malformed',
      'ip.checksum.status',
      'tcp.checksum.status',
      'udp.checksum.status',
      'tcp.analysis.flags',
      '_ws.expert.severity',
      '_ws.expert.message',
      'tcp.len',
    ];
    const args = ['-r', path, '-o', 'ip.check_checksum:TRUE', '-o', 'tcp.check_checksum:TRUE'];
    args.push('-o', 'udp.check_checksum:TRUE', ...extraArgs, '-T', 'fields', '-E', 'separator=|');
    args.push('-E', 'aggregator=;', '-E', 'occurrence=a');
    for (const field of fields) args.push('-e', field);
    const result = spawnSync('tshark', args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`tshark failed: ${result.stderr}`);
    return result.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const [number, malformed, ip, tcp, udp, analysis, severities, messages, tcpLen] = line.split('|');
        const messageList = (messages ?? '').split(';');
        const findings = (severities ?? '')
          .split(';')
          .flatMap((severity, i) =>
            severity !== '' && Number(severity) >= PI_NOTE && !CLOSING.test(messageList[i]!)
              ? [messageList[i]!]
              : [],
          );
        return {
          number: Number(number),
          malformed: malformed !== '',
          checksums: [ip, tcp, udp].flatMap((status) => (status ?? '').split(';').filter((s) => s !== '')),
          analysed: analysis !== '',
          findings,
          tcpLen: Number(tcpLen || 0),
        };
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function expectWellFormed(frames: readonly FrameReport[]): void {
  expect(frames.filter((f) => f.malformed).map((f) => f.number)).toEqual([]);
  expect(frames.filter((f) => f.checksums.some((s) => s !== '1')).map((f) => f.number)).toEqual([]);
}

describe('packetlab captures of conversations, read by tshark', () => {
  it('two HTTP exchanges (a 5000-byte body, then a small one): well formed, no TCP analysis flag', (ctx) => {
    if (!requireTool('tshark', ctx)) return;
    const { a, b, stop } = lab('tshark-http');
    httpServer(b, { port: 8000, routes: { '/cinq': { bodyBytes: 5000 }, '/sante': { body: 'ok\n' } } });
    expect(
      run(a, "curl -s -o /dev/null -w '%{http_code} %{size_download}\\n' http://10.0.0.2:8000/cinq"),
    ).toBe('200 5000\n');
    expect(run(a, 'curl -s http://10.0.0.2:8000/sante')).toBe('ok\n');
    const frames = tshark(stop());
    expectWellFormed(frames);
    expect(frames.filter((f) => f.analysed).map((f) => f.number)).toEqual([]);
    expect(frames.flatMap((f) => f.findings)).toEqual([]);
    // ARP, then two connections: handshake, request, data and ACKs, close.
    expect(frames.filter((f) => f.tcpLen > 0).reduce((sum, f) => sum + f.tcpLen, 0)).toBeGreaterThan(5000);
  });

  it('a transfer over a link losing 10% of frames: only retransmissions, duplicate ACKs and gaps', (ctx) => {
    if (!requireTool('tshark', ctx)) return;
    const { a, b, segment, stop } = lab('tshark-lossy');
    httpServer(b, { port: 8000, routes: { '/gros': { bodyBytes: 30_000 } } });
    // netem on every switch port, 5 ms each way, seeded by the simulation: the same frames are lost every run.
    segment.impair({ lossPercent: 10, delayMs: 5 });
    expect(
      run(a, "curl -s -o /dev/null -w '%{http_code} %{size_download}\\n' http://10.0.0.2:8000/gros"),
    ).toBe('200 30000\n');
    // The HTTP dissector reads a segment after a gap as a new message ("Illegal characters found in header name"):
    // a consequence of the loss at the HTTP layer, not of the capture; TCP alone is analysed here.
    const frames = tshark(stop(), ['--disable-protocol', 'http']);
    expectWellFormed(frames);
    const allowed = [
      /^This frame is a \(suspected\) (spurious |fast )?retransmission$/,
      /^Duplicate ACK \(#\d+\)$/,
      /^Previous segment\(s\) not captured \(common at capture start\)$/,
      /^This frame is a \(suspected\) out-of-order segment$/,
    ];
    const flagged = frames.filter((f) => f.analysed);
    for (const frame of flagged)
      for (const finding of frame.findings)
        expect(
          allowed.some((pattern) => pattern.test(finding)),
          `frame ${frame.number}: ${finding}`,
        ).toBe(true);
    const count = (pattern: RegExp) => frames.filter((f) => f.findings.some((m) => pattern.test(m))).length;
    // What a's capture shows of b's lost segments (gaps, then b's retransmissions) and of a's lost ACKs or the gaps
    // (a's duplicate ACKs).
    expect(count(/retransmission/)).toBeGreaterThan(0);
    expect(count(/^Duplicate ACK/)).toBeGreaterThan(0);
    expect(count(/^Previous segment/)).toBeGreaterThan(0);
    // Nothing unflagged carries a finding either: no checksum, window or reset complaint anywhere.
    expect(frames.filter((f) => !f.analysed && f.findings.length > 0).map((f) => f.findings)).toEqual([]);
  });

  it('a DNS lookup (an answer and an NXDOMAIN): well formed, every UDP checksum good', (ctx) => {
    if (!requireTool('tshark', ctx)) return;
    const { a, b, sim, stop } = lab('tshark-dns');
    dnsServer(b, { port: 53, records: { 'web.default.svc.cluster.local': ['10.96.40.12'] } });
    lookupHost(a, 'web.default.svc.cluster.local', { nameserver: '10.0.0.2' });
    lookupHost(a, 'nope.default.svc.cluster.local', { nameserver: '10.0.0.2' });
    sim.run(1e9);
    const frames = tshark(stop());
    expectWellFormed(frames);
    // glibc's A and AAAA for each name, each answered: 8 datagrams with both checksums verified; the rest is ARP
    // (the resolution, then the neighbour's unicast probes once the entry went stale).
    expect(frames.filter((f) => f.checksums.length === 2)).toHaveLength(8);
    expect(frames.filter((f) => f.checksums.length === 0)).toHaveLength(frames.length - 8);
    expect(frames.flatMap((f) => f.findings)).toEqual([]);
  });

  it('an nc -u exchange (a datagram each way): well formed, every UDP checksum good', (ctx) => {
    if (!requireTool('tshark', ctx)) return;
    const { a, b, sim, stop } = lab('tshark-nc');
    const listener = spawn(b, 'nc -lun 9000');
    if (!('stop' in listener)) throw new Error(listener.stderr);
    exec(a, 'nc -u -q 1 -p 40000 10.0.0.2 9000', { stdin: 'hello\n' });
    sim.run(1e8);
    const frames = tshark(stop());
    expect(listener.stop().stdout).toBe('hello\n');
    expectWellFormed(frames);
    // ARP request and reply, then the datagram: IPv4 and UDP checksums, both verified good.
    expect(frames.map((f) => f.checksums)).toEqual([[], [], ['1', '1']]);
    expect(frames.flatMap((f) => f.findings)).toEqual([]);
  });
});
