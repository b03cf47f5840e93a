// Ladder tests of TCP_NODELAY on a veth whose far side delays its ACKs by 10 ms (netem): with Nagle (Minshall's
// check) the second of two small writes waits for the first one's ACK; with TCP_NODELAY both leave at once, and
// turning it on pushes what Nagle held back (tcp_nagle_test, __tcp_sock_set_nodelay).

import { describe, expect, it } from 'vitest';
import { type DelayedPair, delayedPair } from './delayed-pair.ts';

function connected(): DelayedPair {
  return delayedPair('tcp-nodelay');
}

const bytes = (n: number) => new Uint8Array(n).fill(0x78);

describe('TCP_NODELAY', () => {
  it('with Nagle, the second small write waits for the ACK of the first (Minshall: one small segment in flight)', () => {
    const t = connected();
    t.client.write(bytes(100));
    t.client.write(bytes(50));
    t.sim.run(1e9);
    expect(t.lines()).toEqual([
      '01.000000 a>b Flags [P.], seq 1:101, ack 1, win 63, length 100',
      '01.010000 b>a Flags [.], ack 101, win 64, length 0',
      '01.010000 a>b Flags [P.], seq 101:151, ack 1, win 63, length 50',
      '01.020000 b>a Flags [.], ack 151, win 64, length 0',
    ]);
  });

  it('with TCP_NODELAY, two small writes leave as two segments at once, each ACKed 10 ms later', () => {
    const t = connected();
    t.client.setNoDelay(true);
    t.client.write(bytes(100));
    t.client.write(bytes(50));
    t.sim.run(1e9);
    expect(t.lines()).toEqual([
      '01.000000 a>b Flags [P.], seq 1:101, ack 1, win 63, length 100',
      '01.000000 a>b Flags [P.], seq 101:151, ack 1, win 63, length 50',
      '01.010000 b>a Flags [.], ack 101, win 64, length 0',
      '01.010000 b>a Flags [.], ack 151, win 64, length 0',
    ]);
  });

  it('turning TCP_NODELAY on pushes the segment Nagle held back; turning it off brings Nagle back', () => {
    const t = connected();
    t.client.write(bytes(100));
    t.client.write(bytes(50));
    t.sim.run(5e6);
    t.client.setNoDelay(true);
    t.sim.run(20e6);
    t.client.setNoDelay(false);
    t.client.write(bytes(10));
    t.client.write(bytes(20));
    t.sim.run(1e9);
    expect(t.lines()).toEqual([
      '01.000000 a>b Flags [P.], seq 1:101, ack 1, win 63, length 100',
      '01.005000 a>b Flags [P.], seq 101:151, ack 1, win 63, length 50',
      '01.010000 b>a Flags [.], ack 101, win 64, length 0',
      '01.015000 b>a Flags [.], ack 151, win 64, length 0',
      '01.025000 a>b Flags [P.], seq 151:161, ack 1, win 63, length 10',
      '01.035000 b>a Flags [.], ack 161, win 64, length 0',
      '01.035000 a>b Flags [P.], seq 161:181, ack 1, win 63, length 20',
      '01.045000 b>a Flags [.], ack 181, win 64, length 0',
    ]);
  });
});
