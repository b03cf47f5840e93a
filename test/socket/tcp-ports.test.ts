// Local ports through TcpTable on a fixed seed, rule by rule: connect()'s search and its 4-tuple rule (a bound
// port or a listener's is never shared; TIME_WAIT blocks unless tcp_tw_reuse lets it go), bind(0) and listen(0)
// at exhaustion, SO_REUSEADDR over TIME_WAIT, SO_REUSEPORT listeners, all on the virtual clock.

import { describe, expect, it } from 'vitest';
import { NS_PER_MS } from '../../src/core/scheduler.ts';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import type { TcpSocket } from '../../src/socket/tcp/socket.ts';
import type { ConnectOptions, TcpListener } from '../../src/socket/tcp/table.ts';
import { exec, spawn } from '../../src/tools/exec.ts';
import { parseIpv4 } from '../../src/wire/address.ts';

const B = parseIpv4('10.0.0.2')!;
const LOOPBACK = parseIpv4('127.0.0.1')!;

function run(ns: Namespace, line: string): void {
  const result = exec(ns, line);
  if (result.exitCode !== 0) throw new Error(`${line}: ${result.stderr}`);
}

/** a (10.0.0.1) and b (10.0.0.2) on a veth; b echoes nothing and ends when its client does, on 8080 and 8081. */
function hosts(range?: string) {
  const sim = new Simulation({ seed: 'tcp-ports' });
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  run(a, 'ip link add eth0 type veth peer name eth0 netns b');
  run(a, 'ip addr add 10.0.0.1/24 dev eth0');
  run(b, 'ip addr add 10.0.0.2/24 dev eth0');
  run(a, 'ip link set eth0 up');
  run(b, 'ip link set eth0 up');
  run(a, 'ip link set lo up');
  if (range !== undefined) run(a, `sysctl -w net.ipv4.ip_local_port_range="${range}"`);
  for (const port of [8080, 8081]) serve(b, port);
  const ms = (n: number) => sim.run(n * NS_PER_MS);
  return { sim, a, b, ms };
}

function serve(ns: Namespace, port: number, options: { reusePort?: boolean } = {}): TcpListener {
  const listener = ns.tcp.listen(
    0,
    port,
    (socket) => {
      socket.onEnd = (s) => s.end();
    },
    options,
  );
  if (listener === 'EADDRINUSE') throw new Error(`${port} taken`);
  return listener;
}

/** connect() `count` times; each result is the port or the error. */
function connectMany(
  ns: Namespace,
  count: number,
  options: Partial<ConnectOptions> = {},
): (number | string)[] {
  return Array.from({ length: count }, () => {
    const result = ns.tcp.connect({ dst: B, dstPort: 8080, ...options });
    return result.ok ? result.socket.localPort : result.error;
  });
}

function clientSockets(ns: Namespace): TcpSocket[] {
  return [...ns.tcp.sockets()];
}

describe('connect() ports', () => {
  it('takes even ports to one destination, stepping +2..+16 (seed tcp-ports)', () => {
    const { a } = hosts();
    expect(connectMany(a, 6)).toEqual([60666, 60680, 60682, 60698, 60704, 60718]);
  });

  it('with 64 ports: 32 even, 32 odd, then EADDRNOTAVAIL; another destination port gets all 64 again', () => {
    const { a, ms } = hosts('40000 40063');
    const ports = connectMany(a, 65);
    expect(ports.slice(0, 32).every((port) => typeof port === 'number' && port % 2 === 0)).toBe(true);
    expect(ports.slice(32, 64).every((port) => typeof port === 'number' && port % 2 === 1)).toBe(true);
    expect(new Set(ports.slice(0, 64)).size).toBe(64);
    expect(ports[64]).toBe('EADDRNOTAVAIL');
    const other = connectMany(a, 65, { dstPort: 8081 });
    expect(new Set(other.slice(0, 64)).size).toBe(64);
    expect(other[64]).toBe('EADDRNOTAVAIL');
    ms(100);
    expect(clientSockets(a).filter((s) => s.state === 'ESTABLISHED')).toHaveLength(128);
  });

  it('past 64 probes the scan reads its per-destination index (and past 256 ports a kinds array), kept in step', () => {
    const { a, ms } = hosts('40000 40511');
    const first = connectMany(a, 513);
    expect(new Set(first.slice(0, 512)).size).toBe(512);
    expect(first[512]).toBe('EADDRNOTAVAIL');
    ms(10);
    // One connection closes for good (reset): its port is free again, for this destination too.
    const victim = clientSockets(a).find((s) => s.localPort === 40100)!;
    victim.abort();
    expect(connectMany(a, 2)).toEqual([40100, 'EADDRNOTAVAIL']);
    ms(10);
    // All of them end in TIME_WAIT; tcp_tw_reuse=1 lets one go after its second.
    for (const socket of clientSockets(a)) socket.end();
    ms(10);
    run(a, 'sysctl -w net.ipv4.tcp_tw_reuse=1');
    expect(connectMany(a, 1)).toEqual(['EADDRNOTAVAIL']);
    ms(1_000);
    const reused = connectMany(a, 3);
    expect(reused.every((port) => typeof port === 'number')).toBe(true);
    expect(new Set(reused).size).toBe(3);
  });

  it('bind(0) and listen(0) fail with EADDRINUSE when connections hold every port', () => {
    const { a } = hosts('40000 40003');
    expect(connectMany(a, 5)).toEqual([40002, 40000, 40003, 40001, 'EADDRNOTAVAIL']);
    expect(a.tcp.bind(0, 0)).toEqual({ ok: false, error: 'EADDRINUSE' });
    expect(a.tcp.listen(0, 0, () => {})).toBe('EADDRINUSE');
    // bind() to an address of its own still conflicts: the connections' 10.0.0.1 overlaps 0.0.0.0 either way.
    expect(a.tcp.bind(parseIpv4('10.0.0.1')!, 0)).toEqual({ ok: false, error: 'EADDRINUSE' });
  });

  it('never shares a port bind() made: a bound socket, a listener, or a connection from bind(addr, 0)', () => {
    const { a } = hosts('40000 40003');
    const bound = a.tcp.bind(0, 40000);
    expect(bound.ok).toBe(true);
    serve(a, 40001);
    const viaBind = a.tcp.connect({ dst: B, dstPort: 8080, src: parseIpv4('10.0.0.1')! });
    expect(viaBind.ok && viaBind.socket.localPort).toBe(40003);
    // Only 40002 is left for connect(), to any destination.
    expect(connectMany(a, 2)).toEqual([40002, 'EADDRNOTAVAIL']);
    expect(connectMany(a, 1, { dstPort: 8081 })).toEqual([40002]);
    if (bound.ok) bound.value.close();
    expect(connectMany(a, 1)).toEqual([40000]);
  });

  it('a bind() that joins a port connect() made turns it into bind()s (inet_csk_update_fastreuse)', () => {
    const { a } = hosts('40000 40001');
    expect(connectMany(a, 2)).toEqual([40000, 40001]);
    // Another destination could share both ports, until a socket bound to 127.0.0.1 joins one of them.
    const bound = a.tcp.bind(LOOPBACK, 40000);
    expect(bound.ok).toBe(true);
    expect(connectMany(a, 2, { dstPort: 8081 })).toEqual([40001, 'EADDRNOTAVAIL']);
  });

  it('skips ip_local_reserved_ports', () => {
    const { a } = hosts('40000 40003');
    run(a, 'sysctl -w net.ipv4.ip_local_reserved_ports=40000-40002');
    expect(connectMany(a, 2)).toEqual([40003, 'EADDRNOTAVAIL']);
    expect(a.tcp.listen(0, 0, () => {})).toBe('EADDRINUSE');
  });
});

describe('TIME_WAIT and net.ipv4.tcp_tw_reuse', () => {
  /** Two ports, both connections closed by the client: both in TIME_WAIT at `a`. */
  function timeWaits(reuse: 0 | 1 | 2, options: { dst?: number } = {}) {
    const h = hosts('40000 40001');
    run(h.a, `sysctl -w net.ipv4.tcp_tw_reuse=${reuse}`);
    if (options.dst === LOOPBACK) serve(h.a, 8080);
    const dst = options.dst ?? B;
    const sockets = [0, 1].map(() => {
      const result = h.a.tcp.connect({ dst, dstPort: 8080 });
      if (!result.ok) throw new Error(result.error);
      return result.socket;
    });
    h.ms(10);
    for (const socket of sockets) socket.end();
    h.ms(10);
    expect(sockets.map((s) => s.state)).toEqual(['TIME_WAIT', 'TIME_WAIT']);
    return { ...h, dst, sockets };
  }

  it('0: TIME_WAIT holds the port for its 60 s, then connect() gets it', () => {
    const { a, ms, dst } = timeWaits(0);
    expect(connectMany(a, 1, { dst })).toEqual(['EADDRNOTAVAIL']);
    ms(59_900);
    expect(connectMany(a, 1, { dst })).toEqual(['EADDRNOTAVAIL']);
    ms(200);
    expect(connectMany(a, 1, { dst })).toEqual([40000]);
  });

  it('1: a TIME_WAIT older than tcp_tw_reuse_delay (1000 ms) gives way, silently', () => {
    const { a, b, ms, dst, sockets } = timeWaits(1);
    const capture = spawn(b, 'tcpdump -nn -i eth0 tcp');
    ms(900);
    expect(connectMany(a, 1, { dst })).toEqual(['EADDRNOTAVAIL']);
    ms(200);
    const result = a.tcp.connect({ dst, dstPort: 8080 });
    expect(result.ok && result.socket.localPort).toBe(40000);
    expect(sockets[0]!.state).toBe('CLOSE');
    ms(10);
    expect(result.ok && result.socket.state).toBe('ESTABLISHED');
    expect(
      clientSockets(a)
        .map((s) => `${s.localPort} ${s.state}`)
        .sort(),
    ).toEqual(['40000 ESTABLISHED', '40001 TIME_WAIT']);
    // The new SYN, b's SYN-ACK and a's ACK: the TIME_WAIT went without a reset.
    const seen = 'stop' in capture ? capture.stop().stdout : '';
    expect(seen.match(/Flags \[[^\]]*\]/g)).toEqual(['Flags [S]', 'Flags [S.]', 'Flags [.]']);
  });

  it('1 with tcp_timestamps off: nothing proves the old segments apart, the TIME_WAIT stays', () => {
    const h = hosts('40000 40000');
    run(h.a, 'sysctl -w net.ipv4.tcp_tw_reuse=1');
    run(h.a, 'sysctl -w net.ipv4.tcp_timestamps=0');
    const first = h.a.tcp.connect({ dst: B, dstPort: 8080 });
    h.ms(10);
    if (first.ok) first.socket.end();
    h.ms(2_000);
    expect(connectMany(h.a, 1)).toEqual(['EADDRNOTAVAIL']);
  });

  it('2 (the default): only loopback TIME_WAITs give way', () => {
    const remote = timeWaits(2);
    remote.ms(2_000);
    expect(connectMany(remote.a, 1)).toEqual(['EADDRNOTAVAIL']);
    const local = timeWaits(2, { dst: LOOPBACK });
    local.ms(2_000);
    expect(connectMany(local.a, 1, { dst: LOOPBACK })).toEqual([40000]);
  });

  it('bind(port) with SO_REUSEADDR then connect() reuses a TIME_WAIT of its own kind whatever tcp_tw_reuse says', () => {
    const h = hosts();
    run(h.a, 'sysctl -w net.ipv4.tcp_tw_reuse=0');
    const first = h.a.tcp.connect({ dst: B, dstPort: 8080, srcPort: 40000, reuseAddr: true });
    h.ms(10);
    if (first.ok) first.socket.end();
    h.ms(10);
    expect(first.ok && first.socket.state).toBe('TIME_WAIT');
    // Without SO_REUSEADDR the bind() fails; with it, check_established lets the TIME_WAIT go (timestamps).
    expect(connectMany(h.a, 1, { srcPort: 40000 })).toEqual(['EADDRINUSE']);
    expect(connectMany(h.a, 1, { srcPort: 40000, reuseAddr: true })).toEqual([40000]);
  });
});

describe('SO_REUSEADDR and SO_REUSEPORT on listeners', () => {
  it('a listener restarts on a port its closed connections hold in TIME_WAIT only with SO_REUSEADDR', () => {
    const { a, b, ms } = hosts();
    const listener = b.tcp.listen(0, 9000, (socket) => {
      socket.onData = (s) => s.end();
    });
    if (listener === 'EADDRINUSE') throw new Error('taken');
    const client = a.tcp.connect({ dst: B, dstPort: 9000 });
    if (!client.ok) throw new Error(client.error);
    client.socket.onEnd = (s) => s.end();
    ms(10);
    client.socket.write(new Uint8Array([1]));
    ms(10);
    expect([...b.tcp.sockets()].map((s) => `${s.localPort} ${s.state}`)).toEqual(['9000 TIME_WAIT']);
    listener.close();
    expect(b.tcp.listen(0, 9000, () => {}, { reuseAddr: false })).toBe('EADDRINUSE');
    expect(b.tcp.bind(0, 9000)).toEqual({ ok: false, error: 'EADDRINUSE' });
    const again = b.tcp.listen(0, 9000, () => {});
    expect(again).not.toBe('EADDRINUSE');
  });

  it('two listeners on one port need SO_REUSEPORT on both; connections then spread by flow hash', () => {
    const { a, b, ms } = hosts();
    expect(b.tcp.listen(0, 8080, () => {})).toBe('EADDRINUSE');
    const accepted = [0, 0, 0];
    const group = [0, 1, 2].map((i) => b.tcp.listen(0, 9000, () => accepted[i]!++, { reusePort: true }));
    expect(group.every((listener) => listener !== 'EADDRINUSE')).toBe(true);
    expect(b.tcp.listen(0, 9000, () => {})).toBe('EADDRINUSE');
    for (let i = 0; i < 30; i++) a.tcp.connect({ dst: B, dstPort: 9000 });
    ms(10);
    expect(accepted).toEqual([12, 9, 9]);
  });
});

describe('a SYN meeting a TIME_WAIT (tcp_v4_rcv, TCP_TW_SYN)', () => {
  /** b closes first, so b holds 10.0.0.2:9000 ↔ 10.0.0.1:40000 in TIME_WAIT; a's side is gone. */
  function serverTimeWait() {
    const h = hosts();
    const listener = h.b.tcp.listen(0, 9000, (socket) => {
      socket.onData = (s) => s.end();
    });
    if (listener === 'EADDRINUSE') throw new Error('taken');
    const client = h.a.tcp.connect({ dst: B, dstPort: 9000, srcPort: 40000, reuseAddr: true });
    if (!client.ok) throw new Error(client.error);
    client.socket.onEnd = (s) => s.end();
    h.ms(10);
    client.socket.write(new Uint8Array([1]));
    h.ms(10);
    expect([...h.b.tcp.sockets()].map((s) => s.state)).toEqual(['TIME_WAIT']);
    expect(clientSockets(h.a)).toEqual([]);
    return { ...h, listener };
  }

  it('goes to the listener when one takes it: the TIME_WAIT leaves without a segment', () => {
    const { a, b, ms } = serverTimeWait();
    const capture = spawn(a, 'tcpdump -nn -i eth0 tcp');
    const again = a.tcp.connect({ dst: B, dstPort: 9000, srcPort: 40000, reuseAddr: true });
    ms(10);
    expect(again.ok && again.socket.state).toBe('ESTABLISHED');
    expect([...b.tcp.sockets()].map((s) => s.state)).toEqual(['ESTABLISHED']);
    const seen = 'stop' in capture ? capture.stop().stdout : '';
    expect(seen.match(/Flags \[[^\]]*\]/g)).toEqual(['Flags [S]', 'Flags [S.]', 'Flags [.]']);
  });

  it('without a listener, is answered with an ACK by the TIME_WAIT (TCP_TW_ACK), whose reset from the client ends it', () => {
    const { a, b, ms, listener } = serverTimeWait();
    listener.close();
    const capture = spawn(a, 'tcpdump -nn -i eth0 tcp');
    const again = a.tcp.connect({ dst: B, dstPort: 9000, srcPort: 40000, reuseAddr: true });
    let error: string | undefined;
    if (again.ok) again.socket.onClose = (_s, reason) => (error = reason);
    ms(10);
    // tcp_rcv_synsent_state_process resets an ACK that does not ack its SYN; the reset kills the
    // TIME_WAIT (tcp_rfc1337 is 0), so the SYN sent again after a second meets no socket at all.
    expect([...b.tcp.sockets()]).toEqual([]);
    // The SYN again after TCP_TIMEOUT_MIN (8 ms), not a second: no socket now, so ECONNREFUSED.
    const seen = 'stop' in capture ? capture.stop().stdout : '';
    expect(seen.match(/Flags \[[^\]]*\]/g)).toEqual([
      'Flags [S]',
      'Flags [.]',
      'Flags [R]',
      'Flags [S]',
      'Flags [R.]',
    ]);
    expect(error).toBe('ECONNREFUSED');
  });
});
