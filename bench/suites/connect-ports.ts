// connect()'s local port allocation (src/socket/ports.ts through the TCP table) while one destination's ports fill up to EADDRNOTAVAIL: the cost per connect() at each tenth of net.ipv4.ip_local_port_range (28,232 ports), a failing connect() past the end, and the search alone at 50/90/99% against the same search over a Set of string keys.
//
// Setting: namespace a (10.0.0.1) connects to 10.0.0.2:80 over a veth; every SYN is dropped by b's INPUT chain,
// so connections stay in SYN_SENT and the clock never runs: the figures are the search and the SYN's send path.
// connect() takes the even ports first (__inet_hash_connect's parity rule); once they are gone (half way), each
// connect() scans them all before the odd ones, as the kernel does, and the per-destination port index keeps that
// scan to bit reads.
//   fill (metrics)       us per connect() over each tenth of the range, timed once while filling (timeOnce)
//   connect() fails      a connect() with every port held: the whole scan, then EADDRNOTAVAIL (a case)
//   search X%            LocalPorts.connectSearch alone, with the ports connect() chose first (X% of the range)
//                        held in a bitmap; the search does not take the port it finds, so the fill stays at X%
//   string-set X%        the same search with `usable` asking a Set of "saddr:sport>daddr:dport" strings, the
//                        key built per probe (the baseline)
//
// History (bench/local-ports.ts, replaced by this suite): 35-55 us per connect() in the even half (133 in the
// first tenth: warm-up), 130-210 us in the odd half, 153 us for an EADDRNOTAVAIL; 28,232 connects in about 3 s
// (Node 20, 2 shared cores, one run). Before the per-destination index a connect() past the even half cost
// 10-30 ms (two Map lookups per port scanned) and the fill took minutes.

import { timeOnce } from '../../src/cli/bench/measure.ts';
import { type BenchCase, defineSuite } from '../../src/cli/bench/suite.ts';
import { Rng } from '../../src/core/rng.ts';
import { Sysctls } from '../../src/net/sysctl.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { LocalPorts } from '../../src/socket/ports.ts';
import { exec } from '../../src/tools/exec.ts';
import { parseIpv4 } from '../../src/wire/address.ts';

const SRC = parseIpv4('10.0.0.1')!;
const DST = parseIpv4('10.0.0.2')!;
const DST_PORT = 80;
const FILLS = [0.5, 0.9, 0.99];

let sink = 0;

/** Two namespaces over a veth, b dropping every TCP segment it receives. */
function lab() {
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
  return { a, range: rangeOf(exec(a, 'sysctl -n net.ipv4.ip_local_port_range').stdout) };
}

function rangeOf(text: string): { low: number; high: number } {
  const [low, high] = text.trim().split(/\s+/).map(Number);
  return { low: low!, high: high! };
}

export default defineSuite({
  name: 'connect-ports',
  title: "connect() local port allocation up to EADDRNOTAVAIL (one destination's ports filling up)",
  build(options) {
    const { a, range } = lab();
    if (options.quick) exec(a, `sysctl -w net.ipv4.ip_local_port_range="${range.low} ${range.low + 999}"`);
    const { low, high } = options.quick ? { low: range.low, high: range.low + 999 } : range;
    const ports = high - low + 1;
    const chosen: number[] = [];
    const metrics = [];
    let at = 0;
    for (let tenth = 1; tenth <= 10; tenth++) {
      const until = Math.round((ports * tenth) / 10);
      const count = until - at;
      const fill = timeOnce(() => {
        for (; at < until; at++) {
          const result = a.tcp.connect({ dst: DST, dstPort: DST_PORT });
          if (!result.ok) throw new Error(`connect-ports: connect ${at} failed: ${result.error}`);
          chosen.push(result.socket.localPort);
        }
      });
      metrics.push({
        name: `connect() at ${tenth * 10}% filled`,
        value: (fill.ms * 1000) / count,
        unit: 'us',
      });
    }
    if (new Set(chosen).size !== ports) throw new Error('connect-ports: a port was handed out twice');
    const failing = a.tcp.connect({ dst: DST, dstPort: DST_PORT });
    if (failing.ok || failing.error !== 'EADDRNOTAVAIL') throw new Error('connect-ports: a port too many');
    metrics.push({ name: 'ports handed out before EADDRNOTAVAIL', value: chosen.length, unit: 'ports' });

    const cases: BenchCase[] = [
      {
        name: 'connect() fails: EADDRNOTAVAIL',
        fn: () => {
          const result = a.tcp.connect({ dst: DST, dstPort: DST_PORT });
          sink ^= result.ok ? 1 : 0;
        },
      },
    ];
    // The search alone, over a LocalPorts of its own with the same range.
    const sysctls = new Sysctls();
    const set = sysctls.set('net.ipv4.ip_local_port_range', `${low} ${high}`);
    if (!set.ok) throw new Error(`connect-ports: ip_local_port_range ${low} ${high}: ${set.error}`);
    for (const fraction of FILLS) {
      const label = `${Math.round(fraction * 100)}%`;
      const held = new Uint8Array(65536);
      const keys = new Set<string>();
      for (const port of chosen.slice(0, Math.floor(fraction * ports))) {
        held[port] = 1;
        keys.add(`${SRC}:${port}>${DST}:${DST_PORT}`);
      }
      const bitmapPorts = new LocalPorts(sysctls, new Rng(`search-${label}`));
      const stringPorts = new LocalPorts(sysctls, new Rng(`search-${label}`));
      const free = (port: number): boolean => held[port] === 0;
      const freeByKey = (port: number): boolean => !keys.has(`${SRC}:${port}>${DST}:${DST_PORT}`);
      if (
        bitmapPorts.connectSearch(SRC, DST, DST_PORT, free) !==
        stringPorts.connectSearch(SRC, DST, DST_PORT, freeByKey)
      ) {
        throw new Error(`connect-ports ${label}: the searches disagree`);
      }
      cases.push({
        name: `string-set ${label}`,
        fn: () => {
          sink ^= stringPorts.connectSearch(SRC, DST, DST_PORT, freeByKey) ?? 0;
        },
      });
      cases.push({
        name: `search ${label}`,
        baseline: `string-set ${label}`,
        fn: () => {
          sink ^= bitmapPorts.connectSearch(SRC, DST, DST_PORT, free) ?? 0;
        },
      });
    }
    return { cases, metrics };
  },
});

export function sinkValue(): number {
  return sink;
}
