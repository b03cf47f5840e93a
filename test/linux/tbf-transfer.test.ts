// A TCP exchange through a tbf-limited link on the kernel and on packetlab: five 500-byte messages echoed over a
// veth whose egress (the client's) is shaped to 64 kbit/s with a 1600-byte bucket, so from the third message on
// each segment waits for tokens; every segment compared, then `tc -s qdisc show`.

import { describe, expect, it } from 'vitest';
import { differential, outputOf } from './harness.ts';
import { twoHosts } from './topologies.ts';

describe('differential: a TCP exchange through tbf', () => {
  it('five 500-byte echoes through rate 64kbit burst 1600: paced, every segment and the qdisc counters', async (ctx) => {
    const scenario = twoHosts('tbf-tcp')
      .run(
        'a',
        'tc',
        'qdisc',
        'add',
        'dev',
        'veth-a',
        'root',
        'handle',
        '1:',
        'tbf',
        'rate',
        '64kbit',
        'burst',
        '1600',
        'latency',
        '1s',
      )
      .capture('a', 'veth-a')
      .capture('b', 'veth-b')
      .tcp({
        client: { ns: 'a', bind: '10.0.0.1', port: 40000 },
        server: { ns: 'b', bind: '0.0.0.0', port: 8080 },
        dst: '10.0.0.2',
        count: 5,
        payload: 'x'.repeat(500),
        timeoutMs: 2000,
      })
      .observe('a', 'tc', '-s', 'qdisc', 'show', 'dev', 'veth-a')
      .build();
    const known = [
      {
        where: 'observe a: tc -s qdisc show dev veth-a',
        what: 'stdout line 1',
        reason:
          'refcnt is 1 plus the transmit queues: a veth has one per CPU on Linux, one in packetlab (tbf.test.ts)',
        packetlab: 'qdisc tbf 1: root refcnt 2 rate 64Kbit burst 1600b lat 1s ',
      },
    ];
    const result = await differential(ctx, scenario, { known });
    if (result === undefined) return;
    expect(outputOf(result.linux, 'a: tcp send')).toContain('reply "');
    expect(outputOf(result.packetlab, 'a: tc -s')).toContain(
      'Sent 3220 bytes 11 pkt (dropped 0, overlimits 5 ',
    );
    // When a's segments reached b, from the first frame: tbf holds the 3rd to 5th messages (568-byte frames,
    // 71 ms of tokens each at 8000 B/s) and the ACK and FIN behind them (66 bytes, 8.25 ms each). packetlab's
    // virtual times exactly. On the kernel the Node peers take a few ms per echo (more on a loaded machine) while
    // the bucket refills, so the first two held frames may leave up to ~10 ms later or wait less; once the 4th
    // message emptied the bucket, each frame waits for its own tokens and the gaps match within 1 ms. b's echoes,
    // which wait for the Node peer, are not timed.
    const fromA = (side: typeof result.linux): number[] => {
      const capture = side.captures.find((c) => c.label === 'b/veth-b')!;
      const t0 = capture.timesNs![0]!;
      return capture.frames.flatMap((frame, i) =>
        frame.length > 30 && frame[26] === 10 && frame[29] === 1 ? [(capture.timesNs![i]! - t0) / 1e6] : [],
      );
    };
    const paced = fromA(result.packetlab);
    const held = paced.filter((t) => t > 0);
    expect(held).toEqual([44, 115, 186, 194.25, 202.5]);
    const linux = fromA(result.linux);
    expect(linux).toHaveLength(paced.length);
    const linuxHeld = linux.slice(paced.length - held.length);
    for (const i of [0, 1])
      expect(Math.abs(linuxHeld[i]! - held[i]!), `held frame ${i + 1} at ${linuxHeld[i]} ms`).toBeLessThan(
        15,
      );
    for (let i = 2; i < held.length; i++) {
      const gap = linuxHeld[i]! - linuxHeld[i - 1]!;
      expect(
        Math.abs(gap - (held[i]! - held[i - 1]!)),
        `gap before held frame ${i + 1}: ${gap} ms`,
      ).toBeLessThan(1);
    }
  });
});
