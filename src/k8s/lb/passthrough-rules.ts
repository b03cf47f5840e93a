// The nftables ruleset of the load balancer's `passthrough` mode: in its own `ip packetlab-lb` table, each
// load-balancer address and port is DNATed (no SNAT: the client's address reaches the node) to one of the nodes in
// rotation with equal weight (`numgen random mod N vmap`, as kube-proxy's nftables mode spreads endpoints), or
// dropped when none is. The text replaces the table in one `nft -f` transaction. No UDP-specific handling beyond
// the protocol match, no source ranges.

import type { Protocol } from '../objects.ts';

/** One load-balancer frontend and the nodes' NodePorts in rotation behind it. */
export interface PassthroughFrontend {
  /** `<namespace>-<name>-<port>`, unique, made of characters nft accepts in a chain name. */
  readonly id: string;
  readonly addr: string;
  readonly port: number;
  readonly protocol: Protocol;
  /** The nodes in rotation: their name (for the chain) and the address and NodePort to DNAT to. */
  readonly backends: readonly { readonly node: string; readonly addr: string; readonly nodePort: number }[];
}

export const PASSTHROUGH_TABLE = 'packetlab-lb';

/**
 * The `nft -f` input: the table declared, deleted and written whole (a transaction: the old rules stay until the new
 * ones are in). Frontends keep the order given.
 */
export function renderPassthrough(frontends: readonly PassthroughFrontend[]): string {
  const lines = [
    `table ip ${PASSTHROUGH_TABLE}`,
    `delete table ip ${PASSTHROUGH_TABLE}`,
    `table ip ${PASSTHROUGH_TABLE} {`,
    '\tchain prerouting {',
    '\t\ttype nat hook prerouting priority dstnat; policy accept;',
  ];
  const chains: string[] = [];
  for (const frontend of frontends) {
    const proto = frontend.protocol.toLowerCase();
    const match = `ip daddr ${frontend.addr} ${proto} dport ${frontend.port}`;
    const names = frontend.backends.map((backend) => `${frontend.id}-${backend.node}`);
    if (frontend.backends.length === 0) lines.push(`\t\t${match} drop`);
    else if (frontend.backends.length === 1) lines.push(`\t\t${match} jump ${names[0]}`);
    else {
      const arms = names.map((name, index) => `${index} : jump ${name}`).join(', ');
      lines.push(`\t\t${match} numgen random mod ${names.length} vmap { ${arms} }`);
    }
    frontend.backends.forEach((backend, index) => {
      chains.push(
        `\tchain ${names[index]} {`,
        `\t\tmeta l4proto ${proto} dnat to ${backend.addr}:${backend.nodePort}`,
        '\t}',
      );
    });
  }
  lines.push('\t}', ...chains, '}', '');
  return lines.join('\n');
}
