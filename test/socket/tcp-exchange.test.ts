import { describe, expect, it } from 'vitest';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import type { TcpSocket } from '../../src/socket/tcp/socket.ts';
import { exec, spawn } from '../../src/tools/exec.ts';
import { parseIpv4 } from '../../src/wire/address.ts';

function run(ns: Namespace, line: string): void {
  const result = exec(ns, line);
  if (result.exitCode !== 0) throw new Error(`${line}: ${result.stderr}`);
}

function twoHosts(mtu = 1500) {
  const sim = new Simulation({ seed: 'tcp' });
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  run(a, `ip link add eth0 mtu ${mtu} type veth peer name eth0 netns b`);
  run(b, `ip link set eth0 mtu ${mtu}`);
  run(a, 'ip addr add 10.0.0.1/24 dev eth0');
  run(b, 'ip addr add 10.0.0.2/24 dev eth0');
  run(a, 'ip link set eth0 up');
  run(b, 'ip link set eth0 up');
  return { sim, a, b };
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const bytes = (s: string) => new TextEncoder().encode(s);

/** An echo server on b:8080 and a client on a:40000 sending `count` messages one after the other, as tcp-peer.mjs does. */
function echoExchange(count: number, payload: string, mtu = 1500) {
  const { sim, a, b } = twoHosts(mtu);
  const capture = spawn(a, 'tcpdump -nn -i eth0 tcp');
  const lines: string[] = [];
  const listener = b.tcp.listen(0, 8080, (socket) => {
    lines.push(`accept ${socket.remotePort}`);
    socket.onData = (s, data) => {
      lines.push(`data ${text(data)}`);
      s.write(data);
    };
    socket.onEnd = (s) => {
      lines.push('end');
      s.end();
    };
    socket.onClose = () => lines.push('close');
  });
  if (listener === 'EADDRINUSE') throw new Error('port taken');
  let sent = 0;
  const next = (s: TcpSocket) => {
    if (sent >= count) s.end();
    else s.write(bytes(`${payload} ${++sent}`));
  };
  const connected = a.tcp.connect({ dst: parseIpv4('10.0.0.2')!, dstPort: 8080, srcPort: 40000 });
  if (!connected.ok) throw new Error(connected.error);
  const client = connected.socket;
  client.onConnect = (s) => {
    lines.push('connected');
    next(s);
  };
  client.onData = (s, data) => {
    lines.push(`reply ${text(data)}`);
    next(s);
  };
  client.onClose = (_s, error) => lines.push(`closed${error ? ` ${error}` : ''}`);
  sim.run(5e9);
  if (!('stop' in capture)) throw new Error(capture.stderr);
  const dump = capture
    .stop()
    .stdout.split('\n')
    .filter((line) => line !== '');
  return { sim, a, b, lines, dump, client };
}

/** tcpdump's line without the timestamp, the addresses, sequence numbers and timestamps (what the kernel randomises). */
function shape(line: string): string {
  return line
    .replace(/^\S+ IP /, '')
    .replace(/seq \d+(:\d+)?, /, (m) => (m.includes(':') ? 'seq D, ' : ''))
    .replace(/ack \d+, /, 'ack, ')
    .replace(/TS val \d+ ecr \d+/, 'TS');
}

describe('a TCP echo exchange between two namespaces', () => {
  it('opens, echoes three messages and closes as Linux 6.18 does on a veth', () => {
    const { lines, dump, client } = echoExchange(3, 'packetlab');
    expect(lines).toEqual([
      'connected',
      'accept 40000',
      'data packetlab 1',
      'reply packetlab 1',
      'data packetlab 2',
      'reply packetlab 2',
      'data packetlab 3',
      'reply packetlab 3',
      'end',
      'closed',
      'close',
    ]);
    // The segments a real kernel sent for this exchange (quick ACKs for the first message, then ping-pong
    // mode: each reply carries the ACK; the client's FIN carries the last; three-segment close).
    expect(dump.map(shape)).toEqual([
      '10.0.0.1.40000 > 10.0.0.2.8080: Flags [S], win 64240, options [mss 1460,sackOK,TS,nop,wscale 10], length 0',
      '10.0.0.2.8080 > 10.0.0.1.40000: Flags [S.], ack, win 65160, options [mss 1460,sackOK,TS,nop,wscale 10], length 0',
      '10.0.0.1.40000 > 10.0.0.2.8080: Flags [.], ack, win 63, options [nop,nop,TS], length 0',
      '10.0.0.1.40000 > 10.0.0.2.8080: Flags [P.], seq D, ack, win 63, options [nop,nop,TS], length 11: HTTP',
      '10.0.0.2.8080 > 10.0.0.1.40000: Flags [.], ack, win 64, options [nop,nop,TS], length 0',
      '10.0.0.2.8080 > 10.0.0.1.40000: Flags [P.], seq D, ack, win 64, options [nop,nop,TS], length 11: HTTP',
      '10.0.0.1.40000 > 10.0.0.2.8080: Flags [.], ack, win 63, options [nop,nop,TS], length 0',
      '10.0.0.1.40000 > 10.0.0.2.8080: Flags [P.], seq D, ack, win 63, options [nop,nop,TS], length 11: HTTP',
      '10.0.0.2.8080 > 10.0.0.1.40000: Flags [P.], seq D, ack, win 64, options [nop,nop,TS], length 11: HTTP',
      '10.0.0.1.40000 > 10.0.0.2.8080: Flags [P.], seq D, ack, win 63, options [nop,nop,TS], length 11: HTTP',
      '10.0.0.2.8080 > 10.0.0.1.40000: Flags [P.], seq D, ack, win 64, options [nop,nop,TS], length 11: HTTP',
      '10.0.0.1.40000 > 10.0.0.2.8080: Flags [F.], ack, win 63, options [nop,nop,TS], length 0',
      '10.0.0.2.8080 > 10.0.0.1.40000: Flags [F.], ack, win 64, options [nop,nop,TS], length 0',
      '10.0.0.1.40000 > 10.0.0.2.8080: Flags [.], ack, win 63, options [nop,nop,TS], length 0',
    ]);
    expect(client.state).toBe('TIME_WAIT');
  });
});

describe('ephemeral ports', () => {
  it('connect() alone takes even ports, bind(addr, 0) then connect() odd ones, all in ip_local_port_range', () => {
    const { a, b } = twoHosts();
    const listener = b.tcp.listen(0, 8080, () => {});
    if (listener === 'EADDRINUSE') throw new Error('port taken');
    const dst = parseIpv4('10.0.0.2')!;
    const ports = (options: { src?: number }) =>
      Array.from({ length: 20 }, () => {
        const connected = a.tcp.connect({ dst, dstPort: 8080, ...options });
        if (!connected.ok) throw new Error(connected.error);
        return connected.socket.localPort;
      });
    const viaConnect = ports({});
    const viaBind = ports({ src: parseIpv4('10.0.0.1')! });
    for (const port of [...viaConnect, ...viaBind]) {
      expect(port).toBeGreaterThanOrEqual(32768);
      expect(port).toBeLessThanOrEqual(60999);
    }
    expect(viaConnect.every((port) => port % 2 === 0)).toBe(true);
    expect(viaBind.every((port) => port % 2 === 1)).toBe(true);
    expect(new Set(viaBind).size).toBe(20);
  });
});
