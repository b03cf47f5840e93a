// dmesg on packetlab: kernel log lines (an iptables LOG rule's, conntrack's "table full") with util-linux's
// `[    T.TTTTTT] ` stamps from virtual time, -t, -c, -C and util-linux 2.38's errors.

import { describe, expect, it } from 'vitest';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec } from '../../src/tools/exec.ts';

const SECOND = 1_000_000_000;

function setup() {
  const sim = new Simulation({ seed: 'dmesg' });
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  for (const line of [
    'ip link add eth0 type veth peer name eth0 netns b',
    'ip addr add 10.0.0.1/24 dev eth0',
    'ip link set eth0 up',
  ])
    expect(exec(a, line).exitCode).toBe(0);
  for (const line of ['ip addr add 10.0.0.2/24 dev eth0', 'ip link set eth0 up'])
    expect(exec(b, line).exitCode).toBe(0);
  return { sim, a, b };
}

describe('dmesg', () => {
  it('an empty log prints nothing', () => {
    const { a } = setup();
    expect(exec(a, 'dmesg')).toEqual({ stdout: '', stderr: '', exitCode: 0 });
  });

  it("a LOG rule's lines with the time they were logged; -t without it; -c prints then clears; -C clears", () => {
    const { sim, a, b } = setup();
    expect(exec(b, 'iptables -A INPUT -p icmp -j LOG --log-prefix "ping: "').exitCode).toBe(0);
    sim.run(12 * SECOND + 345_678_901);
    expect(exec(a, 'ping -c 1 10.0.0.2').exitCode).toBe(0);
    const out = exec(a, 'dmesg').stdout;
    expect(out).toMatch(
      /^\[ {3}12\.345678\] ping: IN=eth0 OUT= MAC=\S+ SRC=10\.0\.0\.1 DST=10\.0\.0\.2 LEN=84 /,
    );
    expect(out.endsWith('\n')).toBe(true);
    expect(exec(a, 'dmesg -t').stdout).toBe(out.replace(/^\[ *\d+\.\d{6}\] /gm, ''));
    expect(exec(a, 'dmesg -c').stdout).toBe(out);
    expect(exec(a, 'dmesg').stdout).toBe('');
    expect(exec(a, 'ping -c 1 10.0.0.2').exitCode).toBe(0);
    expect(exec(a, 'dmesg -C')).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    expect(exec(b, 'dmesg').stdout).toBe('');
  });

  it("conntrack's table full, in Linux 6.18's words for a namespace other than init_net", () => {
    const { sim, a, b } = setup();
    expect(exec(b, 'sysctl -w net.netfilter.nf_conntrack_max=1').exitCode).toBe(0);
    expect(exec(b, 'iptables -A INPUT -m conntrack --ctstate NEW -j ACCEPT').exitCode).toBe(0);
    for (const srcPort of [40000, 40001])
      a.udp.send({ dst: 0x0a000002, dstPort: 9999, srcPort, payload: new Uint8Array(1) });
    sim.run(SECOND);
    expect(exec(a, 'dmesg -t').stdout).toBe(
      `nf_conntrack: nf_conntrack: table full in netns ${b.inum}, dropping packet\n`,
    );
    expect(b.inum).toBe(a.inum + 1);
    expect(a.inum).toBeGreaterThan(0xf000_0000);
  });

  it('rate-limits it as net_warn_ratelimited does: 10 lines per 5 s, then the count of those suppressed', () => {
    const { sim, a, b } = setup();
    exec(b, 'sysctl -w net.netfilter.nf_conntrack_max=1');
    exec(b, 'iptables -A INPUT -m conntrack --ctstate NEW -j ACCEPT');
    // One entry fills the table (UDP, not yet replied: early drop would evict it, so answer it to make it ASSURED).
    const send = (srcPort: number) =>
      a.udp.send({ dst: 0x0a000002, dstPort: 9999, srcPort, payload: new Uint8Array(1) });
    b.udp.bind(0, 9999, (d) =>
      b.udp.send({ dst: d.srcAddr, dstPort: d.srcPort, srcPort: 9999, payload: d.payload }),
    );
    a.udp.bind(0, 40000, () => {});
    for (let i = 0; i < 3; i++) {
      send(40000);
      sim.run(SECOND);
    }
    // 25 new flows in the same second, then one 6 s later.
    for (let port = 41000; port < 41025; port++) send(port);
    sim.run(6 * SECOND);
    send(42000);
    sim.run(SECOND);
    const lines = exec(a, 'dmesg -t').stdout.trimEnd().split('\n');
    const full = `nf_conntrack: nf_conntrack: table full in netns ${b.inum}, dropping packet`;
    expect(lines).toEqual([...new Array(10).fill(full), 'net_ratelimit: 15 callbacks suppressed', full]);
    expect(exec(b, 'conntrack -S').stdout).toContain('drop=26 early_drop=0');
  });

  it.each([
    ['dmesg -q', "dmesg: invalid option -- 'q'\nTry 'dmesg --help' for more information.\n", 1],
    ['dmesg x', "dmesg: bad usage\nTry 'dmesg --help' for more information.\n", 1],
    [
      'dmesg -c -C',
      'dmesg: mutually exclusive arguments: --clear --console-off --console-on --read-clear --console-level --raw\n',
      1,
    ],
    ['dmesg -T', 'packetlab: dmesg option -T is not supported\n', 1],
  ])('%s', (line, stderr, exitCode) => {
    const { a } = setup();
    expect(exec(a, line)).toEqual({ stdout: '', stderr, exitCode });
  });
});
