// A route's congctl (RTAX_CC_ALGO) on the real kernel and on packetlab: stored with `lock`, printed by `ip route`
// after the mtu, and by `ip route get` in the cache line.

import { describe, it } from 'vitest';
import { differential } from './harness.ts';
import { twoHosts } from './topologies.ts';

describe('differential: ip route congctl', () => {
  it('the link route replaced with congctl lock reno, a gateway route with mtu and congctl cubic: show and get', async (ctx) => {
    const scenario = twoHosts('congctl-route')
      .route(
        'a',
        'replace',
        '10.0.0.0/24',
        'dev',
        'veth-a',
        'proto',
        'kernel',
        'scope',
        'link',
        'src',
        '10.0.0.1',
        'congctl',
        'lock',
        'reno',
      )
      .route('a', 'add', '10.9.0.0/24', 'via', '10.0.0.2', 'mtu', '1400', 'congctl', 'cubic')
      .observe('a', 'ip', 'route')
      .observe('a', 'ip', 'route', 'get', '10.0.0.2')
      .observe('a', 'ip', 'route', 'get', '10.9.0.7')
      .build();
    await differential(ctx, scenario);
  });
});
