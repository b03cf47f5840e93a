// `ss` on both sides: the server's listener while it waits for its client, then after a TCP echo the client's
// TIME-WAIT (the server's side is gone) with numeric and named ports; UDP through the socket a VXLAN device opens
// (the UDP step's sockets are closed once it ends).

import { describe, expect, it } from 'vitest';
import { differential, outputOf } from './harness.ts';
import { lesson, twoHosts } from './topologies.ts';

describe('differential: ss', () => {
  it('a listener while it waits, then TIME-WAIT after two TCP echoes', async (ctx) => {
    const scenario = twoHosts('ss-tcp')
      .tcp({
        client: { ns: 'a', bind: '10.0.0.1', port: 40000 },
        server: { ns: 'b', bind: '0.0.0.0', port: 8080 },
        dst: '10.0.0.2',
        count: 2,
        whileListening: [
          { ns: 'b', argv: ['ss', '-tln'] },
          { ns: 'b', argv: ['ss', '-tan'] },
          { ns: 'b', argv: ['ss', '-tl'] },
          { ns: 'a', argv: ['ss', '-tan'] },
        ],
      })
      .tcp({
        client: { ns: 'a', bind: '10.0.0.1', port: 40002 },
        server: { ns: 'b', bind: '10.0.0.2', port: 22 },
        dst: '10.0.0.2',
        whileListening: [
          { ns: 'b', argv: ['ss', '-tlnH'] },
          { ns: 'b', argv: ['ss', '-ta'] },
          { ns: 'a', argv: ['ss', '-tn', 'state', 'time-wait'] },
        ],
      })
      .observe('a', 'ss', '-tan')
      .observe('a', 'ss', '-ta')
      .observe('a', 'ss', '-tanH')
      .observe('a', 'ss', '-tn', 'state', 'time-wait')
      .observe('a', 'ss', '-tn')
      .observe('a', 'ss', '-tuan')
      .observe('b', 'ss', '-tan')
      .observe('b', 'ss', '-tln')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'b: ss -tln')).toContain('LISTEN 0      511          0.0.0.0:8080');
    expect(outputOf(result.linux, 'a: ss -tanH')).toContain('TIME-WAIT 0      0      10.0.0.1:40002');
  });

  it('UDP: the socket a VXLAN device opens (0.0.0.0:8472), on both nodes after traffic through the tunnel', async (ctx) => {
    const scenario = lesson('ss-vxlan')
      .ping('diag', '10.244.2.7')
      .observe('w1', 'ss', '-uan')
      .observe('w1', 'ss', '-ua')
      .observe('w2', 'ss', '-uln')
      .observe('w2', 'ss', '-tuan')
      .observe('w2', 'ss', '-u')
      .observe('diag', 'ss', '-uan')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'w1: ss -uan')).toContain('UNCONN 0      0            0.0.0.0:8472');
  });
});
