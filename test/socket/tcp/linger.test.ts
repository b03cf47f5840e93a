// Ladder tests of close() with SO_LINGER and a time (tcp_close → sk_stream_wait_close): close() returns once
// the FIN is acknowledged, or when the linger time runs out; either way the wire shows an ordinary close and the
// orphan goes on retransmitting (no reset). With 0 seconds, close() resets.

import { describe, expect, it } from 'vitest';
import { execOrThrow } from '../../../src/tools/exec.ts';
import { type DelayedPair, delayedPair } from './delayed-pair.ts';

function connected(): DelayedPair {
  return delayedPair('tcp-linger');
}

describe('close() with SO_LINGER', () => {
  it('returns when the FIN is acknowledged (FIN_WAIT2), before the linger time', () => {
    const t = connected();
    const returned: [number, boolean][] = [];
    t.client.write(new Uint8Array(100));
    t.client.setLinger(true, 5);
    t.client.destroy((timedOut) => returned.push([t.sim.now, timedOut]));
    expect(returned).toEqual([]);
    t.sim.run(10e9);
    expect(returned).toEqual([[1.05e9, false]]);
    expect(t.lines()).toEqual([
      '01.000000 a>b Flags [P.], seq 1:101, ack 1, win 63, length 100',
      '01.000000 a>b Flags [F.], seq 101, ack 1, win 63, length 0',
      '01.010000 b>a Flags [.], ack 101, win 64, length 0',
      // b entered CLOSE_WAIT in pingpong mode (tcp_fin): its ACK of the FIN is delayed 40 ms.
      '01.050000 b>a Flags [.], ack 102, win 64, length 0',
    ]);
  });

  it('returns when the linger time runs out; the orphan keeps retransmitting its FIN, no reset', () => {
    const t = connected();
    execOrThrow(t.b, 'iptables -A INPUT -s 10.0.0.1 -j DROP');
    const returned: [number, boolean][] = [];
    t.client.write(new Uint8Array(100));
    t.client.setLinger(true, 2);
    t.client.destroy((timedOut) => returned.push([t.sim.now, timedOut]));
    t.sim.run(10e9);
    expect(returned).toEqual([[3e9, true]]);
    // close() returned at 3 s; the retransmissions around it are those of any orphan: after the RTO the data
    // and the FIN behind it go as one segment (tcp_retrans_try_collapse).
    expect(t.lines()).toEqual([
      '01.000000 a>b Flags [P.], seq 1:101, ack 1, win 63, length 100',
      '01.000000 a>b Flags [F.], seq 101, ack 1, win 63, length 0',
      '01.042000 a>b Flags [F.], seq 101, ack 1, win 63, length 0',
      '01.262000 a>b Flags [FP.], seq 1:101, ack 1, win 63, length 100',
      '01.702000 a>b Flags [FP.], seq 1:101, ack 1, win 63, length 100',
      '02.582000 a>b Flags [FP.], seq 1:101, ack 1, win 63, length 100',
      '04.342000 a>b Flags [FP.], seq 1:101, ack 1, win 63, length 100',
      '07.862000 a>b Flags [FP.], seq 1:101, ack 1, win 63, length 100',
    ]);
  });

  it('with 0 seconds, close() resets the connection and returns at once', () => {
    const t = connected();
    const returned: boolean[] = [];
    t.client.setLinger(true, 0);
    t.client.destroy((timedOut) => returned.push(timedOut));
    expect(returned).toEqual([false]);
    t.sim.run(1e9);
    expect(t.lines()).toEqual(['01.000000 a>b Flags [R.], seq 1, ack 1, win 63, length 0']);
  });

  it('without SO_LINGER, close() returns at once', () => {
    const t = connected();
    const returned: boolean[] = [];
    t.client.destroy((timedOut) => returned.push(timedOut));
    expect(returned).toEqual([false]);
  });
});
