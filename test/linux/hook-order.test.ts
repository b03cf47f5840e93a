// Base chains of equal priority on one hook, on the kernel and on packetlab: the chain registered last runs first
// (core.c:nf_hook_entries_grow inserts a new hook before the first one whose priority is not lower). Two filter
// chains on input at priority 0: the older table drops, the newer one only counts; the newer one's counter sees the
// ping, whichever way packetlab orders them.

import { describe, expect, it } from 'vitest';
import { differential, outputOf } from './harness.ts';
import { twoHosts } from './topologies.ts';

const OLDER = [
  'table ip older {',
  '  chain input {',
  '    type filter hook input priority 0; policy accept;',
  '    icmp type echo-request counter drop',
  '  }',
  '}',
  '',
].join('\n');

const NEWER = [
  'table ip newer {',
  '  chain input {',
  '    type filter hook input priority 0; policy accept;',
  '    icmp type echo-request counter',
  '  }',
  '}',
  '',
].join('\n');

describe('differential: hook order at equal priority', () => {
  it('the newest base chain runs first', async (ctx) => {
    const scenario = twoHosts('hook-order')
      .nft('b', OLDER, 'older.nft')
      .nft('b', NEWER, 'newer.nft')
      .ping('a', '10.0.0.2', { count: 1, wait: 1 })
      .observe('b', 'nft', 'list', 'ruleset')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      const ruleset = outputOf(side, 'b: nft list ruleset');
      expect(ruleset, side.side).toContain('icmp type echo-request counter packets 1 bytes 84 drop');
      expect(ruleset, side.side).toContain('icmp type echo-request counter packets 1 bytes 84\n');
    }
  });
});
