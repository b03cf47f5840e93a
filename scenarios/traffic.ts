// A story of traffic: diag calls signalements over a link with latency, /sante answers fast, /rapport takes
// longer, and a storm of new connections runs out of ephemeral ports, all in virtual time from one seed.

import { httpServer } from '../src/app/http/server.ts';
import { loadGenerator } from '../src/app/load/generator.ts';
import { Simulation } from '../src/netns/simulation.ts';
import { exec, execOrThrow } from '../src/tools/exec.ts';

/** The session as a terminal would show it: each command, then what it printed. */
export function trafficSession(seed: string | number = 'traffic'): string[] {
  const sim = new Simulation({ seed });
  const diag = sim.addNamespace('diag');
  const signalements = sim.addNamespace('signalements');
  // A pod and its service's endpoint, one veth between them (the lesson's addresses).
  execOrThrow(diag, 'ip link add eth0 type veth peer name eth0 netns signalements');
  execOrThrow(diag, 'ip addr add 10.244.1.5/24 dev eth0');
  execOrThrow(signalements, 'ip addr add 10.244.1.9/24 dev eth0');
  execOrThrow(diag, 'ip link set eth0 up');
  execOrThrow(signalements, 'ip link set eth0 up');

  const lines: string[] = [];
  const show = (ns: typeof diag, line: string): void => {
    lines.push(`${ns.name}$ ${line}`);
    const result = exec(ns, line);
    lines.push(
      ...`${result.stdout}${result.stderr}`
        .trimEnd()
        .split('\n')
        .filter((text) => text !== ''),
    );
  };

  // The server: two routes, one small, one large, in one line.
  const server = httpServer(signalements, {
    port: 8000,
    routes: { '/sante': { body: 'ok\n' }, '/rapport': { bodyBytes: 200_000 } },
  });

  // 5 ms each way (netem delays what leaves a device): the round trip becomes 10 ms.
  show(diag, 'tc qdisc add dev eth0 root netem delay 5ms');
  show(signalements, 'tc qdisc add dev eth0 root netem delay 5ms');
  show(diag, 'ping -c 2 10.244.1.9');
  const write = `-w '%{http_code} %{size_download} bytes in %{time_total} s\\n'`;
  show(diag, `curl -s -o /dev/null ${write} http://10.244.1.9:8000/sante`);
  show(diag, `curl -s -o /dev/null ${write} http://10.244.1.9:8000/rapport`);
  lines.push(`signalements access log: ${server.accessLog.at(-1) ?? '(empty)'}`);

  // A storm: 200 new connections per second for 2 s, with 64 ephemeral ports to draw from.
  show(diag, 'sysctl -w net.ipv4.ip_local_port_range="32768 32831"');
  const load = loadGenerator(diag, {
    target: '10.244.1.9:8000',
    path: '/sante',
    rate: 200,
    durationMs: 2000,
  });
  sim.run(3e9);
  lines.push('load generator, 200 connections/s for 2 s:', ...load.table().trimEnd().split('\n'));
  show(diag, 'ss -s');
  return lines;
}
