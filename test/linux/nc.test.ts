// `nc` (netcat-openbsd 1.219) on both sides: port probes refused, timed out and unroutable, UDP to a closed port,
// and the argument errors, compared line by line with their exit codes and the frames they send.

import { describe, expect, it } from 'vitest';
import { differential, outputOf } from './harness.ts';
import { twoHosts } from './topologies.ts';

describe('differential: nc', () => {
  it('probes: refused, timed out (-w), no route; UDP to a closed port; bad arguments', async (ctx) => {
    const scenario = twoHosts('nc')
      .command('b', ['nft', 'add', 'table', 'inet', 'probe'])
      .command('b', ['nft', 'add', 'chain', 'inet', 'probe', 'in', '{ type filter hook input priority 0; }'])
      .command('b', ['nft', 'add', 'rule', 'inet', 'probe', 'in', 'tcp', 'dport', '9', 'drop'])
      .capture('a', 'veth-a')
      .act('a', 'nc', '-zv', '10.0.0.2', '8000')
      .act('a', 'nc', '-z', '10.0.0.2', '8000-8002')
      .act('a', 'nc', '-zvn', '10.0.0.2', '80')
      // -w 2: the SYN is retransmitted after 1 s and nc gives up before the next (at 3 s). At -w 1 the
      // retransmission and nc's timeout race on Linux (both at 1 s): either capture happens.
      .act('a', 'nc', '-zv', '-w', '2', '10.0.0.2', '9')
      .act('a', 'nc', '-zv', '10.9.0.9', '80')
      .act('a', 'nc', '-u', '-w', '1', '10.0.0.2', '9000')
      .act('a', 'nc', '-zuv', '-w', '1', '10.0.0.2', '9000')
      .act('a', 'nc', '-zu', '-w', '1', '10.0.0.2', '9000')
      .act('a', 'nc', '-zv', '-s', '10.0.0.9', '10.0.0.2', '80')
      .act('a', 'nc', '10.0.0.2')
      .act('a', 'nc', '-w', 'x', '10.0.0.2', '80')
      .act('a', 'nc', '10.0.0.2', '99999')
      .act('a', 'nc', '-Y', '10.0.0.2', '80')
      .act('a', 'nc', '-k', '10.0.0.2', '80')
      .build();
    // The client's ephemeral ports (connect()'s, and the UDP socket's implicit bind) differ run to run.
    const result = await differential(ctx, scenario, { natPorts: [80, 9, 8000, 8001, 8002, 9000] });
    if (result === undefined) return;
    expect(outputOf(result.linux, 'a: nc -zv 10.0.0.2 8000')).toContain(
      'nc: connect to 10.0.0.2 port 8000 (tcp) failed: Connection refused',
    );
    expect(outputOf(result.linux, 'a: nc -zv -w 2')).toContain('timed out: Operation now in progress');
  });

  it('an absent on-link address: three ARP probes, then No route to host (ipv4_link_failure)', async (ctx) => {
    // The neighbour fails after 3 s; the SYN waiting on it comes back as a local ICMP host unreachable, which
    // tcp_v4_err makes fatal for the connecting socket, well before nc's -w 5.
    const scenario = twoHosts('ncarp')
      .capture('a', 'veth-a')
      .act('a', 'nc', '-zv', '-w', '5', '10.0.0.9', '8000')
      .observe('a', 'ip', 'neigh')
      .build();
    const result = await differential(ctx, scenario, { natPorts: [8000] });
    if (result === undefined) return;
    expect(outputOf(result.linux, 'a: nc -zv -w 5 10.0.0.9')).toContain(
      'nc: connect to 10.0.0.9 port 8000 (tcp) failed: No route to host',
    );
  });

  it('nc -N sends stdin over TCP to an echo server and prints the echo until its FIN', async (ctx) => {
    // The step's server accepts one connection: nc's, made while it listens. The step's own client
    // then finds the port closed, on both sides. No capture: on Linux nc's FIN (its next poll round)
    // and the echo server's ACK and reply race, so the frames' order differs from run to run.
    const scenario = twoHosts('nctcp')
      .tcp({
        client: { ns: 'a', bind: '10.0.0.1', port: 40000 },
        server: { ns: 'b', bind: '0.0.0.0', port: 8080 },
        dst: '10.0.0.2',
        whileListening: [{ ns: 'a', argv: ['nc', '-N', '10.0.0.2', '8080'], stdin: 'hello\n' }],
      })
      .build();
    const result = await differential(ctx, scenario, { natPorts: [8080, 40000] });
    if (result === undefined) return;
    expect(outputOf(result.linux, 'a: nc -N')).toBe('hello\n');
  });
});
