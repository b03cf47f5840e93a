// Ladder tests of tcp_retrans_try_collapse on a veth whose far side delays its ACKs by 10 ms: small segments
// lost behind the head go again inside its retransmission while they fit in one MSS and the peer's window.

import { describe, expect, it } from 'vitest';
import { execOrThrow } from '../../../src/tools/exec.ts';
import { delayedPair } from './delayed-pair.ts';

const bytes = (n: number) => new Uint8Array(n).fill(0x78);

function lostSmallWrites(setupA: readonly string[] = []) {
  const t = delayedPair('tcp-collapse');
  for (const command of setupA) execOrThrow(t.a, command);
  execOrThrow(t.b, 'iptables -A INPUT -s 10.0.0.1 -j DROP');
  t.client.setNoDelay(true);
  t.client.write(bytes(100));
  t.client.write(bytes(200));
  t.client.write(bytes(300));
  t.sim.run(0.1e9);
  execOrThrow(t.b, 'iptables -D INPUT -s 10.0.0.1 -j DROP');
  t.sim.run(2e9);
  return t.lines();
}

describe('retransmission collapsing (tcp_retrans_try_collapse)', () => {
  it('ladder: three small segments lost; the loss probe resends the last, the RTO the head with the other two in it', () => {
    expect(lostSmallWrites()).toEqual([
      '01.000000 a>b Flags [P.], seq 1:101, ack 1, win 63, length 100',
      '01.000000 a>b Flags [P.], seq 101:301, ack 1, win 63, length 200',
      '01.000000 a>b Flags [P.], seq 301:601, ack 1, win 63, length 300',
      // tcp_send_loss_probe: the last segment again (__tcp_retransmit_skb: nothing behind it to take).
      '01.042000 a>b Flags [P.], seq 301:601, ack 1, win 63, length 300',
      // The RTO: 100 bytes with 500 of the 1448 of space left; both segments behind fit.
      '01.262000 a>b Flags [P.], seq 1:601, ack 1, win 63, length 600',
      '01.272000 b>a Flags [.], ack 601, win 64, length 0',
    ]);
  });

  it('tcp_retrans_collapse = 0: the RTO resends the head alone, the other two follow as loss recovery lets them', () => {
    expect(lostSmallWrites(['sysctl -w net.ipv4.tcp_retrans_collapse=0'])).toEqual([
      '01.000000 a>b Flags [P.], seq 1:101, ack 1, win 63, length 100',
      '01.000000 a>b Flags [P.], seq 101:301, ack 1, win 63, length 200',
      '01.000000 a>b Flags [P.], seq 301:601, ack 1, win 63, length 300',
      '01.042000 a>b Flags [P.], seq 301:601, ack 1, win 63, length 300',
      // PSH only where the queued data ends (docs/deviations.md, TCP: pushes); cwnd 1 after the RTO, then 2.
      '01.262000 a>b Flags [.], seq 1:101, ack 1, win 63, length 100',
      '01.272000 b>a Flags [.], ack 101, win 64, length 0',
      '01.272000 a>b Flags [.], seq 101:301, ack 1, win 63, length 200',
      '01.272000 a>b Flags [P.], seq 301:601, ack 1, win 63, length 300',
      '01.282000 b>a Flags [.], ack 301, win 64, length 0',
      '01.282000 b>a Flags [.], ack 601, win 64, length 0',
    ]);
  });
});
