// Round-trip times through netem: ping's `time=` and rtt summary as iputils computes them (whole microseconds,
// integer mean and deviation), a delay on both ends of a veth, an impaired segment, duplicates, replay from a seed,
// and TCP's handshake paced by the delay.

import { describe, expect, it } from 'vitest';
import { NS_PER_MS } from '../../src/core/scheduler.ts';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec, execOrThrow } from '../../src/tools/exec.ts';
import { formatRtt, rttSummary } from '../../src/tools/ping.ts';
import { parseIpv4 } from '../../src/wire/address.ts';

const run = execOrThrow;

function pair(seed = 'rtt'): { sim: Simulation; a: Namespace; b: Namespace } {
  const sim = new Simulation({ seed });
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  run(a, 'ip link add va type veth peer name vb netns b');
  run(a, 'ip addr add 10.0.0.1/24 dev va');
  run(b, 'ip addr add 10.0.0.2/24 dev vb');
  run(a, 'ip link set va up');
  run(b, 'ip link set vb up');
  return { sim, a, b };
}

/** The `time=` values of ping's reply lines. */
function times(output: string): string[] {
  return [...output.matchAll(/time=(\S+) ms/g)].map((m) => m[1]!);
}

describe("iputils' round-trip formatting", () => {
  it('prints 3 decimals under 1 ms, 2 under 10, 1 under 100, none above, rounding at each boundary', () => {
    const cases: [number, string][] = [
      [0, '0.000'],
      [999, '0.999'],
      [1000, '1.00'],
      [9994, '9.99'],
      [9995, '10.0'],
      [20_049, '20.0'],
      [20_050, '20.1'],
      [99_949, '99.9'],
      [99_950, '100'],
      [123_499, '123'],
      [123_500, '124'],
    ];
    expect(cases.map(([us]) => formatRtt(us))).toEqual(cases.map(([, text]) => text));
  });

  it('computes the summary in integer microseconds, as ping_print_statistics', () => {
    expect(rttSummary([10_000, 20_000])).toBe('rtt min/avg/max/mdev = 10.000/15.000/20.000/5.000 ms');
    expect(rttSummary([1, 2, 2])).toBe('rtt min/avg/max/mdev = 0.001/0.001/0.002/0.000 ms');
    expect(rttSummary([20_417, 20_417])).toBe('rtt min/avg/max/mdev = 20.417/20.417/20.417/0.000 ms');
  });
});

describe('ping through netem', () => {
  it('shows time=20.0 ms with 10 ms each way, and 40 ms for the first when ARP crosses both delays', () => {
    const { a, b } = pair();
    run(a, 'tc qdisc add dev va root netem delay 10ms');
    run(b, 'tc qdisc add dev vb root netem delay 10ms');
    const out = run(a, 'ping -c 3 -i 0.2 10.0.0.2');
    expect(times(out)).toEqual(['40.0', '20.0', '20.0']);
    expect(out).toContain('3 packets transmitted, 3 received, 0% packet loss, time 400ms\n');
    expect(out).toContain('rtt min/avg/max/mdev = 20.000/26.666/40.000/9.428 ms\n');
  });

  it('shows the delay alone once the neighbour is known', () => {
    const { a, b } = pair();
    run(a, 'ip neigh add 10.0.0.2 lladdr 02:00:00:00:00:02 dev va');
    run(b, 'ip link set vb address 02:00:00:00:00:02');
    run(b, 'ip neigh add 10.0.0.1 lladdr 02:00:00:00:00:01 dev vb');
    run(a, 'ip link set va address 02:00:00:00:00:01');
    run(a, 'tc qdisc add dev va root netem delay 7.5ms');
    expect(times(run(a, 'ping -c 2 -i 0.2 10.0.0.2'))).toEqual(['7.50', '7.50']);
  });

  it('marks netem duplicates (DUP!) and counts them', () => {
    const { a, b } = pair();
    run(b, 'tc qdisc add dev vb root netem duplicate 100%');
    const out = run(a, 'ping -c 2 -i 0.2 10.0.0.2');
    expect(out.match(/\(DUP!\)/g)?.length).toBe(2);
    expect(out).toContain('2 packets transmitted, 2 received, +2 duplicates, 0% packet loss');
  });

  it('prints the loss as %g of a float', () => {
    const { a } = pair();
    run(a, 'ip neigh add 10.0.0.2 lladdr 02:00:00:00:00:02 dev va');
    run(a, 'tc qdisc add dev va root netem loss 100%');
    const out = exec(a, 'ping -c 3 -i 0.2 -W 1 10.0.0.2').stdout;
    expect(out).toContain('3 packets transmitted, 0 received, 100% packet loss');
  });

  it('replays the same jitter and losses from the same seed, and others from another', () => {
    const session = (seed: string): string => {
      const { a, b } = pair(seed);
      run(a, 'tc qdisc add dev va root netem delay 20ms 5ms loss 20%');
      run(b, 'tc qdisc add dev vb root netem delay 20ms 5ms distribution normal');
      return exec(a, 'ping -c 20 -i 0.1 -W 1 10.0.0.2').stdout;
    };
    const first = session('replay');
    expect(session('replay')).toBe(first);
    expect(session('another')).not.toBe(first);
    expect(first).toMatch(/20 packets transmitted, 1\d received, \d+% packet loss/);
  });
});

describe('an impaired segment', () => {
  it('delays every frame once per crossing: a ping round trip takes twice the delay', () => {
    const sim = new Simulation({ seed: 'segment' });
    const segment = sim.addSegment('kind');
    const n1 = sim.addNamespace('n1');
    const n2 = sim.addNamespace('n2');
    segment.attach(n1);
    segment.attach(n2);
    run(n1, 'ip addr add 172.18.0.2/16 dev eth0');
    run(n2, 'ip addr add 172.18.0.3/16 dev eth0');
    segment.impair({ delayMs: 5 });
    expect(times(run(n1, 'ping -c 2 -i 0.2 172.18.0.3'))).toEqual(['20.0', '10.0']);
    segment.impair({ delayMs: 1, lossPercent: 100 });
    expect(exec(n1, 'ping -c 1 -W 1 172.18.0.3').exitCode).toBe(1);
    segment.impair(null);
    expect(times(run(n1, 'ping -c 1 172.18.0.3'))).toEqual(['0.000']);
  });

  it('impairs ports attached later too, and shows the netem on the switch ports', () => {
    const sim = new Simulation({ seed: 'segment' });
    const segment = sim.addSegment('kind');
    segment.impair({ delayMs: 2, jitterMs: 1, distribution: 'normal', rateBitsPerSecond: 10_000_000 });
    const n1 = sim.addNamespace('n1');
    segment.attach(n1);
    expect(run(segment.switchNs, 'tc qdisc show dev port1')).toBe(
      'qdisc netem 8001: root refcnt 2 limit 1000 delay 2ms  1ms rate 10Mbit\n',
    );
  });
});

describe('TCP over a delayed link', () => {
  it('connects after one round trip of the delay', () => {
    const { sim, a, b } = pair();
    run(a, 'tc qdisc add dev va root netem delay 30ms');
    run(b, 'tc qdisc add dev vb root netem delay 30ms');
    run(a, 'ip neigh add 10.0.0.2 lladdr 02:00:00:00:00:02 dev va');
    run(b, 'ip link set vb address 02:00:00:00:00:02');
    run(b, 'ip neigh add 10.0.0.1 lladdr 02:00:00:00:00:01 dev vb');
    run(a, 'ip link set va address 02:00:00:00:00:01');
    const listening = b.tcp.listen(0, 8080, () => {});
    expect(listening).not.toBe('EADDRINUSE');
    const start = sim.now;
    const connected = a.tcp.connect({ dst: parseIpv4('10.0.0.2')!, dstPort: 8080, srcPort: 40000 });
    if (!connected.ok) throw new Error(connected.error);
    let connectedAt = -1;
    connected.socket.onConnect = () => {
      connectedAt = sim.now;
    };
    sim.run(200 * NS_PER_MS);
    expect(connectedAt - start).toBe(60 * NS_PER_MS);
  });
});
