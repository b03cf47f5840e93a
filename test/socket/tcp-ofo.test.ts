import { describe, expect, it } from 'vitest';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec, spawn } from '../../src/tools/exec.ts';
import { parseIpv4 } from '../../src/wire/address.ts';

function run(ns: Namespace, line: string): void {
  const result = exec(ns, line);
  if (result.exitCode !== 0) throw new Error(`${line}: ${result.stderr}`);
}

/**
 * a (10.0.0.1) sends `segments` full segments to b:8080; b's INPUT drops a's TCP packet number
 * `dropped` (0: the SYN), after b's capture saw it: a loss on the path, not a local send error.
 */
function burst(segments: number, dropped: number, receiverSack = 1) {
  const sim = new Simulation({ seed: 'tcp-ofo' });
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  run(a, 'ip link add eth0 type veth peer name eth0 netns b');
  run(a, 'ip addr add 10.0.0.1/24 dev eth0');
  run(b, 'ip addr add 10.0.0.2/24 dev eth0');
  run(a, 'ip link set eth0 up');
  run(b, 'ip link set eth0 up');
  run(b, `sysctl -w net.ipv4.tcp_sack=${receiverSack}`);
  run(
    b,
    `iptables -A INPUT -p tcp --dport 8080 -m statistic --mode nth --every 100000 --packet ${dropped} -j DROP`,
  );
  const capture = spawn(b, 'tcpdump -nn -i eth0 tcp');
  const received: Uint8Array[] = [];
  const listener = b.tcp.listen(0, 8080, (socket) => {
    socket.onData = (_s, data) => received.push(data);
  });
  if (listener === 'EADDRINUSE') throw new Error('port taken');
  const connected = a.tcp.connect({ dst: parseIpv4('10.0.0.2')!, dstPort: 8080, srcPort: 40000 });
  if (!connected.ok) throw new Error(connected.error);
  const payload = Uint8Array.from({ length: segments * 1448 }, (_, i) => (i * 7) & 0xff);
  connected.socket.onConnect = (s) => s.write(payload);
  sim.run(5e9);
  if (!('stop' in capture)) throw new Error(capture.stderr);
  const dump = capture
    .stop()
    .stdout.split('\n')
    .filter((line) => line !== '');
  const total = received.reduce((sum, chunk) => sum + chunk.length, 0);
  const joined = new Uint8Array(total);
  let at = 0;
  for (const chunk of received) {
    joined.set(chunk, at);
    at += chunk.length;
  }
  return { dump, payload, joined, received };
}

describe('the receiver holds out-of-order data and announces it in SACK blocks', () => {
  it('one lost segment of a 20-segment burst: SACKs grow until the hole fills, then all is delivered in order', () => {
    const { dump, payload, joined, received } = burst(20, 8);
    const lines = dump.map(shape);
    // Packet 8 is the seventh data segment, [8689, 10137): the ones after it wait out of order.
    expect(lines.slice(13, 21)).toEqual([
      'a > b: Flags [.], seq 7241:8689, length 1448',
      'b > a: Flags [.], ack 8689, options [nop,nop,TS]',
      'a > b: Flags [.], seq 8689:10137, length 1448',
      'a > b: Flags [.], seq 10137:11585, length 1448',
      'b > a: Flags [.], ack 8689, options [nop,nop,TS,nop,nop,sack 1 {10137:11585}]',
      'a > b: Flags [.], seq 11585:13033, length 1448',
      'b > a: Flags [.], ack 8689, options [nop,nop,TS,nop,nop,sack 1 {10137:13033}]',
      'a > b: Flags [.], seq 13033:14481, length 1448',
    ]);
    // Every later duplicate ACK widens the one block to the segment just received.
    const dupacks = lines.filter((line) => line.includes('sack 1 '));
    expect(dupacks.length).toBe(13);
    for (const [i, line] of dupacks.entries()) expect(line).toContain(`sack 1 {10137:${11585 + 1448 * i}}`);
    // RACK marks the hole lost once the duplicate ACKs (processed after the burst, from the backlog) SACK what
    // followed it; it goes again at once, without waiting for the RTO (as the kernel does: test/linux/tcp-bulk.test.ts);
    // the queue drains and the ACK covers everything at once.
    expect(lines.slice(-2)).toEqual([
      'a > b: Flags [.], seq 8689:10137, length 1448',
      'b > a: Flags [.], ack 28961, options [nop,nop,TS]',
    ]);
    expect(dump[dump.length - 1]).toMatch(/^00:00:00\.000/);
    expect(joined).toEqual(payload);
    // Six segments in order, then the thirteen held back arrive with the hole in one read.
    expect(received.map((chunk) => chunk.length)).toEqual([1448, 1448, 1448, 1448, 1448, 1448, 14 * 1448]);
  });

  it('without SACK (tcp_sack 0 at the receiver) the queue still holds the data; the duplicate ACKs carry no blocks', () => {
    const { dump, payload, joined } = burst(20, 8, 0);
    const lines = dump.map(shape);
    expect(lines.some((line) => line.includes('sack '))).toBe(false);
    expect(lines.filter((line) => line === 'b > a: Flags [.], ack 8689, options [nop,nop,TS]').length).toBe(
      14,
    );
    expect(lines[lines.length - 1]).toBe('b > a: Flags [.], ack 28961, options [nop,nop,TS]');
    expect(joined).toEqual(payload);
  });
});

describe('D-SACK for a duplicate segment (tcp_send_dupack, tcp_dsack_set)', () => {
  it("a's retransmission of data b already has is answered at once with a D-SACK block below the ACK", () => {
    const sim = new Simulation({ seed: 'tcp-dsack' });
    const a = sim.addNamespace('a');
    const b = sim.addNamespace('b');
    run(a, 'ip link add eth0 type veth peer name eth0 netns b');
    run(a, 'ip addr add 10.0.0.1/24 dev eth0');
    run(b, 'ip addr add 10.0.0.2/24 dev eth0');
    run(a, 'ip link set eth0 up');
    run(b, 'ip link set eth0 up');
    // a loses b's ACK of the data (packet 1 from b: 0 is the SYN-ACK), so a's RTO resends it.
    run(a, 'iptables -A INPUT -p tcp --sport 8080 -m statistic --mode nth --every 100000 --packet 1 -j DROP');
    const capture = spawn(b, 'tcpdump -nn -i eth0 tcp');
    const received: string[] = [];
    const listener = b.tcp.listen(0, 8080, (socket) => {
      socket.onData = (_s, data) => received.push(new TextDecoder().decode(data));
    });
    if (listener === 'EADDRINUSE') throw new Error('port taken');
    const connected = a.tcp.connect({ dst: parseIpv4('10.0.0.2')!, dstPort: 8080, srcPort: 40000 });
    if (!connected.ok) throw new Error(connected.error);
    connected.socket.onConnect = (s) => s.write(new TextEncoder().encode('hello, sack'));
    sim.run(3e9);
    if (!('stop' in capture)) throw new Error(capture.stderr);
    const lines = capture
      .stop()
      .stdout.split('\n')
      .filter((line) => line !== '')
      .map(shape);
    expect(lines.slice(3)).toEqual([
      'a > b: Flags [P.], seq 1:12, length 11',
      'b > a: Flags [.], ack 12, options [nop,nop,TS]',
      'a > b: Flags [P.], seq 1:12, length 11',
      'b > a: Flags [.], ack 12, options [nop,nop,TS,nop,nop,sack 1 {1:12}]',
    ]);
    expect(received).toEqual(['hello, sack']);
  });
});

/** tcpdump's line without time, addresses' prefix, window, ack on data segments and TS values. */
function shape(line: string): string {
  return line
    .replace(/^\S+ IP /, '')
    .replace('10.0.0.1.40000 > 10.0.0.2.8080', 'a > b')
    .replace('10.0.0.2.8080 > 10.0.0.1.40000', 'b > a')
    .replace(/TS val \d+ ecr \d+/, 'TS')
    .replace(/, win \d+/, '')
    .replace(/(seq \d+:\d+), ack 1, options \[nop,nop,TS\], (length \d+): HTTP/, '$1, $2')
    .replace(/, length 0$/, '');
}
