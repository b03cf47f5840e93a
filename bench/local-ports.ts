// connect()'s port search (src/socket/ports.ts through TcpTable) while one destination's ports fill up: the cost
// per connect() at each tenth of net.ipv4.ip_local_port_range (28,232 ports), and of a failing one past the end.
//
// Run: node --import tsx bench/local-ports.ts   (prints one JSON document on stdout)
//
// Every SYN is dropped by the peer's INPUT chain, so connections stay in SYN_SENT and the clock never runs: the
// figures are the search and the SYN's send path. Once the even ports are gone (half way), each connect() scans
// them all before the odd ones (as the kernel does); the per-destination port index keeps that scan to bit reads.
// Outcome (Node 20, 2 shared cores, one run): 35-55 us per connect() in the even half (133 in the first tenth:
// warm-up), 130-210 us in the odd half, 153 us for an EADDRNOTAVAIL; 28,232 connects in about 3 s. Before the
// index, a connect() past the even half cost 10-30 ms (two Map lookups per port scanned) and the fill took minutes.

import { performance } from 'node:perf_hooks';
import { Simulation } from '../src/netns/simulation.ts';
import { exec } from '../src/tools/exec.ts';
import { parseIpv4 } from '../src/wire/address.ts';

const sim = new Simulation({ seed: 'bench-local-ports' });
const a = sim.addNamespace('a');
const b = sim.addNamespace('b');
for (const [ns, line] of [
  [a, 'ip link add eth0 type veth peer name eth0 netns b'],
  [a, 'ip addr add 10.0.0.1/24 dev eth0'],
  [b, 'ip addr add 10.0.0.2/24 dev eth0'],
  [a, 'ip link set eth0 up'],
  [b, 'ip link set eth0 up'],
  [b, 'iptables -A INPUT -p tcp -j DROP'],
] as const) {
  const result = exec(ns, line);
  if (result.exitCode !== 0) throw new Error(`${line}: ${result.stderr}`);
}

const dst = parseIpv4('10.0.0.2')!;
const PORTS = 28232;
const tenths: { filled: string; usPerConnect: number }[] = [];
let at = 0;
for (let tenth = 1; tenth <= 10; tenth++) {
  const until = Math.round((PORTS * tenth) / 10);
  const started = performance.now();
  const count = until - at;
  for (; at < until; at++) {
    const result = a.tcp.connect({ dst, dstPort: 80 });
    if (!result.ok) throw new Error(`connect ${at}: ${result.error}`);
  }
  tenths.push({
    filled: `${tenth * 10}%`,
    usPerConnect: Math.round(((performance.now() - started) * 1000) / count),
  });
}
const failStarted = performance.now();
for (let i = 0; i < 100; i++) if (a.tcp.connect({ dst, dstPort: 80 }).ok) throw new Error('a port too many');
const usPerFailure = Math.round(((performance.now() - failStarted) * 1000) / 100);
process.stdout.write(
  `${JSON.stringify({ bench: 'local-ports', ports: PORTS, tenths, usPerFailure }, null, 2)}\n`,
);
