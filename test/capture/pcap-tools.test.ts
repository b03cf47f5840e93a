// Captures written by PcapWriter, read back by the real tcpdump and tshark.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL2, PcapWriter, readPcap } from '../../src/capture/pcap.ts';
import { millis, seconds } from '../../src/core/scheduler.ts';
import { parseIpv4 } from '../../src/wire/address.ts';
import { internetChecksum } from '../../src/wire/checksum.ts';
import { emitUdp, UDP_HEADER_LEN, UdpView } from '../../src/wire/udp.ts';
import { hex } from '../support/bytes.ts';
import { requireTool } from '../support/tools.ts';

const POD_A = '10.244.1.5';
const POD_B = '10.244.2.7';
const MAC_A = '02420af40105';
const MAC_B = '02420af40207';

interface Datagram {
  readonly src: string;
  readonly dst: string;
  readonly srcPort: number;
  readonly dstPort: number;
  readonly payload: string;
}

/** IPv4 (20-byte header, DF, TTL 64) + UDP with valid checksums, built with wire/ checksum code. */
function ipv4Udp(d: Datagram): Uint8Array {
  const srcAddr = parseIpv4(d.src)!;
  const dstAddr = parseIpv4(d.dst)!;
  const payload = new TextEncoder().encode(d.payload);
  const totalLen = 20 + UDP_HEADER_LEN + payload.length;
  const packet = new Uint8Array(totalLen);
  const ip = new DataView(packet.buffer);
  ip.setUint8(0, 0x45);
  ip.setUint16(2, totalLen);
  ip.setUint16(4, 0x1c46); // identification
  ip.setUint16(6, 0x4000); // DF
  ip.setUint8(8, 64);
  ip.setUint8(9, 17);
  ip.setUint32(12, srcAddr);
  ip.setUint32(16, dstAddr);
  ip.setUint16(10, internetChecksum(packet, 0, 20));
  packet.set(payload, 20 + UDP_HEADER_LEN);
  emitUdp(
    { srcPort: d.srcPort, dstPort: d.dstPort, payloadLen: payload.length },
    UdpView.unchecked(packet, 20),
    {
      srcAddr,
      dstAddr,
    },
  );
  return packet;
}

function ethernet(dstMac: string, srcMac: string, packet: Uint8Array): Uint8Array {
  const header = hex(`${dstMac} ${srcMac} 0800`);
  const frame = new Uint8Array(header.length + packet.length);
  frame.set(header);
  frame.set(packet, header.length);
  return frame;
}

/**
 * The 20-byte LINKTYPE_LINUX_SLL2 header (tcpdump.org/linktypes/LINKTYPE_LINUX_SLL2.html):
 * protocol type, reserved, interface index, ARPHRD type, packet type, address length, address (8).
 */
function sll2(
  options: { ifindex: number; packetType: 'host' | 'outgoing'; srcMac: string },
  packet: Uint8Array,
) {
  const frame = new Uint8Array(20 + packet.length);
  const view = new DataView(frame.buffer);
  view.setUint16(0, 0x0800); // ETH_P_IP
  view.setUint16(2, 0);
  view.setUint32(4, options.ifindex);
  view.setUint16(8, 1); // ARPHRD_ETHER
  view.setUint8(10, options.packetType === 'host' ? 0 : 4); // PACKET_HOST / PACKET_OUTGOING
  view.setUint8(11, 6);
  frame.set(hex(options.srcMac), 12); // then two bytes of zero padding
  frame.set(packet, 20);
  return frame;
}

const ping: Datagram = { src: POD_A, dst: POD_B, srcPort: 41234, dstPort: 8000, payload: 'ping' };
const pong: Datagram = { src: POD_B, dst: POD_A, srcPort: 8000, dstPort: 41234, payload: 'pong' };

// Virtual times chosen to exercise the nanosecond digits and a large seconds field.
const T_PING = seconds(1) + 123;
const T_PONG = seconds(1) + millis(250);
const T_LATE = seconds(86_400) + 999_999_999;

const dir = mkdtempSync(join(tmpdir(), 'packetlab-pcap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function save(name: string, writer: PcapWriter): string {
  const path = join(dir, name);
  writeFileSync(path, writer.bytes());
  return path;
}

function run(tool: string, args: string[]): string {
  return execFileSync(tool, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function lines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
}

function ethernetCapture(): string {
  const writer = new PcapWriter({ linkType: LINKTYPE_ETHERNET });
  writer.write(T_PING, ethernet(MAC_B, MAC_A, ipv4Udp(ping)));
  writer.write(T_PONG, ethernet(MAC_A, MAC_B, ipv4Udp(pong)));
  writer.write(T_LATE, ethernet(MAC_B, MAC_A, ipv4Udp(ping)));
  return save('ethernet.pcap', writer);
}

function sll2Capture(): string {
  const writer = new PcapWriter({ linkType: LINKTYPE_LINUX_SLL2 });
  writer.write(T_PING, sll2({ ifindex: 7, packetType: 'outgoing', srcMac: MAC_A }, ipv4Udp(ping)));
  writer.write(T_PONG, sll2({ ifindex: 7, packetType: 'host', srcMac: MAC_B }, ipv4Udp(pong)));
  return save('sll2.pcap', writer);
}

const TSHARK_FIELDS = [
  '-T',
  'fields',
  '-E',
  'separator=,',
  '-o',
  'ip.check_checksum:TRUE',
  '-o',
  'udp.check_checksum:TRUE',
  '-e',
  'frame.time_epoch',
  '-e',
  'ip.src',
  '-e',
  'ip.dst',
  '-e',
  'udp.srcport',
  '-e',
  'udp.dstport',
  '-e',
  'ip.checksum.status',
  '-e',
  'udp.checksum.status',
];
// Wireshark's checksum status 1 is "Good" (0 Bad, 2 Unverified).
const GOOD = '1,1';

describe('pcap files read by the real tools', () => {
  it('tcpdump decodes an Ethernet capture with the virtual nanosecond timestamps', (ctx) => {
    if (!requireTool('tcpdump', ctx)) return;
    const out = run('tcpdump', ['-nn', '--nano', '-tt', '-r', ethernetCapture()]);
    expect(lines(out)).toEqual([
      '1.000000123 IP 10.244.1.5.41234 > 10.244.2.7.8000: UDP, length 4',
      '1.250000000 IP 10.244.2.7.8000 > 10.244.1.5.41234: UDP, length 4',
      '86400.999999999 IP 10.244.1.5.41234 > 10.244.2.7.8000: UDP, length 4',
    ]);
    const withLinks = lines(
      run('tcpdump', ['-nn', '-e', '--nano', '-tt', '-c', '1', '-r', ethernetCapture()]),
    );
    expect(withLinks[0]).toMatch(
      /^1\.000000123 02:42:0a:f4:01:05 > 02:42:0a:f4:02:07, ethertype IPv4 \(0x0800\), length 46: 10\.244\.1\.5\.41234 > /,
    );
  });

  it('tcpdump decodes an SLL2 capture: direction, interface index and source MAC', (ctx) => {
    if (!requireTool('tcpdump', ctx)) return;
    const path = sll2Capture();
    // tcpdump names the interface from the index on the machine it runs on, so only the rest is checked.
    const out = lines(run('tcpdump', ['-nn', '--nano', '-tt', '-r', path]));
    expect(out).toHaveLength(2);
    expect(out[0]).toMatch(
      /^1\.000000123 \S+ +Out IP 10\.244\.1\.5\.41234 > 10\.244\.2\.7\.8000: UDP, length 4$/,
    );
    expect(out[1]).toMatch(
      /^1\.250000000 \S+ +In +IP 10\.244\.2\.7\.8000 > 10\.244\.1\.5\.41234: UDP, length 4$/,
    );
    const detailed = lines(run('tcpdump', ['-nn', '-e', '--nano', '-tt', '-r', path]));
    expect(detailed[0]).toMatch(/ Out ifindex 7 02:42:0a:f4:01:05 ethertype IPv4 \(0x0800\), length 52: /);
    expect(detailed[1]).toMatch(/ In +ifindex 7 02:42:0a:f4:02:07 ethertype IPv4 \(0x0800\), length 52: /);
  });

  it('tshark decodes an Ethernet capture with valid checksums and epoch timestamps', (ctx) => {
    if (!requireTool('tshark', ctx)) return;
    const path = ethernetCapture();
    expect(lines(run('tshark', ['-r', path, ...TSHARK_FIELDS]))).toEqual([
      `1.000000123,10.244.1.5,10.244.2.7,41234,8000,${GOOD}`,
      `1.250000000,10.244.2.7,10.244.1.5,8000,41234,${GOOD}`,
      `86400.999999999,10.244.1.5,10.244.2.7,41234,8000,${GOOD}`,
    ]);
    const summary = lines(run('tshark', ['-r', path, '-t', 'e']));
    expect(summary[0]).toMatch(
      /^\s*1 1\.000000123 +10\.244\.1\.5 → 10\.244\.2\.7 +UDP 46 41234 → 8000 Len=4$/,
    );
  });

  it('tshark decodes an SLL2 capture: packet type, interface index, source MAC', (ctx) => {
    if (!requireTool('tshark', ctx)) return;
    const path = sll2Capture();
    expect(lines(run('tshark', ['-r', path, ...TSHARK_FIELDS]))).toEqual([
      `1.000000123,10.244.1.5,10.244.2.7,41234,8000,${GOOD}`,
      `1.250000000,10.244.2.7,10.244.1.5,8000,41234,${GOOD}`,
    ]);
    const cooked = lines(
      run('tshark', [
        '-r',
        path,
        '-T',
        'fields',
        '-E',
        'separator=,',
        '-e',
        'sll.pkttype',
        '-e',
        'sll.ifindex',
        '-e',
        'sll.src.eth',
      ]),
    );
    expect(cooked).toEqual(['4,7,02:42:0a:f4:01:05', '0,7,02:42:0a:f4:02:07']);
  });

  it('tshark sees the snaplen cut: captured length below the wire length', (ctx) => {
    if (!requireTool('tshark', ctx)) return;
    const writer = new PcapWriter({ snapLen: 42 });
    writer.write(T_PING, ethernet(MAC_B, MAC_A, ipv4Udp(ping)));
    const path = save('snaplen.pcap', writer);
    const out = run('tshark', [
      '-r',
      path,
      '-T',
      'fields',
      '-E',
      'separator=,',
      '-e',
      'frame.len',
      '-e',
      'frame.cap_len',
    ]);
    expect(lines(out)).toEqual(['46,42']);
  });

  it('reads back what tcpdump rewrites, in microseconds and in nanoseconds', (ctx) => {
    if (!requireTool('tcpdump', ctx)) return;
    const source = ethernetCapture();
    const micro = join(dir, 'rewritten-micro.pcap');
    const nano = join(dir, 'rewritten-nano.pcap');
    run('tcpdump', ['-r', source, '-w', micro]);
    run('tcpdump', ['--nano', '-r', source, '-w', nano]);
    const microFile = readPcap(readFileSync(micro));
    const nanoFile = readPcap(readFileSync(nano));
    if (!microFile.ok || !nanoFile.ok) throw new Error('tcpdump output did not parse');
    expect(microFile.file.resolution).toBe('micro');
    expect(nanoFile.file.resolution).toBe('nano');
    const truncatedToMicros = [T_PING, T_PONG, T_LATE].map((t) => Math.floor(t / 1000) * 1000);
    expect(microFile.file.records.map((r) => r.timeNs)).toEqual(truncatedToMicros);
    expect(nanoFile.file.records.map((r) => r.timeNs)).toEqual([T_PING, T_PONG, T_LATE]);
    expect(nanoFile.file.records.map((r) => r.data.length)).toEqual([46, 46, 46]);
  });
});
