// Receive-buffer autotuning (rcv-autotune.ts) as ladders on the simulation's clock: a (10.0.0.1:40000)
// writes 8 MiB to b (10.0.0.2:8080), whose server reads every segment as it arrives; b's eth0 delays
// by 10 ms (netem), so the RTT is 10 ms. Each row is b's tcp_info (and a's snd_wnd) 10 ms apart.

import { describe, expect, it } from 'vitest';
import type { TcpSocket } from '../../../src/socket/tcp/socket.ts';
import type { ListenOptions } from '../../../src/socket/tcp/table.ts';
import { execOrThrow, spawn } from '../../../src/tools/exec.ts';
import { parseIpv4 } from '../../../src/wire/address.ts';
import { twoHosts } from '../../support/two-hosts.ts';

interface Row {
  /** tcpi_rcv_space, sk_rcvbuf, tcpi_rcv_rtt (µs) and rcv_ssthresh of b; snd_wnd as a sees it. */
  readonly space: number;
  readonly rcvbuf: number;
  readonly rcvRttUs: number;
  readonly rcvSsthresh: number;
  readonly sndWnd: number;
}

interface Setup {
  readonly delay?: boolean;
  readonly a?: readonly string[];
  readonly b?: readonly string[];
  readonly listen?: ListenOptions;
  /** SO_RCVBUF on the accepted socket, once established. */
  readonly setReceiveBuffer?: number;
}

/** Connects, waits a second, writes 8 MiB, then samples `rows` times every 10 ms; also returns b's `ss -tin`. */
function transfer(seed: string, setup: Setup, rows: number): { rows: Row[]; received: number; ss: string } {
  const { sim, a, b } = twoHosts(seed);
  if (setup.delay ?? true) execOrThrow(b, 'tc qdisc add dev eth0 root netem delay 10ms');
  for (const command of setup.a ?? []) execOrThrow(a, command);
  for (const command of setup.b ?? []) execOrThrow(b, command);
  let server: TcpSocket | undefined;
  let received = 0;
  const listening = b.tcp.listen(
    0,
    8080,
    (socket) => {
      server = socket;
      if (setup.setReceiveBuffer !== undefined) socket.setReceiveBuffer(setup.setReceiveBuffer);
      socket.onData = (_socket, data) => {
        received += data.length;
      };
    },
    setup.listen,
  );
  if (listening === 'EADDRINUSE') throw new Error(listening);
  const connected = a.tcp.connect({ dst: parseIpv4('10.0.0.2')!, dstPort: 8080, srcPort: 40000 });
  if (!connected.ok) throw new Error(connected.error);
  sim.run(0);
  sim.run(1e9);
  const client = connected.socket;
  const first = server!.info();
  const out: Row[] = [
    {
      space: first.rcvSpace,
      rcvbuf: first.rcvbuf,
      rcvRttUs: first.rcvRttUs,
      rcvSsthresh: first.rcvSsthresh,
      sndWnd: client.info().sndWnd,
    },
  ];
  client.write(new Uint8Array(8 << 20));
  for (let i = 0; i < rows; i++) {
    sim.run(10e6);
    const info = server!.info();
    out.push({
      space: info.rcvSpace,
      rcvbuf: info.rcvbuf,
      rcvRttUs: info.rcvRttUs,
      rcvSsthresh: info.rcvSsthresh,
      sndWnd: client.info().sndWnd,
    });
  }
  const ss = execOrThrow(b, 'ss -tin state established');
  return { rows: out, received, ss };
}

/** The window a buffer backs at a scaling ratio of 162 (1448-byte segments of 2280 bytes truesize). */
const windowOf = (rcvbuf: number) => Math.floor((rcvbuf * 162) / 256);

describe('receive-buffer autotuning (DRS) over a 10 ms RTT', () => {
  it('a steadily reading server: rcv_space doubles each RTT as slow start lets it, sk_rcvbuf and the window clamp follow, the window passes what tcp_rmem[1] backs', () => {
    const { rows, received, ss } = transfer('drs-ladder', {}, 10);
    // Ten segments at first (tcp_init_buffer_space), then what the reader took per RTT less what waits.
    expect(rows.map((row) => row.space)).toEqual([
      14480, 15928, 28960, 57920, 115840, 228784, 457568, 918032, 1833168, 3003152, 3003152,
    ]);
    // tcp_rcvbuf_grow: e.g. 15928 -> 28960 gives rcvwin = 2 * 28960 + 2 * (57920 * 13032 / 15928) = 152698
    // and sk_rcvbuf = 152698 * 256 / 162 = 241300; the 15928 step (rcvwin 38227) is under tcp_rmem[1].
    expect(rows.map((row) => row.rcvbuf)).toEqual([
      131072, 131072, 241300, 549167, 1098334, 2133055, 4338422, 8741028, 17344594, 21606902, 21606902,
    ]);
    // The receiver's RTT: the echoed timestamps' 10 ms.
    expect(rows.slice(1).every((row) => row.rcvRttUs === 10000)).toBe(true);
    // window_clamp = tcp_win_from_space(sk_rcvbuf): rcv_ssthresh grows under it, never past it.
    for (const row of rows) expect(row.rcvSsthresh).toBeLessThanOrEqual(windowOf(row.rcvbuf));
    // 82944 is all that 131072 bytes back; the sender is offered far more once the buffer grew.
    expect(windowOf(131072)).toBe(82944);
    expect(rows[2]!.sndWnd).toBeLessThanOrEqual(82944);
    expect(rows[3]!.sndWnd).toBeGreaterThan(82944);
    expect(rows[10]!.sndWnd).toBeGreaterThan(8_000_000);
    expect(received).toBe(8 << 20);
    // ss prints tcpi_rcv_rtt in ms, then tcpi_rcv_space.
    expect(ss).toMatch(/ rcv_rtt:10 rcv_space:3003152 rcv_ssthresh:\d+ /);
  });

  it('tcp_rmem[2] caps sk_rcvbuf, and the window clamp stops with it', () => {
    const { rows } = transfer('drs-cap', { b: ['sysctl -w net.ipv4.tcp_rmem="4096 131072 1000000"'] }, 8);
    expect(rows.map((row) => row.rcvbuf)).toEqual([
      131072, 131072, 241300, 549167, 1000000, 1000000, 1000000, 1000000, 1000000,
    ]);
    const clamp = windowOf(1_000_000);
    expect(clamp).toBe(632812);
    for (const row of rows.slice(4)) {
      expect(row.rcvSsthresh).toBeLessThanOrEqual(clamp);
      expect(row.sndWnd).toBeLessThanOrEqual(clamp);
    }
    // The space still follows what is read, up to what the clamped window lets through per RTT.
    expect(rows[8]!.space).toBe(631328);
  });

  it('SO_RCVBUF turns it off: the buffer stays twice the value, set on the listener or on the accepted socket', () => {
    // On the listener the child's first window is what 200000 bytes back (98952, 6.10 lifted the 64 KiB
    // cap); set once established, the handshake's came from tcp_rmem[1].
    const cases = [
      { setup: { listen: { receiveBuffer: 100000 } }, spaces: [15928, 28960, 55024, 110048] },
      { setup: { setReceiveBuffer: 100000 }, spaces: [15928, 28960, 57920, 112944] },
    ];
    for (const { setup, spaces } of cases) {
      const { rows } = transfer('drs-rcvbuf', setup, 8);
      expect(rows.every((row) => row.rcvbuf === 200000)).toBe(true);
      // rcvq_space is measured all the same (tcp_rcvbuf_grow records it before the lock check).
      expect(rows.map((row) => row.space).slice(1, 5)).toEqual(spaces);
      for (const row of rows) expect(row.sndWnd).toBeLessThanOrEqual(windowOf(200000));
    }
  });

  it('tcp_moderate_rcvbuf = 0 turns it off', () => {
    const { rows } = transfer('drs-moderate', { b: ['sysctl -w net.ipv4.tcp_moderate_rcvbuf=0'] }, 6);
    expect(rows.every((row) => row.rcvbuf === 131072)).toBe(true);
    expect(rows.map((row) => row.space)).toEqual([14480, 15928, 28960, 57920, 81088, 81088, 81088]);
    for (const row of rows) expect(row.sndWnd).toBeLessThanOrEqual(82944);
  });

  it('without timestamps the estimate is per window (tcp_rcv_rtt_measure): none before the first window is through, then its minimum', () => {
    const { rows } = transfer('drs-nots', { a: ['sysctl -w net.ipv4.tcp_timestamps=0'] }, 6);
    expect(rows.map((row) => row.rcvRttUs)).toEqual([0, 0, 20000, 10000, 10000, 10000, 10000]);
    expect(rows.map((row) => row.rcvbuf)).toEqual([
      131072, 131072, 1650964, 1650964, 1650964, 3385601, 4402571,
    ]);
  });

  it('on a veth without delay no virtual time passes: the window-based estimate is its 1 µs floor and DRS never acts', () => {
    const { rows, received, ss } = transfer('drs-veth', { delay: false }, 3);
    expect(received).toBe(8 << 20);
    expect(
      rows.slice(1).every((row) => row.rcvRttUs === 1 && row.rcvbuf === 131072 && row.space === 14480),
    ).toBe(true);
    expect(ss).toMatch(/ rcv_rtt:0\.001 rcv_space:14480 /);
  });

  it('SO_RCVBUF before the handshake sizes the window and the scale as Linux 6.18 sent them (client 100000, listener 50000)', () => {
    const { sim, a, b } = twoHosts('drs-syn');
    const capture = spawn(a, 'tcpdump -nn -i eth0 tcp');
    if (!('stop' in capture)) throw new Error(capture.stderr);
    let server: TcpSocket | undefined;
    b.tcp.listen(0, 8080, (socket) => (server = socket), { receiveBuffer: 50000 });
    const connected = a.tcp.connect({
      dst: parseIpv4('10.0.0.2')!,
      dstPort: 8080,
      srcPort: 40000,
      receiveBuffer: 100000,
    });
    if (!connected.ok) throw new Error(connected.error);
    sim.run(1e9);
    // Measured on Linux 6.18 with Python's setsockopt(SO_RCVBUF) on both sides (getsockopt: 200000, 100000):
    // tcp_full_space 100000 clamps the client's scale to 1, 49232 = 34 * 1448 is all 50000 lets the server offer.
    const lines = capture
      .stop()
      .stdout.split('\n')
      .filter((line) => line.includes(' IP '))
      .map((line) => line.replace(/^\S+ IP /, '').replace(/(seq|ack|val|ecr) \d+/g, '$1 N'));
    expect(lines.slice(0, 3)).toEqual([
      '10.0.0.1.40000 > 10.0.0.2.8080: Flags [S], seq N, win 65535, options [mss 1460,sackOK,TS val N ecr N,nop,wscale 1], length 0',
      '10.0.0.2.8080 > 10.0.0.1.40000: Flags [S.], seq N, ack N, win 49232, options [mss 1460,sackOK,TS val N ecr N,nop,wscale 0], length 0',
      '10.0.0.1.40000 > 10.0.0.2.8080: Flags [.], ack N, win 49640, options [nop,nop,TS val N ecr N], length 0',
    ]);
    expect(connected.socket.info().rcvbuf).toBe(200000);
    expect(server!.info().rcvbuf).toBe(100000);
    // The listener's own buffer, as ss -m reads sk_rcvbuf.
    expect(execOrThrow(b, 'ss -ltm')).toContain('skmem:(r0,rb100000,');
  });
});
