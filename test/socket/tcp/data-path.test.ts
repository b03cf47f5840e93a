// Ladder tests of TCP's data path on a veth, on the manual clock: full-MSS segments that wait for the peer's
// window, go-back-N after a retransmission timeout, the first ACKs of a send from process context, and a reader
// that pauses until the window is zero (persist timer, zero-window probes, the window update of a read).

import { describe, expect, it } from 'vitest';
import type { Namespace } from '../../../src/netns/namespace.ts';
import { Simulation } from '../../../src/netns/simulation.ts';
import type { TcpSocket } from '../../../src/socket/tcp/socket.ts';
import { exec, spawn } from '../../../src/tools/exec.ts';
import { parseIpv4 } from '../../../src/wire/address.ts';

function run(ns: Namespace, line: string): void {
  const result = exec(ns, line);
  if (result.exitCode !== 0) throw new Error(`${line}: ${result.stderr}`);
}

interface Ladder {
  readonly sim: Simulation;
  readonly client: TcpSocket;
  server(): TcpSocket;
  received(): number;
  /** tcpdump's lines on a's eth0 so far: time, direction, flags, relative numbers, window, length. */
  lines(): string[];
}

/** a (10.0.0.1:40000) connected to b (10.0.0.2:8080) over a veth; `setupB` runs on b before the listener. */
function connected(options: { setupB?: readonly string[]; pauseServer?: boolean } = {}): Ladder {
  const sim = new Simulation({ seed: 'tcp-data' });
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  run(a, 'ip link add eth0 type veth peer name eth0 netns b');
  run(a, 'ip addr add 10.0.0.1/24 dev eth0');
  run(b, 'ip addr add 10.0.0.2/24 dev eth0');
  run(a, 'ip link set eth0 up');
  run(b, 'ip link set eth0 up');
  for (const line of options.setupB ?? []) run(b, line);
  const capture = spawn(a, 'tcpdump -nn -i eth0 tcp');
  if (!('stop' in capture)) throw new Error(capture.stderr);
  let accepted: TcpSocket | undefined;
  let received = 0;
  b.tcp.listen(0, 8080, (socket) => {
    accepted = socket;
    if (options.pauseServer) socket.pauseReading();
    socket.onData = (_s, data) => {
      received += data.length;
    };
  });
  const result = a.tcp.connect({ dst: parseIpv4('10.0.0.2')!, dstPort: 8080, srcPort: 40000 });
  if (!result.ok) throw new Error(result.error);
  sim.run(0);
  const lines: string[] = [];
  return {
    sim,
    client: result.socket,
    server: () => accepted!,
    received: () => received,
    lines: () => {
      // Stops the capture: a test reads the ladder once, at its end.
      if (lines.length === 0)
        for (const line of capture.stop().stdout.split('\n'))
          if (line !== '')
            lines.push(
              line
                .replace(/^00:(\d\d):(\d\d\.\d{6}) IP /, (_m, min: string, sec: string) =>
                  min === '00' ? `${sec} ` : `${Number(min) * 60 + Number(sec)} `,
                )
                .replace('10.0.0.1.40000 > 10.0.0.2.8080', 'a>b')
                .replace('10.0.0.2.8080 > 10.0.0.1.40000', 'b>a')
                .replace(/, options \[[^\]]*\]/, '')
                .replace(/^(\S+ [ab]>[ab]):/, '$1')
                .replace(/: HTTP$/, ''),
            );
      return lines;
    },
  };
}

const bytes = (n: number) => new Uint8Array(n).fill(0x78);

describe('TCP data path on a veth', () => {
  it('a send from process context: each segment is acknowledged before the next leaves (quick ACKs), windows grow', () => {
    const t = connected();
    t.client.write(bytes(3 * 1448));
    t.sim.run(1e9);
    expect(t.lines().slice(3)).toEqual([
      '00.000000 a>b Flags [.], seq 1:1449, ack 1, win 63, length 1448',
      '00.000000 b>a Flags [.], ack 1449, win 67, length 0',
      '00.000000 a>b Flags [.], seq 1449:2897, ack 1, win 63, length 1448',
      '00.000000 b>a Flags [.], ack 2897, win 70, length 0',
      '00.000000 a>b Flags [P.], seq 2897:4345, ack 1, win 63, length 1448',
      '00.000000 b>a Flags [.], ack 4345, win 73, length 0',
    ]);
    expect(t.received()).toBe(3 * 1448);
  });

  it('a reader woken by a writer on its CPU: quick ACKs (16, and one more per window growth) while its buffer fills, then its read acknowledges the rest (__tcp_ack_snd_check, tcp_cleanup_rbuf)', () => {
    const t = connected();
    t.client.write(bytes(40 * 1448));
    t.sim.run(1e9);
    const acks = t
      .lines()
      .filter((line) => line.includes(' b>a ') && !line.includes('[S.]'))
      .map((line) => /ack (\d+), win (\d+)/.exec(line)?.slice(1).join(' win '));
    // The reader runs once a's send returns (one CPU): quick ACKs for segments 1..20 (the window grew four
    // times, then shrinks one unit per segment as the unread data fills the buffer), nothing while the
    // rest waits for its read (delayed ACK mode, the window still open), then the read's window update.
    const windows = [67, 70, 73, 75, 74, 73, 72, 71, 70, 69, 68, 67, 66, 65, 64, 63, 62, 61, 60, 59];
    const quick = windows.map((win, i) => `${1 + 1448 * (i + 1)} win ${win}`);
    expect(acks).toEqual([...quick, `${1 + 1448 * 40} win 75`]);
    expect(t.received()).toBe(40 * 1448);
  });

  it('a window that holds one segment and a part: full segments wait for a window they fit in whole (tcp_snd_wnd_test)', () => {
    // tcp_rmem of 8 KiB on b: the window is 3840 bytes (30 units of 128), two segments and 944 bytes.
    const t = connected({ setupB: ['sysctl -w "net.ipv4.tcp_rmem=4096 8192 8192"'] });
    t.client.write(bytes(6000));
    t.sim.run(1e9);
    expect(t.lines().slice(2)).toEqual([
      '00.000000 a>b Flags [.], ack 1, win 63, length 0',
      '00.000000 a>b Flags [.], seq 1:1449, ack 1, win 63, length 1448',
      '00.000000 b>a Flags [.], ack 1449, win 30, length 0',
      '00.000000 a>b Flags [.], seq 1449:2897, ack 1, win 63, length 1448',
      '00.000000 a>b Flags [.], seq 2897:4345, ack 1, win 63, length 1448',
      '00.000000 b>a Flags [.], ack 4345, win 30, length 0',
      '00.000000 a>b Flags [.], seq 4345:5793, ack 1, win 63, length 1448',
      '00.000000 a>b Flags [P.], seq 5793:6001, ack 1, win 63, length 208',
      '00.000000 b>a Flags [.], ack 6001, win 36, length 0',
    ]);
  });

  it('a segment lost: SACKed duplicate ACKs while b queues what follows out of order; RACK resends the hole after the last of them, no RTO wait, and b acknowledges everything', () => {
    // The fifth segment b receives (the third data segment, seq 2897) is dropped, once. The duplicate ACKs wait in
    // a's backlog while the write sends; processed, their SACK blocks let RACK mark the hole lost and it goes again
    // at once, as on the kernel (test/linux/tcp-bulk.test.ts, "one segment dropped on the receiver").
    const t = connected({
      setupB: [
        'iptables -A INPUT -p tcp --dport 8080 -m statistic --mode nth --every 100000 --packet 4 -j DROP',
      ],
    });
    t.client.write(bytes(12 * 1448));
    t.sim.run(5e9);
    expect(t.lines().slice(2)).toEqual([
      '00.000000 a>b Flags [.], ack 1, win 63, length 0',
      '00.000000 a>b Flags [.], seq 1:1449, ack 1, win 63, length 1448',
      '00.000000 b>a Flags [.], ack 1449, win 67, length 0',
      '00.000000 a>b Flags [.], seq 1449:2897, ack 1, win 63, length 1448',
      '00.000000 b>a Flags [.], ack 2897, win 70, length 0',
      '00.000000 a>b Flags [.], seq 2897:4345, ack 1, win 63, length 1448',
      '00.000000 a>b Flags [.], seq 4345:5793, ack 1, win 63, length 1448',
      '00.000000 b>a Flags [.], ack 2897, win 73, length 0',
      '00.000000 a>b Flags [.], seq 5793:7241, ack 1, win 63, length 1448',
      '00.000000 b>a Flags [.], ack 2897, win 75, length 0',
      '00.000000 a>b Flags [.], seq 7241:8689, ack 1, win 63, length 1448',
      '00.000000 b>a Flags [.], ack 2897, win 75, length 0',
      '00.000000 a>b Flags [.], seq 8689:10137, ack 1, win 63, length 1448',
      '00.000000 b>a Flags [.], ack 2897, win 75, length 0',
      '00.000000 a>b Flags [.], seq 10137:11585, ack 1, win 63, length 1448',
      '00.000000 b>a Flags [.], ack 2897, win 75, length 0',
      '00.000000 a>b Flags [.], seq 11585:13033, ack 1, win 63, length 1448',
      '00.000000 b>a Flags [.], ack 2897, win 75, length 0',
      '00.000000 a>b Flags [.], seq 13033:14481, ack 1, win 63, length 1448',
      '00.000000 b>a Flags [.], ack 2897, win 75, length 0',
      '00.000000 a>b Flags [.], seq 14481:15929, ack 1, win 63, length 1448',
      '00.000000 b>a Flags [.], ack 2897, win 75, length 0',
      '00.000000 a>b Flags [P.], seq 15929:17377, ack 1, win 63, length 1448',
      '00.000000 b>a Flags [.], ack 2897, win 75, length 0',
      '00.000000 a>b Flags [.], seq 2897:4345, ack 1, win 63, length 1448',
      '00.000000 b>a Flags [.], ack 17377, win 65, length 0',
    ]);
    expect(t.received()).toBe(12 * 1448);
  });

  it('a reader that pauses: the window closes, the persist timer fills a small window then probes at snd_una - 1 with backoff, answered at most every 500 ms; a read reopens it', () => {
    // tcp_rmem of 16 KiB on b and a server that does not read until 2 s.
    const t = connected({ setupB: ['sysctl -w "net.ipv4.tcp_rmem=4096 16384 16384"'], pauseServer: true });
    t.client.write(bytes(20000));
    t.sim.run(2e9);
    expect(t.received()).toBe(0);
    t.server().resumeReading();
    t.sim.run(1e9);
    expect(t.lines().slice(2)).toEqual([
      '00.000000 a>b Flags [.], ack 1, win 63, length 0',
      '00.000000 a>b Flags [.], seq 1:1449, ack 1, win 63, length 1448',
      '00.000000 b>a Flags [.], ack 1449, win 70, length 0',
      '00.000000 a>b Flags [.], seq 1449:2897, ack 1, win 63, length 1448',
      '00.000000 b>a Flags [.], ack 2897, win 59, length 0',
      '00.000000 a>b Flags [.], seq 2897:4345, ack 1, win 63, length 1448',
      '00.000000 b>a Flags [.], ack 4345, win 48, length 0',
      '00.000000 a>b Flags [.], seq 4345:5793, ack 1, win 63, length 1448',
      '00.000000 a>b Flags [.], seq 5793:7241, ack 1, win 63, length 1448',
      '00.000000 a>b Flags [.], seq 7241:8689, ack 1, win 63, length 1448',
      '00.000000 a>b Flags [.], seq 8689:10137, ack 1, win 63, length 1448',
      // The tail loss probe (2 srtt + TCP_TIMEOUT_MIN): the last segment again; b answers its duplicate at once.
      '00.003000 a>b Flags [.], seq 8689:10137, ack 1, win 63, length 1448',
      '00.003000 b>a Flags [.], ack 10137, win 3, length 0',
      '00.203001 a>b Flags [P.], seq 10137:10521, ack 1, win 63, length 384',
      '00.243001 b>a Flags [.], ack 10521, win 0, length 0',
      '00.448001 a>b Flags [.], ack 1, win 63, length 0',
      '00.448001 b>a Flags [.], ack 10521, win 0, length 0',
      '00.858003 a>b Flags [.], ack 1, win 63, length 0',
      '01.678007 a>b Flags [.], ack 1, win 63, length 0',
      '01.678007 b>a Flags [.], ack 10521, win 0, length 0',
      '02.000000 b>a Flags [.], ack 10521, win 70, length 0',
      '02.000000 a>b Flags [.], seq 10521:11969, ack 1, win 63, length 1448',
      '02.000000 a>b Flags [.], seq 11969:13417, ack 1, win 63, length 1448',
      '02.000000 a>b Flags [.], seq 13417:14865, ack 1, win 63, length 1448',
      '02.000000 a>b Flags [.], seq 14865:16313, ack 1, win 63, length 1448',
      '02.000000 a>b Flags [.], seq 16313:17761, ack 1, win 63, length 1448',
      '02.000000 a>b Flags [.], seq 17761:19209, ack 1, win 63, length 1448',
      '02.000000 b>a Flags [.], ack 11969, win 70, length 0',
      '02.000000 a>b Flags [P.], seq 19209:20001, ack 1, win 63, length 792',
      '02.000000 b>a Flags [.], ack 13417, win 70, length 0',
      '02.000000 b>a Flags [.], ack 14865, win 70, length 0',
      '02.000000 b>a Flags [.], ack 17761, win 70, length 0',
      '02.000000 b>a Flags [.], ack 20001, win 73, length 0',
    ]);
    expect(t.received()).toBe(20000);
  });
});

describe('TCP timers that watch a silent peer', () => {
  it('tcp_retries2 (15) is a time budget: a peer gone silent fails the connection at the first RTO 924.6 s after the segment was sent (after a loss probe)', () => {
    const t = connected();
    let error: string | undefined;
    let closedAt = 0;
    t.client.onClose = (_s, e) => {
      error = e;
      closedAt = t.sim.now;
    };
    t.sim.run(1e9);
    const b = t.sim.namespace('b');
    run(b, 'iptables -A INPUT -j DROP');
    const sentAt = t.sim.now;
    t.client.write(bytes(100));
    t.sim.run(924_799e6);
    expect(error).toBeUndefined();
    t.sim.run(5e6);
    expect(error).toBe('ETIMEDOUT');
    const lines = t.lines().slice(3);
    // The segment, a tail loss probe (2 srtt + TCP_RTO_MIN with one segment out, capped by the RTO) 201 ms
    // later, then 15 retransmissions: the RTO from the probe, 0.2 s doubling to 102.4 s, then every 120 s.
    expect(lines).toHaveLength(17);
    expect(lines.every((line) => line.includes('seq 1:101'))).toBe(true);
    expect(lines[1]).toMatch(/^01\.201\d+ a>b /);
    expect(lines[2]).toMatch(/^01\.401\d+ a>b /);
    // The 15th retransmission 804.8 s after the segment (sent at 1 s), the failure when the next RTO would resend it,
    // the 924.6 s budget (counted from the segment) being spent.
    expect(lines[16]).toMatch(/^805\.80\d+ a>b Flags \[P\.\], seq 1:101/);
    expect((closedAt - sentAt) / 1e9).toBeCloseTo(924.802, 3);
  });

  it('SYN retransmissions: four a second apart (tcp_syn_linear_timeouts = 4), then doubling; ETIMEDOUT after tcp_syn_retries + 4 of them', () => {
    const sim = new Simulation({ seed: 'tcp-syn' });
    const a = sim.addNamespace('a');
    const b = sim.addNamespace('b');
    run(a, 'ip link add eth0 type veth peer name eth0 netns b');
    run(a, 'ip addr add 10.0.0.1/24 dev eth0');
    run(b, 'ip addr add 10.0.0.2/24 dev eth0');
    run(a, 'ip link set eth0 up');
    run(b, 'ip link set eth0 up');
    run(b, 'iptables -A INPUT -p tcp -j DROP');
    const sent: number[] = [0];
    const result = a.tcp.connect({ dst: parseIpv4('10.0.0.2')!, dstPort: 8080, srcPort: 40000 });
    if (!result.ok) throw new Error(result.error);
    let error: string | undefined;
    let closedAt = 0;
    result.socket.onClose = (_s, e) => {
      error = e;
      closedAt = sim.now;
    };
    const start = sim.now;
    for (let ms = 0; ms < 200_000 && error === undefined; ms += 100) {
      sim.run(100e6);
      if (result.socket.info().segsOut > sent.length) sent.push(Math.round((sim.now - start) / 1e8) / 10);
    }
    // The SYN at 0, then 1, 2, 3, 4, 5 s (linear), 7, 11, 19, 35, 67 s (doubling): the eleventh timeout gives up.
    // Linux 6.18 on this machine (a connect() to a dropped address): 1.01, 2.03, 3.06, 4.08, 5.10, 7.12, 11.38,
    // 19.57, 35.70, 69.49 s, ETIMEDOUT at 135.0 s (HZ=250 jiffies; long timers fire late).
    expect(sent.slice(1)).toEqual([1, 2, 3, 4, 5, 7, 11, 19, 35, 67]);
    expect(error).toBe('ETIMEDOUT');
    expect((closedAt - start) / 1e9).toBe(131);
  });

  it('SO_KEEPALIVE with TCP_KEEPIDLE 10, TCP_KEEPINTVL 5, TCP_KEEPCNT 3: a probe at snd_una - 1 per idle time while answered; silence resets the connection with ETIMEDOUT', () => {
    const t = connected();
    let error: string | undefined;
    t.client.onClose = (_s, e) => {
      error = e;
    };
    t.client.setKeepAlive(true, { idle: 10, interval: 5, count: 3 });
    t.sim.run(21e9);
    const b = t.sim.namespace('b');
    run(b, 'iptables -A INPUT -j DROP');
    t.sim.run(40e9);
    expect(error).toBe('ETIMEDOUT');
    expect(t.lines().slice(2)).toEqual([
      '00.000000 a>b Flags [.], ack 1, win 63, length 0',
      '10.000000 a>b Flags [.], ack 1, win 63, length 0',
      '10.000000 b>a Flags [.], ack 1, win 64, length 0',
      '20.000000 a>b Flags [.], ack 1, win 63, length 0',
      '20.000000 b>a Flags [.], ack 1, win 64, length 0',
      '30.000000 a>b Flags [.], ack 1, win 63, length 0',
      '35.000000 a>b Flags [.], ack 1, win 63, length 0',
      '40.000000 a>b Flags [.], ack 1, win 63, length 0',
      '45.000000 a>b Flags [R.], seq 1, ack 1, win 63, length 0',
    ]);
  });
});

describe('TCP after an ICMP frag-needed', () => {
  it('what was cut for 1448 bytes goes again at once in pieces of the new MSS and the rest (tcp_simple_retransmit, tcp_fragment)', () => {
    const sim = new Simulation({ seed: 'tcp-pmtu' });
    const a = sim.addNamespace('a');
    const r = sim.addNamespace('r');
    const b = sim.addNamespace('b');
    run(a, 'ip link add veth-a type veth peer name veth-ra netns r');
    run(r, 'ip link add veth-rb mtu 1400 type veth peer name veth-b netns b');
    run(a, 'ip addr add 10.0.0.1/24 dev veth-a');
    run(r, 'ip addr add 10.0.0.254/24 dev veth-ra');
    run(r, 'ip addr add 10.0.1.254/24 dev veth-rb');
    run(b, 'ip addr add 10.0.1.2/24 dev veth-b');
    for (const [ns, dev] of [
      [a, 'veth-a'],
      [r, 'veth-ra'],
      [r, 'veth-rb'],
      [b, 'veth-b'],
    ] as const)
      run(ns, `ip link set ${dev} up`);
    run(r, 'sysctl -w net.ipv4.ip_forward=1');
    run(a, 'ip route add default via 10.0.0.254');
    run(b, 'ip route add default via 10.0.1.254');
    const capture = spawn(a, 'tcpdump -nn -i veth-a');
    if (!('stop' in capture)) throw new Error(capture.stderr);
    let received = 0;
    b.tcp.listen(0, 8080, (socket) => {
      socket.onData = (_s, data) => {
        received += data.length;
      };
    });
    const connected = a.tcp.connect({ dst: parseIpv4('10.0.1.2')!, dstPort: 8080, srcPort: 40000 });
    if (!connected.ok) throw new Error(connected.error);
    sim.run(0);
    connected.socket.write(bytes(5 * 1448));
    sim.run(1e9);
    expect(received).toBe(5 * 1448);
    const lines = capture
      .stop()
      .stdout.split('\n')
      .filter((line) => line.includes('10.0.0.1.40000 >') || line.includes('ICMP'))
      .map((line) =>
        line
          .replace(/^\S+ IP /, '')
          .replace(/, options \[[^\]]*\]/, '')
          .replace(/: HTTP$/, ''),
      );
    // The ICMP layer learned the path MTU at once, so the four segments cut for 1448 after the
    // first never leave (ip_fragment refuses them; on Linux they leave and die at the router,
    // since TCP updates the route's MTU itself, after the send). Every one is resent in two pieces.
    expect(lines.slice(2)).toEqual([
      '10.0.0.1.40000 > 10.0.1.2.8080: Flags [.], seq 1:1449, ack 1, win 63, length 1448',
      '10.0.0.254 > 10.0.0.1: ICMP 10.0.1.2 unreachable - need to frag (mtu 1400), length 556',
      '10.0.0.1.40000 > 10.0.1.2.8080: Flags [.], seq 1:1349, ack 1, win 63, length 1348',
      '10.0.0.1.40000 > 10.0.1.2.8080: Flags [.], seq 1349:1449, ack 1, win 63, length 100',
      '10.0.0.1.40000 > 10.0.1.2.8080: Flags [.], seq 1449:2797, ack 1, win 63, length 1348',
      '10.0.0.1.40000 > 10.0.1.2.8080: Flags [.], seq 2797:2897, ack 1, win 63, length 100',
      '10.0.0.1.40000 > 10.0.1.2.8080: Flags [.], seq 2897:4245, ack 1, win 63, length 1348',
      '10.0.0.1.40000 > 10.0.1.2.8080: Flags [.], seq 4245:4345, ack 1, win 63, length 100',
      '10.0.0.1.40000 > 10.0.1.2.8080: Flags [.], seq 4345:5693, ack 1, win 63, length 1348',
      '10.0.0.1.40000 > 10.0.1.2.8080: Flags [.], seq 5693:5793, ack 1, win 63, length 100',
      '10.0.0.1.40000 > 10.0.1.2.8080: Flags [.], seq 5793:7141, ack 1, win 63, length 1348',
      '10.0.0.1.40000 > 10.0.1.2.8080: Flags [P.], seq 7141:7241, ack 1, win 63, length 100',
    ]);
  });
});

describe('TCP close with unread data', () => {
  it('close() while received bytes wait unread sends a reset instead of a FIN (tcp_close, RFC 2525 2.17)', () => {
    const t = connected({ pauseServer: true });
    t.client.write(bytes(100));
    t.sim.run(1e9);
    t.server().destroy();
    t.sim.run(1e9);
    expect(t.lines().slice(3)).toEqual([
      '00.000000 a>b Flags [P.], seq 1:101, ack 1, win 63, length 100',
      '00.000000 b>a Flags [.], ack 101, win 64, length 0',
      '01.000000 b>a Flags [R.], seq 1, ack 101, win 64, length 0',
    ]);
  });
});

describe('TCP loss recovery in a bulk transfer', () => {
  it('1 MiB with every 50th segment b receives dropped: SACK and RACK resend each hole once, within the millisecond, never an RTO', () => {
    const t = connected({
      setupB: [
        'iptables -A INPUT -p tcp --dport 8080 -m statistic --mode nth --every 50 --packet 40 -j DROP',
      ],
    });
    const start = t.sim.now;
    let doneAt = -1;
    t.client.write(bytes(1 << 20));
    for (let ms = 0; ms < 2000 && doneAt < 0; ms++) {
      t.sim.run(1e6);
      if (t.client.info().bytesAcked >= 1 << 20) doneAt = t.sim.now;
    }
    expect(t.received()).toBe(1 << 20);
    const counters = exec(t.sim.namespace('b'), 'iptables -nvL INPUT').stdout.split('\n')[2] ?? '';
    expect(counters).toMatch(/^\s*15 /);
    // Fifteen holes, fifteen retransmissions: none spurious, no go-back-N (the last is the tail loss probe,
    // 2 srtt + TCP_TIMEOUT_MIN after the final segment). Waiting for the RTO instead: 200 ms a hole.
    expect(t.client.info().totalRetrans).toBe(15);
    expect((doneAt - start) / 1e6).toBeLessThanOrEqual(4);
  });
});
