// The real tshark reads the packets NAT rewrote, with IPv4, TCP, UDP, ICMP and SCTP (CRC32c) checksum checks on, and finds nothing wrong.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PcapWriter } from '../../../src/capture/pcap.ts';
import type { Packet } from '../../../src/core/packet.ts';
import { crc32c, fillSctpChecksum } from '../../../src/netfilter/nat/sctp-checksum.ts';
import { ipv4 } from '../../support/frames.ts';
import {
  echoPacket,
  endpoint,
  icmpErrorPacket,
  ip,
  packetOf,
  tcpPacket,
  udpPacket,
} from '../../support/packets.ts';
import { requireTool } from '../../support/tools.ts';
import { datagram, dnat, flow, forward, lab, masquerade, snat } from './harness.ts';

const LINKTYPE_RAW = 101;
const IPPROTO_SCTP = 132;

/** An SCTP INIT between "addr:port" endpoints, CRC32c filled. */
function sctpInit(src: string, dst: string): Packet {
  const from = endpoint(src);
  const to = endpoint(dst);
  const sctp = new Uint8Array(32);
  const view = new DataView(sctp.buffer);
  view.setUint16(0, from.port);
  view.setUint16(2, to.port);
  sctp[12] = 1; // INIT
  view.setUint16(14, 20);
  view.setUint32(16, 0x12345678); // initiate tag
  view.setUint32(20, 65535); // a_rwnd
  view.setUint16(24, 10);
  view.setUint16(26, 10);
  view.setUint32(28, 1); // initial TSN
  fillSctpChecksum(sctp, 0, sctp.length);
  return packetOf(ipv4({ src: from.addr, dst: to.addr, protocol: IPPROTO_SCTP }, sctp));
}

describe('CRC32c', () => {
  it('gives the check value of "123456789"', () => {
    expect(crc32c(new TextEncoder().encode('123456789'), 0, 9)).toBe(0xe3069283);
  });
});

describe('tshark on NATed packets', () => {
  it('finds every checksum valid', (ctx) => {
    if (!requireTool('tshark', ctx)) return;
    const out: Packet[] = [];
    const l = lab('lesson');
    l.host.masquerade.set(2, ip('192.168.1.1'));

    // TCP through MASQUERADE (the second source's port moves) and back.
    for (const client of ['10.0.0.3:40000', '10.0.0.2:40000']) {
      const syn = tcpPacket({ src: client, dst: '1.1.1.1:80', seq: 1000, flags: 'S' });
      forward(l, syn, { postrouting: masquerade() });
      out.push(syn);
    }
    const synAck = tcpPacket({
      src: '1.1.1.1:80',
      dst: '192.168.1.1:7354',
      seq: 5000,
      ack: 1001,
      flags: 'SA',
    });
    forward(l, synAck);
    expect(flow(synAck)).toBe('1.1.1.1:80 > 10.0.0.2:40000');
    out.push(synAck);
    // DNAT and its reply.
    const rule = dnat('10.244.1.9:8000');
    const toService = tcpPacket({
      src: '10.0.0.2:41000',
      dst: '10.96.0.10:80',
      seq: 1,
      flags: 'S',
      payloadLen: 100,
    });
    forward(l, toService, { prerouting: rule });
    const fromPod = tcpPacket({ src: '10.244.1.9:8000', dst: '10.0.0.2:41000', seq: 9, ack: 2, flags: 'SA' });
    forward(l, fromPod, { prerouting: rule });
    out.push(toService, fromPod);
    // UDP with a port change (to a port tshark decodes as nothing), ICMP echo with an id change, an ICMP error translated back.
    for (const client of ['10.0.0.3:41234', '10.0.0.2:41234']) {
      const dns = udpPacket(client, '1.1.1.1:9999');
      forward(l, dns, { postrouting: masquerade() });
      out.push(dns);
    }
    for (const client of ['10.0.0.3', '10.0.0.2']) {
      const ping = echoPacket(client, '1.1.1.1', 7, 1);
      forward(l, ping, { postrouting: masquerade() });
      out.push(ping);
    }
    // Quoted whole, so that tshark can check the quoted TCP checksum too (it cannot on a cut quote).
    const big = tcpPacket({
      src: '10.0.0.2:40000',
      dst: '1.1.1.1:80',
      seq: 1001,
      ack: 5001,
      flags: 'PA',
      payloadLen: 400,
    });
    forward(l, big, { postrouting: masquerade() });
    const error = icmpErrorPacket('5.5.5.5', '192.168.1.1', 'frag-needed', big);
    forward(l, error);
    out.push(big, error);
    // SCTP: a source port that clashes moves, and the CRC32c follows.
    for (const client of ['10.0.0.3:5000', '10.0.0.2:5000']) {
      const init = sctpInit(client, '1.1.1.1:38412');
      forward(l, init, { postrouting: snat('192.168.1.1') });
      out.push(init);
    }
    expect(flow(out.at(-1)!)).not.toBe('192.168.1.1:5000 > 1.1.1.1:38412');

    const writer = new PcapWriter({ linkType: LINKTYPE_RAW });
    out.forEach((pkt, n) => {
      writer.write(n * 1000, datagram(pkt));
    });
    const dir = mkdtempSync(join(tmpdir(), 'packetlab-nat-'));
    try {
      const path = join(dir, 'nat.pcap');
      writeFileSync(path, writer.bytes());
      const args = ['-r', path];
      for (const pref of [
        'ip.check_checksum:TRUE',
        'tcp.check_checksum:TRUE',
        'udp.check_checksum:TRUE',
        'sctp.checksum:crc-32c',
      ])
        args.push('-o', pref);
      args.push(
        '-T',
        'fields',
        '-E',
        'separator=|',
        '-e',
        'frame.number',
        '-e',
        '_ws.malformed',
        '-e',
        '_ws.expert.message',
      );
      const result = spawnSync('tshark', args, { encoding: 'utf8' });
      expect(result.status).toBe(0);
      const lines = result.stdout.split('\n').filter((line) => line !== '');
      expect(lines.length).toBe(out.length);
      const problems = lines.filter((line) => /bad|malformed|incorrect|checksum/i.test(line));
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
