// Bulk TCP transfers on both sides, compared segment by segment (tcp-segments.ts): full-MSS segments that wait for
// the peer's window, the first ACKs of a veth (one per segment while the receiver is in quick-ACK mode), the
// windows the receiver advertises as its buffer fills (scaling ratio from truesize, tcp_grow_window), and IP ids.

import { describe, expect, it } from 'vitest';
import { requireKernel } from './harness.ts';
import { runLinux } from './linux-driver.ts';
import type { Observed } from './observed.ts';
import { runPacketlab } from './packetlab-driver.ts';
import { segmentLadder } from './tcp-segments.ts';
import { twoHosts } from './topologies.ts';

const CLIENT = { ns: 'a', bind: '10.0.0.1', port: 40000 } as const;
const SERVER = { ns: 'b', bind: '0.0.0.0', port: 8080 } as const;

function ladder(side: Observed) {
  const capture = side.captures[0];
  if (capture === undefined || capture.error !== undefined) throw new Error(`${side.side}: no capture`);
  return segmentLadder(capture.frames);
}

function peers(side: Observed): string {
  return side.traffic.map((output) => `${output.label}\n${output.stdout}`).join('');
}

describe('differential: bulk TCP', () => {
  it('64 KiB to a server that reads only after 300 ms: every segment, ACK and window; the kernel alone sends a tail loss probe', async (ctx) => {
    const scenario = twoHosts('tcp-bulk-64k')
      .capture('a', 'veth-a')
      .tcp({
        client: CLIENT,
        server: SERVER,
        dst: '10.0.0.2',
        bytes: 65536,
        readAfterMs: 300,
        timeoutMs: 2000,
      })
      .build();
    if (!requireKernel(ctx, scenario)) return;
    const packetlab = runPacketlab(scenario);
    const linux = await runLinux(scenario);
    expect(peers(packetlab)).toBe(peers(linux));
    const ours = ladder(packetlab);
    const theirs = ladder(linux);
    // tcp_sendmsg's forced_push marks PSH on the segment whose end passes half the largest window
    // the peer offered, as the sender knew it while copying: when the kernel processes its backlog
    // of ACKs inside sendmsg decides which segment; packetlab marks PSH only at the end of a write.
    const midPush = /^(40000>8080 (?!65161)\d+:\d+ )P\./;
    expect(theirs.segments.filter((line) => midPush.test(line))).toHaveLength(1);
    // node's shutdown() races the kernel's last transmissions: now and then the FIN rides on the
    // last data segment (it was still queued); packetlab's end() comes once everything left.
    const split = theirs.segments.flatMap((line) =>
      line.startsWith('40000>8080 65161:65537 FP.')
        ? [line.replace(' FP.', ' P.'), '40000>8080 65537:65537 F. ack 1 win 63']
        : [line],
    );
    expect(ours.segments).toEqual(split.map((line) => line.replace(midPush, '$1.')));
    // The FIN waits for the receiver's delayed ACK; Linux probes for its loss (TLP, tcp_send_loss_probe: the
    // FIN, or the last segment when the FIN was not queued yet), not modelled.
    expect(theirs.retransmissions).toHaveLength(1);
    expect(theirs.retransmissions[0]).toMatch(/^40000>8080 (65161|65537):65537 F?P?\. ack 1 win 63$/);
    expect(ours.retransmissions).toEqual([]);
    expect([ours.idsStepByOne, theirs.idsStepByOne]).toEqual([true, true]);
  }, 30_000);

  it('1 MiB to a server that reads at once: 724 full segments and one of 224, nothing cut to fit the window', async (ctx) => {
    const scenario = twoHosts('tcp-bulk-1m')
      .capture('a', 'veth-a')
      .tcp({ client: CLIENT, server: SERVER, dst: '10.0.0.2', bytes: 1 << 20, timeoutMs: 5000 })
      .build();
    if (!requireKernel(ctx, scenario)) return;
    const packetlab = runPacketlab(scenario);
    const linux = await runLinux(scenario);
    expect(peers(packetlab)).toBe(peers(linux));
    const sizes = (side: Observed) => {
      const counts = new Map<number, number>();
      for (const line of ladder(side).segments) {
        const match = /^40000>8080 (\d+):(\d+) /.exec(line);
        const len = Number(match?.[2]) - Number(match?.[1]);
        if (len > 0) counts.set(len, (counts.get(len) ?? 0) + 1);
      }
      return [...counts].sort((x, y) => y[0] - x[0]);
    };
    expect(sizes(linux)).toEqual([
      [1448, 724],
      [224, 1],
    ]);
    expect(sizes(packetlab)).toEqual(sizes(linux));
    // The first ACKs come before the receiving application ran on the kernel: one per segment, windows growing.
    const acks = (side: Observed) =>
      ladder(side)
        .segments.filter((line) => line.startsWith('8080>40000'))
        .slice(1, 5);
    expect(acks(packetlab)).toEqual(acks(linux));
  }, 60_000);

  it('a reader that waits 2 s behind a 16 KiB buffer: the window closes, the persist timer fills what is left, probes at snd_una - 1 (answered at most every 500 ms), and the read reopens it', async (ctx) => {
    const scenario = twoHosts('tcp-zero-window')
      .sysctl('b', 'net.ipv4.tcp_rmem', '4096 16384 16384')
      .capture('a', 'veth-a')
      .tcp({
        client: CLIENT,
        server: SERVER,
        dst: '10.0.0.2',
        bytes: 20000,
        readAfterMs: 2000,
        timeoutMs: 3000,
      })
      .build();
    if (!requireKernel(ctx, scenario)) return;
    const packetlab = runPacketlab(scenario);
    const linux = await runLinux(scenario);
    expect(peers(packetlab)).toBe(peers(linux));
    // Up to the window update of the read; what follows depends on when the kernel's reader runs.
    // PSH set aside on data segments: tcp_sendmsg's forced pushes (half of a 7240-byte window) are not modelled.
    const prefix = (side: Observed) => {
      const lines = ladder(side).segments.map((line) => line.replace(/^(40000>8080 \d+:\d+ )P\./, '$1.'));
      const reopened = lines.indexOf('8080>40000 1:1 . ack 10521 win 70');
      expect(reopened, side.side).toBeGreaterThan(0);
      return lines.slice(0, reopened + 1);
    };
    expect(prefix(packetlab)).toEqual(prefix(linux));
    expect(prefix(linux).filter((line) => line === '40000>8080 10520:10520 . ack 1 win 63')).toHaveLength(3);
  }, 30_000);
});
