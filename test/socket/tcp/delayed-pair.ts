// The ladder tests' connection over a slow far side: a (10.0.0.1:40000) connected to b (10.0.0.2:8080) on a veth
// whose b end delays every packet by 10 ms (netem), with a's tcpdump turned into short `a>b` / `b>a` lines.

import type { Namespace } from '../../../src/netns/namespace.ts';
import type { Simulation } from '../../../src/netns/simulation.ts';
import type { TcpSocket } from '../../../src/socket/tcp/socket.ts';
import { execOrThrow, spawn } from '../../../src/tools/exec.ts';
import { parseIpv4 } from '../../../src/wire/address.ts';
import { twoHosts } from '../../support/two-hosts.ts';

export interface DelayedPair {
  readonly sim: Simulation;
  readonly a: Namespace;
  readonly b: Namespace;
  readonly client: TcpSocket;
  /** a's capture after the handshake: `SS.ssssss a>b Flags [...] ...` (seconds past a minute are added up). */
  readonly lines: () => string[];
}

/** The pair, connected and one second past the handshake; b's server reads and discards. */
export function delayedPair(seed: string): DelayedPair {
  const { sim, a, b } = twoHosts(seed);
  execOrThrow(b, 'tc qdisc add dev eth0 root netem delay 10ms');
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
  return { sim, a, b, client: result.socket, lines };
}
