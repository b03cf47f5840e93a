// `nft monitor` (ruleset events) on the kernel and on packetlab: one line per object a batch adds or deletes, in the
// kernel's notification order (a chain redeclared is an update, notified again; a set's elements one by one; a
// chain or table deleted with its rules first, then sets, then chains), and NFT_MSG_NEWGEN's `# new generation N by
// process PID (nft)` after each batch; listings send no batch. Pids are compared as PID (compare.ts).

import { describe, expect, it } from 'vitest';
import { differential, outputOf } from './harness.ts';
import { twoHosts } from './topologies.ts';

const TABLE = `table ip t {
	set s {
		type ipv4_addr
		flags interval
		elements = { 10.0.0.0/8, 192.0.2.1 }
	}
	chain reg {
		counter accept
	}
	chain base {
		type filter hook input priority 0; policy drop;
		ip saddr @s jump reg
		tcp dport 22 accept comment "ssh"
	}
}
`;

describe('differential: nft monitor', () => {
  it('tables, chains, sets, elements and rules added and deleted, batch by batch', async (ctx) => {
    const scenario = twoHosts('nft-monitor')
      .monitor('b', 'nft', 'monitor')
      .act('b', 'nft', 'add', 'table', 'ip', 't')
      .act('b', 'nft', 'add', 'chain', 'ip', 't', 'reg')
      .act('b', 'nft', 'add', 'chain', 'ip', 't', 'reg')
      .act('b', 'nft', 'list', 'ruleset')
      .actCommand('b', ['nft', '-f', { file: 't.nft', text: TABLE }])
      .act('b', 'nft', 'add', 'rule', 'ip', 't', 'reg', 'ip', 'daddr', '10.0.0.2', 'accept')
      .act('b', 'nft', 'delete', 'chain', 'ip', 't', 'base')
      .act('b', 'nft', 'flush', 'ruleset')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    const monitor = outputOf(result.linux, 'b: nft monitor');
    expect(monitor).toContain('add set ip t s { type ipv4_addr; flags interval; } \n');
    expect(monitor).toMatch(
      /^delete rule ip t base handle 5\ndelete rule ip t base handle 6\ndelete chain ip t base\n/m,
    );
  });
});
