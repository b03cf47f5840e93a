// Ladder tests of close() with SO_LINGER and a time (tcp_close → sk_stream_wait_close): close() returns once
// the FIN is acknowledged, or when the linger time runs out; either way the wire shows an ordinary close and the
// orphan goes on retransmitting (no reset). With 0 seconds, close() resets.

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

/** a (10.0.0.1:40000) connected to b (10.0.0.2:8080); b's packets take 10 ms. */
function connected(): { sim: Simulation; b: Namespace; client: TcpSocket; lines: () => string[] } {
  const sim = new Simulation({ seed: 'tcp-linger' });
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  run(a, 'ip link add eth0 type veth peer name eth0 netns b');
  run(a, 'ip addr add 10.0.0.1/24 dev eth0');
  run(b, 'ip addr add 10.0.0.2/24 dev eth0');
  run(a, 'ip link set eth0 up');
  run(b, 'ip link set eth0 up');
  run(b, 'tc qdisc add dev eth0 root netem delay 10ms');
  const capture = spawn(a, 'tcpdump -nn -i eth0 tcp');
  if (!('stop' in capture)) throw new Error(capture.stderr);
  b.tcp.listen(0, 8080, (socket) => {
    socket.onData = () => {};
  });
  const result = a.tcp.connect({ dst: parseIpv4('10.0.0.2')!, dstPort: 8080, srcPort: 40000 });
  if (!result.ok) throw new Error(result.error);
  sim.run(0);
  sim.run(1e9);
  const lines = () =>
    capture
      .stop()
      .stdout.split('\n')
      .filter((line) => line !== '')
      .slice(3)
      .map((line) =>
        line
          .replace(/^00:(\d\d):(\d\d\.\d{6}) IP /, (_m, min: string, sec: string) =>
            min === '00' ? `${sec} ` : `${Number(min) * 60 + Number(sec)} `,
          )
          .replace('10.0.0.1.40000 > 10.0.0.2.8080: ', 'a>b ')
          .replace('10.0.0.2.8080 > 10.0.0.1.40000: ', 'b>a ')
          .replace(/, options \[[^\]]*\]/, '')
          .replace(/: HTTP$/, ''),
      );
  return { sim, b, client: result.socket, lines };
}

describe('close() with SO_LINGER', () => {
  it('returns when the FIN is acknowledged (FIN_WAIT2), before the linger time', () => {
    const t = connected();
    const returned: [number, boolean][] = [];
    t.client.write(new Uint8Array(100));
    t.client.setLinger(true, 5);
    t.client.destroy((timedOut) => returned.push([t.sim.now, timedOut]));
    expect(returned).toEqual([]);
    t.sim.run(10e9);
    expect(returned).toEqual([[1.05e9, false]]);
    expect(t.lines()).toEqual([
      '01.000000 a>b Flags [P.], seq 1:101, ack 1, win 63, length 100',
      '01.000000 a>b Flags [F.], seq 101, ack 1, win 63, length 0',
      '01.010000 b>a Flags [.], ack 101, win 64, length 0',
      // b entered CLOSE_WAIT in pingpong mode (tcp_fin): its ACK of the FIN is delayed 40 ms.
      '01.050000 b>a Flags [.], ack 102, win 64, length 0',
    ]);
  });

  it('returns when the linger time runs out; the orphan keeps retransmitting its FIN, no reset', () => {
    const t = connected();
    run(t.b, 'iptables -A INPUT -s 10.0.0.1 -j DROP');
    const returned: [number, boolean][] = [];
    t.client.write(new Uint8Array(100));
    t.client.setLinger(true, 2);
    t.client.destroy((timedOut) => returned.push([t.sim.now, timedOut]));
    t.sim.run(10e9);
    expect(returned).toEqual([[3e9, true]]);
    // close() returned at 3 s; the retransmissions around it are those of any orphan.
    expect(t.lines()).toEqual([
      '01.000000 a>b Flags [P.], seq 1:101, ack 1, win 63, length 100',
      '01.000000 a>b Flags [F.], seq 101, ack 1, win 63, length 0',
      '01.042000 a>b Flags [F.], seq 101, ack 1, win 63, length 0',
      '01.262000 a>b Flags [P.], seq 1:101, ack 1, win 63, length 100',
      '01.702000 a>b Flags [P.], seq 1:101, ack 1, win 63, length 100',
      '02.582000 a>b Flags [P.], seq 1:101, ack 1, win 63, length 100',
      '04.342000 a>b Flags [P.], seq 1:101, ack 1, win 63, length 100',
      '07.862000 a>b Flags [P.], seq 1:101, ack 1, win 63, length 100',
    ]);
  });

  it('with 0 seconds, close() resets the connection and returns at once', () => {
    const t = connected();
    const returned: boolean[] = [];
    t.client.setLinger(true, 0);
    t.client.destroy((timedOut) => returned.push(timedOut));
    expect(returned).toEqual([false]);
    t.sim.run(1e9);
    expect(t.lines()).toEqual(['01.000000 a>b Flags [R.], seq 1, ack 1, win 63, length 0']);
  });

  it('without SO_LINGER, close() returns at once', () => {
    const t = connected();
    const returned: boolean[] = [];
    t.client.destroy((timedOut) => returned.push(timedOut));
    expect(returned).toEqual([false]);
  });
});
