// Local ports on the kernel and on packetlab (ports-peer.mjs against packetlab-ports.ts): the ports connect() and
// bind() pick, compared by what both must agree on (ports-lines.ts: parity, range, steps, errors), since the kernel
// keys its search with a per-boot secret and packetlab with the seed.

import { describe, expect, it } from 'vitest';
import { differential, outputOf } from './harness.ts';
import { twoHosts } from './topologies.ts';

const connect = (port: number, count: number, options: { dst?: string; steps?: boolean } = {}) =>
  ({ kind: 'connect', dst: options.dst ?? '10.0.0.2', port, count, timeoutMs: 2_000, ...options }) as const;

/** The parities of the ports the lines show, in order (e for even, o for odd, x for an error). */
function parities(output: string, port: number): string {
  return [...output.matchAll(new RegExp(`^connect ${port} (even|odd|error)`, 'gm'))]
    .map((match) => (match[1] === 'error' ? 'x' : match[1]![0]))
    .join('');
}

describe('differential: local ports', () => {
  it('connect() to one destination takes even ports in steps of +2 to +16; listen(0) an odd one', async (ctx) => {
    const scenario = twoHosts('ports-order')
      .ports({
        client: 'a',
        server: { ns: 'b', ports: [8080] },
        actions: [connect(8080, 8, { steps: true }), { kind: 'listen0' }],
      })
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    const lines = outputOf(result.linux, 'a: ports');
    expect(parities(lines, 8080)).toBe('eeeeeeee');
    expect(lines).toContain('connect 8080: steps all +2..+16');
    expect(lines).toContain('listen0 odd in range');
  });

  it('listen(0) with SO_REUSEADDR (Node sets it) searches the lower half of the range first', async (ctx) => {
    // inet_csk_find_open_port's attempt_half: [32768, 46884) before [46884, 61000).
    const scenario = twoHosts('ports-half')
      .ports({
        client: 'a',
        range: [32768, 46883],
        actions: Array.from({ length: 8 }, () => ({ kind: 'listen0' }) as const),
      })
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'a: ports')).toBe('listen0 odd in range\n'.repeat(8));
  });

  it('a 64-port range: 32 even then 32 odd ports, EADDRNOTAVAIL, another destination, listen(0) EADDRINUSE, TIME_WAIT and tcp_tw_reuse', async (ctx) => {
    const scenario = twoHosts('ports-exhaustion')
      .sysctl('a', 'net.ipv4.ip_local_port_range', '40000 40063')
      // Eight seconds instead of the default one, so that the kernel side's own pace (65 connects, closes,
      // process starts) never brings the TIME_WAITs past it before the step that expects them to hold.
      .sysctl('a', 'net.ipv4.tcp_tw_reuse_delay', '8000')
      .ports({
        client: 'a',
        server: { ns: 'b', ports: [8080, 8081] },
        range: [40000, 40063],
        actions: [
          connect(8080, 65),
          connect(8081, 3),
          { kind: 'listen0' },
          { kind: 'close' },
          { kind: 'wait', ms: 300 },
          // Every port in TIME_WAIT; tcp_tw_reuse=2 (the default) reuses only loopback ones.
          connect(8080, 1),
          { kind: 'sysctl', key: 'net.ipv4.tcp_tw_reuse', value: '1' },
          // tcp_tw_reuse_delay: not before the TIME_WAIT is eight seconds old.
          connect(8080, 1),
          { kind: 'wait', ms: 8_100 },
          connect(8080, 2),
        ],
      })
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    const lines = outputOf(result.linux, 'a: ports');
    // The two connects after the wait reuse TIME_WAIT ports, found where the search starts: even ones.
    expect(parities(lines, 8080)).toBe(`${'e'.repeat(32)}${'o'.repeat(32)}xxxee`);
    expect(lines).toContain('connect 8080: 64 of 65 connected, 64 ports');
    expect(lines).toContain('connect 8081: 3 of 3 connected, 3 ports');
    expect(lines).toContain('listen0 error EADDRINUSE');
    expect(lines).toContain('closed 67');
    expect(lines).toContain('connect 8080: 2 of 2 connected, 2 ports');
  });

  it('ip_local_reserved_ports: both searches skip them', async (ctx) => {
    const scenario = twoHosts('ports-reserved')
      .sysctl('a', 'net.ipv4.ip_local_port_range', '40000 40009')
      .sysctl('a', 'net.ipv4.ip_local_reserved_ports', '40000-40005,40008')
      .ports({
        client: 'a',
        server: { ns: 'b', ports: [8080] },
        range: [40006, 40009],
        actions: [{ kind: 'listen0' }, connect(8080, 4), { kind: 'listen0' }],
      })
      .observe('a', 'sysctl', 'net.ipv4.ip_local_reserved_ports')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    const lines = outputOf(result.linux, 'a: ports');
    expect(parities(lines, 8080)).toBe('eoox');
    expect(lines).toContain('listen0 error EADDRINUSE');
    expect(outputOf(result.linux, 'a: sysctl')).toBe(
      'net.ipv4.ip_local_reserved_ports = 40000-40005,40008\n',
    );
  });

  it('a client bound to a port (SO_REUSEADDR, as Node binds) connects again over its own TIME_WAIT at once', async (ctx) => {
    const client = { ns: 'a', bind: '0.0.0.0', port: 40000 };
    const server = { ns: 'b', bind: '0.0.0.0', port: 8080 };
    const scenario = twoHosts('ports-rebind')
      .capture('a', 'veth-a')
      .tcp({ client, server, dst: '10.0.0.2' })
      .tcp({ client, server, dst: '10.0.0.2' })
      .observe('a', 'ss', '-tan')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    // tcp_twsk_unique with twp == NULL: the TIME_WAIT of the first connection gives way (it had timestamps),
    // and the new connection's ISN is the old snd_nxt + 65537 (the first FIN's sequence number + 1 + 65537).
    expect(outputOf(result.linux, 'a: ss').match(/TIME-WAIT/g)).toHaveLength(1);
    for (const side of [result.linux, result.packetlab]) {
      const fromClient = (side.captures[0]?.frames ?? []).filter(
        (frame) => frame[26] === 10 && frame[29] === 1,
      );
      const flags = (frame: Uint8Array) => frame[47]!;
      const seq = (frame: Uint8Array) => new DataView(frame.buffer, frame.byteOffset).getUint32(38);
      const syns = fromClient.filter((frame) => flags(frame) === 0x02);
      const fin = fromClient.find((frame) => (flags(frame) & 0x01) !== 0);
      expect(syns).toHaveLength(2);
      expect(seq(syns[1]!)).toBe((seq(fin!) + 1 + 65537) >>> 0);
    }
  });

  it('the port sysctls: defaults, formats and what the kernel refuses', async (ctx) => {
    const sysctl = (...words: string[]) => ['sysctl', ...words] as const;
    let builder = twoHosts('ports-sysctl');
    for (const argv of [
      sysctl(
        'net.ipv4.ip_local_port_range',
        'net.ipv4.ip_local_reserved_ports',
        'net.ipv4.ip_unprivileged_port_start',
        'net.ipv4.tcp_tw_reuse',
        'net.ipv4.tcp_tw_reuse_delay',
      ),
      sysctl('-w', 'net.ipv4.ip_local_port_range=100 50'),
      sysctl('-w', 'net.ipv4.ip_local_port_range=1000 2000'),
      sysctl('-w', 'net.ipv4.ip_local_port_range=40000 40063'),
      sysctl('-w', 'net.ipv4.ip_local_reserved_ports=9000-9100,8080'),
      sysctl('net.ipv4.ip_local_reserved_ports'),
      sysctl('-w', 'net.ipv4.ip_local_reserved_ports=1,2,3,5'),
      sysctl('-n', 'net.ipv4.ip_local_reserved_ports'),
      sysctl('-w', 'net.ipv4.ip_local_reserved_ports=8080, 8081'),
      sysctl('-w', 'net.ipv4.ip_local_reserved_ports=9000-8000'),
      sysctl('-w', 'net.ipv4.tcp_tw_reuse=3'),
      sysctl('-w', 'net.ipv4.ip_local_reserved_ports='),
      sysctl('net.ipv4.ip_local_reserved_ports', 'net.ipv4.ip_local_port_range'),
    ])
      builder = builder.act('a', ...argv);
    await differential(ctx, builder.build());
  });

  it('UDP bind(0): ports in the range, EADDRINUSE once all are bound', async (ctx) => {
    const scenario = twoHosts('ports-udp')
      .sysctl('a', 'net.ipv4.ip_local_port_range', '40000 40007')
      .ports({ client: 'a', range: [40000, 40007], actions: [{ kind: 'udp0', count: 9 }] })
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    const lines = outputOf(result.linux, 'a: ports');
    expect(lines).toContain('udp0: 8 of 9 bound, 8 ports');
    expect(lines).toContain('udp0 error EADDRINUSE');
  });

  it('tcp_tw_reuse=2 (the default) lets connect() take a loopback TIME_WAIT a second old', async (ctx) => {
    const scenario = twoHosts('ports-loopback')
      .sysctl('a', 'net.ipv4.ip_local_port_range', '40000 40001')
      .ports({
        client: 'a',
        server: { ns: 'a', ports: [8080] },
        range: [40000, 40001],
        actions: [
          connect(8080, 3, { dst: '127.0.0.1' }),
          { kind: 'close' },
          { kind: 'wait', ms: 300 },
          connect(8080, 1, { dst: '127.0.0.1' }),
          { kind: 'wait', ms: 1_100 },
          connect(8080, 2, { dst: '127.0.0.1' }),
        ],
      })
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    const lines = outputOf(result.linux, 'a: ports');
    expect(parities(lines, 8080)).toBe('eoxxeo');
  });
});
