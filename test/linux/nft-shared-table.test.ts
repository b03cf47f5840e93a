// Two components in one nft table, on the kernel and on packetlab (scenarios/collisions.ts, collision-nft, replays
// it): a node firewall owns `table inet filter`; a blocklist agent adds its set and its chain to the same table and
// bans host a; a's ping is dropped. The firewall then reloads the way many tools do (`flush table inet filter`, then
// its table): the kernel empties every chain of the table, the blocklist's included, but keeps the chains and the
// set with its element (nft's flush table deletes rules only), so a's ping passes again while the blocklist's set
// still lists it. A reload that deletes the table instead takes the set and the chain with it. `nft monitor` shows
// each event as the kernel notifies it.

import { describe, expect, it } from 'vitest';
import { differential, outputOf } from './harness.ts';
import { twoHosts } from './topologies.ts';

const FIREWALL = `table inet filter {
	chain input {
		type filter hook input priority filter; policy accept;
		tcp dport 10250 ip saddr != 10.0.0.0/24 drop
	}
}
`;

const BLOCKLIST = `table inet filter {
	set blocked {
		type ipv4_addr
		elements = { 10.0.0.1 }
	}
	chain blocklist {
		type filter hook prerouting priority -150; policy accept;
		ip saddr @blocked counter drop
	}
}
`;

const FIREWALL_RELOAD = `flush table inet filter
${FIREWALL}`;

const FIREWALL_RECREATE = `table inet filter
delete table inet filter
${FIREWALL}`;

describe('differential: two components in one nft table', () => {
  it("the firewall's flush table empties the blocklist's chain and keeps its set; delete table takes both", async (ctx) => {
    const scenario = twoHosts('nft-shared-table')
      .nft('b', FIREWALL, 'firewall.nft')
      .nft('b', BLOCKLIST, 'blocklist.nft')
      .monitor('b', 'nft', 'monitor')
      .ping('a', '10.0.0.2', { count: 1, wait: 1 })
      .actCommand('b', ['nft', '-f', { file: 'reload.nft', text: FIREWALL_RELOAD }])
      .act('b', 'nft', '-a', 'list', 'table', 'inet', 'filter')
      .ping('a', '10.0.0.2', { count: 1, wait: 1 })
      .actCommand('b', ['nft', '-f', { file: 'recreate.nft', text: FIREWALL_RECREATE }])
      .act('b', 'nft', 'list', 'set', 'inet', 'filter', 'blocked')
      .observe('b', 'nft', '-a', 'list', 'ruleset')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      const pings = [...side.traffic].filter((o) => o.label.startsWith('a: ping'));
      expect(
        pings.map((o) => o.exitCode),
        side.side,
      ).toEqual([1, 0]);
      const afterFlush = outputOf(side, 'b: nft -a list table inet filter');
      expect(afterFlush, side.side).toMatch(
        /chain blocklist \{ # handle \d+\n\t\ttype filter hook prerouting priority mangle; policy accept;\n\t\}/,
      );
      expect(afterFlush, side.side).toContain('elements = { 10.0.0.1 }');
      expect(outputOf(side, 'b: nft list set inet filter blocked'), side.side).toContain(
        'Error: No such file or directory',
      );
      // nft monitor: the firewall's reload deletes the blocklist's rule by its handle.
      expect(outputOf(side, 'b: nft monitor'), side.side).toMatch(
        /^delete rule inet filter input handle 2\ndelete rule inet filter blocklist handle 5\nadd chain inet filter input \{ type filter hook input priority filter; policy accept; \}\n/m,
      );
    }
  });
});
