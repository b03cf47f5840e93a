// ss (the tool) on packetlab's sockets: the recorded output of iproute2 6.1.0 for every TCP state of a short exchange
// and bound and connected UDP sockets, a connection followed from listen() to the end of TIME-WAIT, the column rules,
// VXLAN's socket, what packetlab does not model, and bad command lines.

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import type { TcpSocket } from '../../src/socket/tcp/socket.ts';
import { exec, execOrThrow } from '../../src/tools/exec.ts';
import { ss } from '../../src/tools/ss.ts';
import { parseIpv4 } from '../../src/wire/address.ts';
import { twoHosts } from '../support/two-hosts.ts';
import { RECORDED } from './ss-fixtures.ts';
import { canonical, hasHeader, inSectionOrder, packetlabSockets } from './ss-sockets.ts';

const SECOND = 1_000_000_000;

const must = execOrThrow;

describe('ss against the recorded output of iproute2 6.1.0 (ss-fixtures.ts)', () => {
  let sockets: { a: Namespace; b: Namespace };
  beforeAll(() => {
    sockets = packetlabSockets();
  });

  it.each(RECORDED.map((run) => [run.ns, run.cmd, run] as const))('%s: %s', (ns, cmd, run) => {
    const ours = exec(sockets[ns], cmd);
    const options = { header: hasHeader(cmd) };
    expect(inSectionOrder(ours.stdout, options)).toBe(true);
    expect({ stdout: canonical(ours.stdout, options), stderr: ours.stderr, exitCode: ours.exitCode }).toEqual(
      {
        stdout: canonical(run.stdout, options),
        stderr: run.stderr,
        exitCode: run.exitCode,
      },
    );
  });
});

describe('a connection followed from listen() to the end of TIME-WAIT (ss -tan on both sides)', () => {
  const { sim, a, b } = twoHosts('ss-ladder');
  const encoder = new TextEncoder();
  let server: TcpSocket | undefined;
  let client: TcpSocket | undefined;
  const both = () => ({ a: exec(a, 'ss -tan').stdout, b: exec(b, 'ss -tan').stdout });

  const LISTEN = 'LISTEN 0      511          0.0.0.0:8080      0.0.0.0:*          \n';

  it('listen(): LISTEN with the backlog of a default listen()', () => {
    b.tcp.listen(0, 8080, (socket) => {
      server = socket;
      socket.onData = (s, data) => s.write(data);
    });
    expect(both()).toEqual({
      a: 'State Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
      b: `State  Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n${LISTEN}`,
    });
  });

  it('connect(): SYN-SENT with the SYN in Send-Q, before anything was delivered', () => {
    const connected = a.tcp.connect({ dst: parseIpv4('10.0.0.2')!, dstPort: 8080, srcPort: 40000 });
    if (!connected.ok) throw new Error(connected.error);
    client = connected.socket;
    expect(both().a).toBe(
      'State    Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\n' +
        'SYN-SENT 0      1           10.0.0.1:40000     10.0.0.2:8080       \n',
    );
  });

  it('the handshake: ESTAB on both sides', () => {
    sim.run(SECOND);
    expect(both()).toEqual({
      a:
        'State Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\n' +
        'ESTAB 0      0           10.0.0.1:40000     10.0.0.2:8080       \n',
      b:
        'State  Recv-Q Send-Q Local Address:Port Peer Address:Port Process\n' +
        'LISTEN 0      511          0.0.0.0:8080      0.0.0.0:*           \n' +
        'ESTAB  0      0           10.0.0.2:8080     10.0.0.1:40000       \n',
    });
  });

  it('write(): the bytes stay in Send-Q until acknowledged', () => {
    client!.write(encoder.encode('hello'));
    expect(both().a).toContain('ESTAB 0      5           10.0.0.1:40000');
    sim.run(SECOND);
    expect(both().a).toContain('ESTAB 0      0           10.0.0.1:40000');
  });

  it('end(): FIN-WAIT-1 with the FIN in Send-Q, then FIN-WAIT-2 and CLOSE-WAIT', () => {
    client!.end();
    expect(both().a).toContain('FIN-WAIT-1 0      1           10.0.0.1:40000');
    sim.run(SECOND);
    expect(both()).toEqual({
      a:
        'State      Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\n' +
        'FIN-WAIT-2 0      0           10.0.0.1:40000     10.0.0.2:8080       \n',
      b:
        'State      Recv-Q Send-Q Local Address:Port Peer Address:Port Process\n' +
        'LISTEN     0      511          0.0.0.0:8080      0.0.0.0:*           \n' +
        'CLOSE-WAIT 0      0           10.0.0.2:8080     10.0.0.1:40000       \n',
    });
  });

  it("the server's end(): LAST-ACK with its FIN in Send-Q, then TIME-WAIT on the client and nothing on the server", () => {
    server!.end();
    expect(both().b).toContain('LAST-ACK 0      1           10.0.0.2:8080     10.0.0.1:40000');
    sim.run(SECOND);
    expect(both()).toEqual({
      a:
        'State     Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\n' +
        'TIME-WAIT 0      0           10.0.0.1:40000     10.0.0.2:8080       \n',
      b: `State  Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n${LISTEN}`,
    });
    expect(exec(a, 'ss -tn').stdout).toBe(
      'State Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
    );
  });

  it('TIME-WAIT ends after 60 s', () => {
    sim.run(60 * SECOND);
    expect(both().a).toBe('State Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n');
  });
});

describe('ss columns and names', () => {
  it('prints the header alone when nothing matches, and nothing at all with -H', () => {
    const ns = new Simulation({ seed: 'ss-empty' }).addNamespace('x');
    expect(exec(ns, 'ss -tan')).toEqual({
      stdout: 'State Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
      stderr: '',
      exitCode: 0,
    });
    expect(exec(ns, 'ss -tuan').stdout).toBe(
      'Netid State Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
    );
    expect(exec(ns, 'ss -tanH')).toEqual({ stdout: '', stderr: '', exitCode: 0 });
  });

  it('names a port from /etc/services unless it lies in ip_local_port_range (is_ephemeral)', () => {
    const { b } = twoHosts('ss-names');
    b.tcp.listen(0, 8080, () => {});
    expect(exec(b, 'ss -tlH').stdout).toBe('LISTEN 0      511    0.0.0.0:http-alt 0.0.0.0:*\n');
    must(b, 'sysctl -w net.ipv4.ip_local_port_range="1024 9000"');
    expect(exec(b, 'ss -tlH').stdout).toBe('LISTEN 0      511    0.0.0.0:8080 0.0.0.0:*\n');
  });

  it("lists the UDP socket a VXLAN device opens when it comes up (vxlan_sock_add), as Linux's ss does", () => {
    const { a } = twoHosts('ss-vxlan');
    must(a, 'ip link add vxlan0 type vxlan id 1 local 10.0.0.1 dev eth0 dstport 8472');
    expect(exec(a, 'ss -uanH').stdout).toBe('');
    must(a, 'ip link set vxlan0 up');
    // Recorded on Linux 6.18 with the same commands.
    expect(exec(a, 'ss -uan').stdout).toBe(
      'State  Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n' +
        'UNCONN 0      0            0.0.0.0:8472      0.0.0.0:*          \n',
    );
    expect(exec(a, 'ss -uanH').stdout).toBe('UNCONN 0      0      0.0.0.0:8472 0.0.0.0:*\n');
  });
});

describe('what packetlab does not model', () => {
  const ns = new Simulation({ seed: 'ss-unsupported' }).addNamespace('x');

  it.each([
    ['ss -tp', 'option -p (processes)'],
    ['ss -tr', 'option -r (host names)'],
    ['ss --tos', 'option --tos'],
    ['ss -t dev eth0', 'filter "dev"'],
    ['ss -t fwmark 0x1', 'filter "fwmark"'],
    ['ss -t state listening autobound', 'filter "autobound"'],
    ['ss -t src [::1]', 'IPv6 addresses in filters'],
  ])('%s', (line, what) => {
    expect(exec(ns, line)).toEqual({
      stdout: '',
      stderr: `packetlab: ss ${what} is not supported\n`,
      exitCode: 1,
    });
  });
});

describe('ss never throws', () => {
  it('on any argument list', () => {
    const ns = new Simulation({ seed: 'ss-fuzz' }).addNamespace('x');
    const word = fc.oneof(
      fc.constantFrom(
        '-t',
        '-u',
        '-a',
        '-l',
        '-n',
        '-H',
        '-A',
        '-f',
        '--',
        'state',
        'exclude',
        'all',
        'inet',
      ),
      fc.string({ maxLength: 6 }).map((s) => `-${s}`),
      fc.string({ maxLength: 6 }).map((s) => `--${s}`),
      fc.string({ maxLength: 8 }),
    );
    fc.assert(
      fc.property(fc.array(word, { maxLength: 6 }), (args) => {
        const result = ss(ns, args);
        expect(typeof result.stdout).toBe('string');
      }),
    );
  });
});
