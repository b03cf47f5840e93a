// `ss` on both sides: the server's listener while it waits for its client, then after a TCP echo the client's
// TIME-WAIT (the server's side is gone) with numeric and named ports, timers (-o), details (-e), memory (-m), the
// summary (-s) and filter expressions with their errors; UDP through the socket a VXLAN device opens (the UDP step's
// sockets are closed once it ends).

import { describe, expect, it } from 'vitest';
import type { Normaliser } from './compare.ts';
import { differential, outputOf } from './harness.ts';
import { lesson, twoHosts } from './topologies.ts';

/**
 * What `ss -o/-e/-s` show that no two runs share: the time left on a timer (wall time on Linux), inode numbers and
 * socket cookies (machine-wide counters), -s's Total (the namespace's sockets, counting for a moment those of the
 * commands that just ran there, until RCU frees them), the cgroup (this machine has no cgroup2 mount: `cgroup:unreachable:1` and a
 * "Failed to find cgroup2 mount" per socket on stderr; packetlab prints `cgroup:/`), the padding those widths give,
 * and -s's machine-wide TCP socket count.
 */
const normaliseSsDetails: Normaliser = (label, text) => {
  if (!/: ss -\S*[oes]/.test(label)) return text;
  return text
    .replaceAll('Failed to find cgroup2 mount\n', '')
    .replace(/timer:\((\w+),[^,]+,/g, 'timer:($1,T,')
    .replace(/ ino:[1-9]\d*/g, ' ino:N')
    .replace(/ sk:[0-9a-f]+/g, ' sk:X')
    .replace(/ cgroup:\S+/g, ' cgroup:X')
    .replace(/^Total: \d+$/m, 'Total: N')
    .replace(/^TCP: {3}\d+ \(estab (\d+), closed \d+,/m, 'TCP:   N (estab $1, closed N,')
    .replace(/ +$/gm, '');
};

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
          { ns: 'b', argv: ['ss', '-tlm'] },
          { ns: 'b', argv: ['ss', '-tlne'] },
          { ns: 'b', argv: ['ss', '-tln', 'sport', '=', ':8080'] },
          { ns: 'b', argv: ['ss', '-s'] },
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
      .observe('a', 'ss', '-tno')
      .observe('a', 'ss', '-tne')
      .observe('a', 'ss', '-tnoe', 'state', 'time-wait')
      .observe('a', 'ss', '-tnm')
      .observe('a', 'ss', '-s')
      .observe('b', 'ss', '-s')
      .observe('a', 'ss', '-tan', 'dport', '=', ':8080')
      .observe('a', 'ss', '-tan', 'sport = :40002')
      .observe('a', 'ss', '-tan', 'dst', '10.0.0.0/24', 'and', 'not', 'dport', 'eq', '22')
      .observe('a', 'ss', '-tan', '(', 'sport', 'lt', ':40001', 'or', 'dport', '>=', ':ssh', ')')
      .observe('a', 'ss', '-tan', 'state', 'time-wait', 'src', '10.0.0.1:40000')
      .observe('a', 'ss', '-tan', 'sport', '!=', '40000', 'dst', '10.0.0.2')
      .observe('a', 'ss', '-tan', 'dst', '10.0.0.3', '||', 'sport', 'le', '40000')
      .observe('a', 'ss', '-tan', 'dport', '=', ':nosuchport')
      .observe('a', 'ss', '-tan', 'dst', '10.0.0.300')
      .observe('a', 'ss', '-tan', 'dst')
      .observe('a', 'ss', '-tan', '(', 'dport', '=', '22')
      .observe('a', 'ss', '-ta')
      .observe('a', 'ss', '-tanH')
      .observe('a', 'ss', '-tn', 'state', 'time-wait')
      .observe('a', 'ss', '-tn')
      .observe('a', 'ss', '-tuan')
      .observe('b', 'ss', '-tan')
      .observe('b', 'ss', '-tln')
      .build();
    const result = await differential(ctx, scenario, { normalise: [normaliseSsDetails] });
    if (result === undefined) return;
    expect(outputOf(result.linux, 'b: ss -tln')).toContain('LISTEN 0      511          0.0.0.0:8080');
    expect(outputOf(result.linux, 'a: ss -tnoe')).toContain(' timer:(timewait,');
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
      .observe('w2', 'ss', '-uanm')
      .observe('w2', 'ss', '-uane')
      .observe('diag', 'ss', '-uan')
      .build();
    const result = await differential(ctx, scenario, { normalise: [normaliseSsDetails] });
    if (result === undefined) return;
    expect(outputOf(result.linux, 'w1: ss -uan')).toContain('UNCONN 0      0            0.0.0.0:8472');
  });
});
