import { describe, expect, it } from 'vitest';
import type { CongestionAlgorithm } from '../../src/net/route.ts';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import type { TcpSocket } from '../../src/socket/tcp/socket.ts';
import { exec } from '../../src/tools/exec.ts';
import { parseIpv4 } from '../../src/wire/address.ts';

// Which congestion control a connection runs (the route's congctl, else TCP_CONGESTION, else
// net.ipv4.tcp_congestion_control), and that it is the one that reacts to a loss: a sends 40 segments to b, whose
// INPUT drops a's eighth packet once; after the recovery ssthresh is what the module's ssthresh() gave.

function run(ns: Namespace, line: string): void {
  const result = exec(ns, line);
  if (result.exitCode !== 0) throw new Error(`${line}: ${result.stderr}`);
}

interface Setup {
  readonly a?: readonly string[];
  readonly b?: readonly string[];
  readonly connect?: CongestionAlgorithm;
  readonly listen?: CongestionAlgorithm;
  readonly dropped?: number;
}

function transfer(setup: Setup) {
  const sim = new Simulation({ seed: 'tcp-congctl' });
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  run(a, 'ip link add eth0 type veth peer name eth0 netns b');
  run(a, 'ip addr add 10.0.0.1/24 dev eth0');
  run(b, 'ip addr add 10.0.0.2/24 dev eth0');
  run(a, 'ip link set eth0 up');
  run(b, 'ip link set eth0 up');
  for (const line of setup.a ?? []) run(a, line);
  for (const line of setup.b ?? []) run(b, line);
  if (setup.dropped !== undefined)
    run(
      b,
      `iptables -A INPUT -p tcp --dport 8080 -m statistic --mode nth --every 100000 --packet ${setup.dropped} -j DROP`,
    );
  let accepted: TcpSocket | undefined;
  let received = 0;
  const listener = b.tcp.listen(
    0,
    8080,
    (socket) => {
      accepted = socket;
      socket.onData = (_s, data) => {
        received += data.length;
      };
    },
    setup.listen !== undefined ? { congestion: setup.listen } : {},
  );
  if (listener === 'EADDRINUSE') throw new Error('port taken');
  const connected = a.tcp.connect({
    dst: parseIpv4('10.0.0.2')!,
    dstPort: 8080,
    srcPort: 40000,
    ...(setup.connect !== undefined ? { congestion: setup.connect } : {}),
  });
  if (!connected.ok) throw new Error(connected.error);
  const payload = new Uint8Array(40 * 1448);
  connected.socket.onConnect = (s) => s.write(payload);
  sim.run(5e9);
  return { a, b, client: connected.socket, server: accepted, received, total: payload.length };
}

describe('the congestion control a connection runs', () => {
  it('the namespace default, cubic, without route or socket option; ss -i names it', () => {
    const { a, client, server } = transfer({});
    expect([client.congestion, server?.congestion]).toEqual(['cubic', 'cubic']);
    expect(exec(a, 'ss -tniH').stdout).toContain('\t cubic wscale:10,10 ');
  });

  it("a route's congctl reno gives a Reno connection: ss -i prints reno, the peer keeps the default", () => {
    const { a, b, client, server } = transfer({
      a: ['ip route replace 10.0.0.0/24 dev eth0 proto kernel scope link src 10.0.0.1 congctl reno'],
    });
    expect([client.congestion, client.info().congestion, server?.congestion]).toEqual([
      'reno',
      'reno',
      'cubic',
    ]);
    expect(exec(a, 'ss -tniH').stdout).toContain('\t reno wscale:10,10 ');
    expect(exec(b, 'ss -tniH state established').stdout).toContain('\t cubic wscale:10,10 ');
  });

  it("after one loss Reno's ssthresh is half the window (tcp_reno_ssthresh), CUBIC's 717/1024 of it (bictcp_recalc_ssthresh)", () => {
    const cubic = transfer({ dropped: 8 });
    const reno = transfer({
      dropped: 8,
      a: ['ip route replace 10.0.0.0/24 dev eth0 proto kernel scope link src 10.0.0.1 congctl reno'],
    });
    for (const side of [cubic, reno]) expect(side.received).toBe(side.total);
    const cubicInfo = cubic.client.info();
    const renoInfo = reno.client.info();
    expect(cubicInfo.totalRetrans).toBe(1);
    expect(renoInfo.totalRetrans).toBe(1);
    // The same path up to the loss, so the same window W (16 or 17 segments) when RACK marked it: W / 2 = 8 for
    // Reno, W * 717 / 1024 = 11 for CUBIC; each then grows from its own ssthresh over the ACKs left.
    expect([renoInfo.ssthresh, cubicInfo.ssthresh]).toEqual([8, 11]);
    expect([renoInfo.cwnd, cubicInfo.cwnd]).toEqual([10, 12]);
  });

  it('TCP_CONGESTION on connect() and on the listener (its children inherit it); a route congctl still wins', () => {
    const options = transfer({ connect: 'reno', listen: 'reno' });
    expect([options.client.congestion, options.server?.congestion]).toEqual(['reno', 'reno']);
    const routed = transfer({
      connect: 'reno',
      b: ['ip route replace 10.0.0.0/24 dev eth0 proto kernel scope link src 10.0.0.2 congctl cubic'],
      listen: 'reno',
    });
    expect([routed.client.congestion, routed.server?.congestion]).toEqual(['reno', 'cubic']);
  });

  it('net.ipv4.tcp_congestion_control sets the default; an unknown name is ENOENT, the lists are read-only', () => {
    const { a, client } = transfer({ a: ['sysctl -w net.ipv4.tcp_congestion_control=reno'] });
    expect(client.congestion).toBe('reno');
    expect(
      exec(a, 'sysctl net.ipv4.tcp_available_congestion_control net.ipv4.tcp_allowed_congestion_control')
        .stdout,
    ).toBe(
      'net.ipv4.tcp_available_congestion_control = reno cubic\nnet.ipv4.tcp_allowed_congestion_control = reno cubic\n',
    );
    expect(exec(a, 'sysctl -w net.ipv4.tcp_congestion_control=foo')).toEqual({
      stdout: '',
      stderr: 'sysctl: setting key "net.ipv4.tcp_congestion_control": No such file or directory\n',
      exitCode: 1,
    });
    expect(exec(a, 'sysctl -w net.ipv4.tcp_available_congestion_control=reno')).toEqual({
      stdout: '',
      stderr: 'sysctl: setting key "net.ipv4.tcp_available_congestion_control": Invalid argument\n',
      exitCode: 0,
    });
    expect(exec(a, 'sysctl -n net.ipv4.tcp_congestion_control').stdout).toBe('reno\n');
  });
});
