// nat statements that read their address (and port) from a map, on forwarded UDP: the element's data is the
// destination, a key not in the map leaves the packet alone.

import { describe, expect, it } from 'vitest';
import { type Lab, lab, nft, nftCounters, SEC, sendUdp } from './support.ts';

function format(addr: number): string {
  return [24, 16, 8, 0].map((shift) => (addr >>> shift) & 0xff).join('.');
}

/** What b's UDP port `port` received, as "src:sport > dst:dport". */
function server(l: Lab, port: number): string[] {
  const seen: string[] = [];
  l.b.udp.bind(0, port, (d) =>
    seen.push(`${format(d.srcAddr)}:${d.srcPort} > ${format(d.dstAddr)}:${d.dstPort}`),
  );
  return seen;
}

function natTable(body: string): string {
  return `table ip n {
  chain c {
    type nat hook prerouting priority dstnat; policy accept;
    ${body}
  }
}
`;
}

describe('dnat to a map', () => {
  it('rewrites the destination to the address the key maps to', () => {
    const l = lab('nft dnat map');
    nft(l.r, natTable('dnat to ip daddr map { 10.0.2.99 : 10.0.2.1, 10.0.2.98 : 10.0.4.1 }\n    counter'));
    const at53 = server(l, 53);
    sendUdp(l.a, '10.0.2.99', { dport: 53 });
    sendUdp(l.a, '10.0.2.98', { dport: 53, sport: 40001 });
    sendUdp(l.a, '10.0.2.1', { dport: 53, sport: 40002 });
    l.sim.run(SEC);
    expect(at53.sort()).toEqual([
      '10.0.1.1:40000 > 10.0.2.1:53',
      '10.0.1.1:40001 > 10.0.4.1:53',
      '10.0.1.1:40002 > 10.0.2.1:53',
    ]);
    // Only the miss reaches the next rule's counter.
    expect(nftCounters(l.r, 'counter')).toEqual(['1:32']);
  });

  it('takes address and port from `addr . port` data, and from a named map', () => {
    const l = lab('nft dnat map port');
    nft(
      l.r,
      `table ip n {
  map m {
    type ipv4_addr : ipv4_addr
    elements = { 10.0.2.97 : 10.0.2.1 }
  }
  chain c {
    type nat hook prerouting priority dstnat; policy accept;
    dnat to udp dport map { 5000 : 10.0.2.1 . 8080 }
    dnat to ip daddr map @m
    counter
  }
}
`,
    );
    const at8080 = server(l, 8080);
    const at7 = server(l, 7);
    sendUdp(l.a, '10.0.2.50', { dport: 5000 });
    sendUdp(l.a, '10.0.2.97', { dport: 7, sport: 40001 });
    l.sim.run(SEC);
    expect(at8080).toEqual(['10.0.1.1:40000 > 10.0.2.1:8080']);
    expect(at7).toEqual(['10.0.1.1:40001 > 10.0.2.1:7']);
    // Both were translated: neither reached the last rule.
    expect(nftCounters(l.r, 'counter')).toEqual(['0:0']);
  });
});
