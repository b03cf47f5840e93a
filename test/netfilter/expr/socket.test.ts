// nft's socket expression on packets (nft_socket_eval): the receiving socket's IP_TRANSPARENT, SO_MARK and wildcard
// bind, read through the lookup `-m socket` uses; no socket breaks the rule. Listings and the hook check were pinned
// from nft 1.0.6 on Linux 6.18 (forward and postrouting refuse `socket` with EOPNOTSUPP).

import { describe, expect, it } from 'vitest';
import { exec } from '../../../src/tools/exec.ts';
import { parseIpv4 } from '../../../src/wire/address.ts';
import { lab, nft, nftCounters, sendUdp } from '../eval/support.ts';

describe('nft socket', () => {
  it('reads the receiving socket and breaks without one', () => {
    const l = lab('socket');
    l.b.udp.bind(0, 53, () => {});
    l.b.udp.bind(parseIpv4('10.0.2.1')!, 54, () => {}, undefined, undefined, {
      transparent: true,
      mark: 0x20,
    });
    nft(
      l.b,
      [
        'table ip f {',
        '  chain in {',
        '    type filter hook input priority 0;',
        '    socket transparent 0 udp dport 53 counter',
        '    socket wildcard 1 counter',
        '    socket transparent 1 socket mark 0x20 socket wildcard 0 counter',
        '    udp dport 55 socket transparent 0 counter',
        '    udp dport 55 socket transparent != 0 counter',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    for (const dport of [53, 54, 55]) sendUdp(l.a, '10.0.2.1', { dport });
    l.sim.run(1e9);
    expect(nftCounters(l.b, 'udp dport 53 counter')).toEqual(['1:32']);
    expect(nftCounters(l.b, 'socket wildcard 1')).toEqual(['1:32']);
    expect(nftCounters(l.b, 'socket wildcard 0')).toEqual(['1:32']);
    expect(nftCounters(l.b, 'udp dport 55')).toEqual(['0:0', '0:0']);
    const refused = exec(l.b, "nft 'add chain ip f fw { type filter hook forward priority 0; }'");
    expect(refused.exitCode).toBe(0);
    expect(exec(l.b, "nft add rule ip f fw 'socket wildcard 1'").stderr.split('\n')[0]).toBe(
      'Error: Could not process rule: Operation not supported',
    );
  });
});
