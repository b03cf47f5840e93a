// scenarios/tcpdump-lines.ts reads `tcpdump -ni any` back as hops: a plain line, and a VXLAN frame whose inner packet
// (the next line, without a timestamp) gives `inner` and `innerRest`.

import { describe, expect, it } from 'vitest';
import { hopLines, hops } from '../../scenarios/tcpdump-lines.ts';

const CAPTURE = [
  '00:00:02.200000 veth1b027131 P   IP 10.244.1.5.49812 > 10.96.40.12.80: Flags [S], seq 668166076, win 64860, length 0',
  '00:00:02.200000 eth0  Out IP 172.18.0.3.37727 > 172.18.0.4.8472: OTV, flags [I] (0x08), overlay 0, instance 1',
  'IP 10.244.1.5.49812 > 10.244.2.7.8000: Flags [P.], seq 1:82, ack 1, win 64, length 81',
  '2 packets captured',
].join('\n');

describe('hops', () => {
  it('keeps device, direction, addresses, and for VXLAN the inner packet and what follows it', () => {
    const list = hops(CAPTURE);
    expect(list).toHaveLength(2);
    expect(list[0]).toMatchObject({
      device: 'veth1b027131',
      direction: 'P',
      inner: undefined,
      innerRest: undefined,
    });
    expect(list[1]).toMatchObject({
      device: 'eth0',
      direction: 'Out',
      src: '172.18.0.3.37727',
      dst: '172.18.0.4.8472',
      inner: '10.244.1.5.49812 > 10.244.2.7.8000',
      innerRest: 'Flags [P.], seq 1:82, ack 1, win 64, length 81',
    });
    expect(hopLines(list)).toEqual([
      'veth1b027131 10.244.1.5.49812 > 10.96.40.12.80',
      'eth0 172.18.0.3.37727 > 172.18.0.4.8472 [10.244.1.5.49812 > 10.244.2.7.8000]',
    ]);
  });
});
