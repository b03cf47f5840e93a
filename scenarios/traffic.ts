// A story of traffic: diag calls signalements over a link with latency, /sante answers fast, /rapport takes
// longer, and a storm of new connections runs out of ephemeral ports, all in virtual time from one seed.

import { type HttpServer, httpServer } from '../src/app/http/server.ts';
import { loadGenerator } from '../src/app/load/generator.ts';
import type { Namespace } from '../src/netns/namespace.ts';
import { Simulation } from '../src/netns/simulation.ts';
import { Story, type StoryResult, transcript } from '../src/story/story.ts';
import { execOrThrow } from '../src/tools/exec.ts';

/** The session as a terminal would show it: each command, then what it printed. */
export function trafficSession(seed: string | number = 'traffic'): string[] {
  return transcript(trafficStory(seed));
}

/** The story with its checks: /sante and /rapport answered over a 10 ms link, the storm out of 64 ports. */
export function trafficStory(seed: string | number = 'traffic'): StoryResult {
  const story = new Story('traffic', seed);
  const sim = new Simulation({ seed });
  story.attach(sim);
  const { diag, signalements, server } = trafficLab(sim);

  const show = (ns: typeof diag, line: string) => story.run(`${ns.name}$`, ns, line);

  // 5 ms each way (netem delays what leaves a device): the round trip becomes 10 ms.
  show(diag, 'tc qdisc add dev eth0 root netem delay 5ms');
  show(signalements, 'tc qdisc add dev eth0 root netem delay 5ms');
  const ping = show(diag, 'ping -c 2 10.244.1.9');
  story.expectThat(
    'the round trip is 10 ms',
    'time=10.0 ms',
    ping.stdout,
    ping.stdout.includes('time=10.0 ms'),
  );
  const write = `-w '%{http_code} %{size_download} bytes in %{time_total} s\\n'`;
  const sante = show(diag, `curl -s -o /dev/null ${write} http://10.244.1.9:8000/sante`);
  story.expectEqual('/sante answers in two round trips', '200 3 bytes in 0.020000 s', sante.stdout.trimEnd());
  const rapport = show(diag, `curl -s -o /dev/null ${write} http://10.244.1.9:8000/rapport`);
  story.expectThat(
    '/rapport (200 kB) arrives whole',
    '200 200000 bytes',
    rapport.stdout.trimEnd(),
    rapport.stdout.startsWith('200 200000 bytes'),
  );
  story.show(`signalements access log: ${server.accessLog.at(-1) ?? '(empty)'}`);

  // A storm: 200 new connections per second for 2 s, with 64 ephemeral ports to draw from.
  show(diag, 'sysctl -w net.ipv4.ip_local_port_range="32768 32831"');
  const load = loadGenerator(diag, {
    target: '10.244.1.9:8000',
    path: '/sante',
    rate: 200,
    durationMs: 2000,
  });
  sim.run(3e9);
  story.show(`load generator, 200 connections/s for 2 s:\n${load.table().trimEnd()}`);
  const report = load.report();
  story.expectEqual('64 connections succeed, one per ephemeral port', 64, report.succeeded);
  story.expectThat(
    'the rest fail with EADDRNOTAVAIL',
    `EADDRNOTAVAIL=${report.failed}`,
    JSON.stringify(report.failures),
    report.failed > 0 && report.failures['EADDRNOTAVAIL'] === report.failed,
  );
  show(diag, 'ss -s');
  return story.result();
}

/** diag (10.244.1.5) and signalements (10.244.1.9, an HTTP server on 8000: /sante small, /rapport 200 kB), one veth. */
export function trafficLab(sim: Simulation): {
  readonly diag: Namespace;
  readonly signalements: Namespace;
  readonly server: HttpServer;
} {
  const diag = sim.addNamespace('diag');
  const signalements = sim.addNamespace('signalements');
  // A pod and its service's endpoint, one veth between them (the lesson's addresses).
  execOrThrow(diag, 'ip link add eth0 type veth peer name eth0 netns signalements');
  execOrThrow(diag, 'ip addr add 10.244.1.5/24 dev eth0');
  execOrThrow(signalements, 'ip addr add 10.244.1.9/24 dev eth0');
  execOrThrow(diag, 'ip link set eth0 up');
  execOrThrow(signalements, 'ip link set eth0 up');
  // The server: two routes, one small, one large, in one line.
  const server = httpServer(signalements, {
    port: 8000,
    routes: { '/sante': { body: 'ok\n' }, '/rapport': { bodyBytes: 200_000 } },
  });
  return { diag, signalements, server };
}
