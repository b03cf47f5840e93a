// tc's netem listing (q_netem.c's netem_print_opt of iproute2 6.1, which this kernel cannot show for want of the
// module), in-place changes, handle allocation and statistics after traffic; tbf and errors are in tc-real.test.ts.

import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec } from '../../src/tools/exec.ts';

function pair(seed = 'tc'): { a: Namespace; b: Namespace } {
  const sim = new Simulation({ seed });
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  for (const [ns, line] of [
    [a, 'ip link add va type veth peer name vb netns b'],
    [a, 'ip addr add 10.0.0.1/24 dev va'],
    [b, 'ip addr add 10.0.0.2/24 dev vb'],
    [a, 'ip link set va up'],
    [b, 'ip link set vb up'],
  ] as const)
    expect(exec(ns, line).exitCode).toBe(0);
  return { a, b };
}

function run(ns: Namespace, line: string): string {
  const result = exec(ns, line);
  expect(result.stderr).toBe('');
  expect(result.exitCode).toBe(0);
  return result.stdout;
}

describe('tc qdisc show for netem', () => {
  let a: Namespace;
  beforeEach(() => {
    a = pair().a;
  });

  const CASES: [options: string, shown: string][] = [
    ['', 'limit 1000'],
    ['delay 10ms', 'limit 1000 delay 10ms'],
    ['delay 100ms 10ms', 'limit 1000 delay 100ms  10ms'],
    ['delay 100ms 10ms 25%', 'limit 1000 delay 100ms  10ms 25%'],
    ['delay 100ms 10ms 25% distribution normal', 'limit 1000 delay 100ms  10ms 25%'],
    // 250 us is 3906.25 psched ticks, sent as 3906, read back as 249.98 us and printed truncated.
    ['delay 1.5s 250us', 'limit 1000 delay 1.5s  249us'],
    ['delay 12.34ms', 'limit 1000 delay 12.3ms'],
    ['delay 10ms 1ms 0', 'limit 1000 delay 10ms  1ms'],
    ['loss 1%', 'limit 1000 loss 1%'],
    ['loss random 0.1% 25%', 'limit 1000 loss 0.1% 25%'],
    ['drop 5', 'limit 1000 loss 5%'],
    ['duplicate 2% 10%', 'limit 1000 duplicate 2% 10%'],
    ['corrupt 0.5%', 'limit 1000 corrupt 0.5%'],
    ['delay 10ms reorder 25% 50%', 'limit 1000 delay 10ms reorder 25% 50% gap 1'],
    ['delay 10ms reorder 25% gap 5', 'limit 1000 delay 10ms reorder 25% gap 5'],
    ['rate 1mbit', 'limit 1000 rate 1Mbit'],
    ['rate 100kbit 20 100 5', 'limit 1000 rate 100Kbit packetoverhead 20 cellsize 100 celloverhead 5'],
    ['limit 100 delay 10ms loss 1% duplicate 1%', 'limit 100 delay 10ms loss 1% duplicate 1%'],
  ];

  it.each(CASES)('netem %s', (options, shown) => {
    run(a, `tc qdisc add dev va root netem ${options}`.trim());
    expect(run(a, 'tc qdisc show dev va')).toBe(`qdisc netem 8001: root refcnt 2 ${shown}\n`);
  });

  it('changes a netem in place, keeping its handle; another kind grafts a new qdisc (Linux 6.18)', () => {
    run(a, 'tc qdisc add dev va root netem delay 10ms');
    run(a, 'tc qdisc change dev va root netem delay 20ms loss 1%');
    expect(run(a, 'tc qdisc show dev va')).toBe(
      'qdisc netem 8001: root refcnt 2 limit 1000 delay 20ms loss 1%\n',
    );
    expect(exec(a, 'tc qdisc add dev va root netem delay 5ms')).toMatchObject({
      stderr: 'Error: Exclusivity flag on, cannot modify.\n',
      exitCode: 2,
    });
    run(a, 'tc qdisc change dev va root tbf rate 1mbit burst 10k latency 1ms');
    expect(run(a, 'tc qdisc show dev va')).toBe(
      'qdisc tbf 8002: root refcnt 2 rate 1Mbit burst 10Kb lat 1ms \n',
    );
    expect(exec(a, 'tc qdisc del dev va root netem')).toMatchObject({
      stderr: 'Error: Invalid qdisc name: must match existing qdisc.\n',
      exitCode: 2,
    });
    run(a, 'tc qdisc replace dev va root handle 5: netem delay 1ms');
    expect(run(a, 'tc qdisc show dev va')).toBe('qdisc netem 5: root refcnt 2 limit 1000 delay 1ms\n');
    expect(exec(a, 'tc qdisc change dev va root handle 6: netem delay 1ms').stderr).toBe(
      'Error: NLM_F_REPLACE needed to override.\n',
    );
  });

  it('says what it does not model', () => {
    expect(exec(a, 'tc qdisc add dev va root htb')).toMatchObject({
      stderr: 'packetlab: tc qdisc htb is not supported\n',
      exitCode: 1,
    });
    expect(exec(a, 'tc qdisc add dev va root netem loss gemodel 1%').stderr).toBe(
      'packetlab: tc netem loss gemodel is not supported\n',
    );
    expect(exec(a, 'tc filter show dev va').stderr).toBe('packetlab: tc filter is not supported\n');
    expect(exec(a, 'tc qdisc add dev va parent 1:1 tbf rate 1mbit burst 10k latency 1ms').stderr).toBe(
      'packetlab: tc qdisc parent is not supported\n',
    );
  });
});

describe('tc statistics after traffic', () => {
  it('counts what netem sent and dropped, and what the device sent', () => {
    const { a } = pair();
    run(a, 'tc qdisc add dev va root netem loss 100%');
    const ping = exec(a, 'ping -c 2 -W 1 10.0.0.2');
    expect(ping.exitCode).toBe(1);
    // The ARP requests are lost too: nothing ever leaves.
    expect(run(a, 'tc -s qdisc show dev va')).toMatch(
      /^qdisc netem 8001: root refcnt 2 limit 1000 loss 100%\n Sent 0 bytes 0 pkt \(dropped [1-9]\d*, overlimits 0 requeues 0\) \n backlog 0b 0p requeues 0\n$/,
    );
  });

  it('shows a tbf backlog while frames wait for tokens', () => {
    const { a } = pair();
    run(a, 'tc qdisc add dev va root tbf rate 8kbit burst 1600 limit 10000');
    run(a, 'ip neigh add 10.0.0.2 lladdr 02:00:00:00:00:02 dev va');
    // 3 echo requests of 1042 bytes at once (-i 0): one leaves, two wait (1 KB/s refills a frame in about a second).
    exec(a, 'ping -c 3 -i 0 -s 1000 -W 0.1 10.0.0.2');
    const stats = run(a, 'tc -s qdisc show dev va');
    expect(stats).toContain(' Sent 1042 bytes 1 pkt (dropped 0, overlimits ');
    expect(stats).toContain(' backlog 2084b 2p requeues 0\n');
  });
});

describe('tc on random command lines', () => {
  const WORDS = [
    'qdisc',
    'add',
    'change',
    'replace',
    'del',
    'show',
    'dev',
    'va',
    'vb',
    'nope',
    'root',
    'handle',
    '1:',
    'ffff:',
    'zz:',
    'ingress',
    'clsact',
    'netem',
    'tbf',
    'htb',
    'foo',
    'delay',
    'latency',
    'loss',
    'random',
    'duplicate',
    'reorder',
    'gap',
    'corrupt',
    'rate',
    'limit',
    'burst',
    'peakrate',
    'mtu',
    'distribution',
    'normal',
    'pareto',
    'uniform',
    '10ms',
    '1ms',
    '0',
    '-1',
    '25%',
    '120%',
    '1mbit',
    '10k',
    '3000',
    '1e9',
    'x',
    '-s',
    '-d',
    'help',
  ];

  it('never throws, leaves only qdiscs tc can show, and exits as tc does', () => {
    const { a, b } = pair('fuzz');
    run(b, 'ip neigh add 10.0.0.1 lladdr 02:00:00:00:00:01 dev vb');
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...WORDS), { maxLength: 12 }), (words) => {
        const result = exec(a, `tc ${words.join(' ')}`);
        expect([0, 1, 2, 255]).toContain(result.exitCode);
        expect(exec(a, 'tc -s qdisc show').exitCode).toBe(0);
      }),
      { numRuns: 400 },
    );
    // Whatever was left on va, traffic still flows through it without throwing.
    exec(a, 'ping -c 2 -i 0.1 -W 1 10.0.0.2');
  });
});
