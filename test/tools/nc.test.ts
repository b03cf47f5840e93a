// nc against the texts netcat-openbsd 1.219 prints on Debian 12 (checked live in two namespaces, 2026-12-01).

import { describe, expect, it } from 'vitest';
import { udpEcho } from '../../src/app/echo/udp-echo.ts';
import type { Namespace } from '../../src/netns/namespace.ts';
import { exec, spawn } from '../../src/tools/exec.ts';
import { NC_USAGE } from '../../src/tools/nc/options.ts';
import type { Capture } from '../../src/tools/tcpdump.ts';
import { parseIpv4 } from '../../src/wire/address.ts';
import { run, twoHosts } from '../app/lab.ts';
import { twoHosts as hostsWithLoopback } from '../support/two-hosts.ts';

function background(ns: Namespace, line: string): Capture {
  const handle = spawn(ns, line);
  if (!('stop' in handle)) throw new Error(handle.stderr);
  return handle;
}

const fail = (stderr: string) => ({ stdout: '', stderr, exitCode: 1 });

describe('nc: the command line', () => {
  const { a } = twoHosts('nc');
  it.each([
    ['nc', NC_USAGE],
    ['nc 10.0.0.2', 'nc: missing port number\n'],
    ['nc -l', 'nc: missing port number\n'],
    ['nc -w', `nc: option requires an argument -- 'w'\n${NC_USAGE}`],
    ['nc -Y 10.0.0.2 80', `nc: invalid option -- 'Y'\n${NC_USAGE}`],
    ['nc -z -l 8000', 'nc: cannot use -z and -l\n'],
    ['nc -k 10.0.0.2 80', 'nc: must use -l with -k\n'],
    ['nc -w abc 10.0.0.2 80', 'nc: timeout invalid: abc\n'],
    ['nc -w -1 10.0.0.2 80', 'nc: timeout too small: -1\n'],
    ['nc -w 2147484 10.0.0.2 80', 'nc: timeout too large: 2147484\n'],
    ['nc 10.0.0.2 99999', 'nc: port number too large: 99999\n'],
    ['nc 10.0.0.2 0', 'nc: port number too small: 0\n'],
    ['nc 10.0.0.2 foo', 'nc: port number invalid: foo\n'],
    ['nc -zv 10.0.0.2 a-b', 'nc: port number invalid: a-b\n'],
    ['nc -l 8000 -p 9000', NC_USAGE],
    ['nc -l 10.0.0.2 8000 extra', NC_USAGE],
    ['nc -q abc 10.0.0.2 80', 'nc: quit timer invalid: abc\n'],
    ['nc -X 7 10.0.0.2 80', 'nc: unsupported proxy protocol\n'],
    ['nc -V 1 10.0.0.2 80', 'nc: no alternate routing table support available\n'],
    ['nc -n host.name 80', 'nc: getaddrinfo for host "host.name" port 80: Name or service not known\n'],
    ['nc badhost 80', 'nc: getaddrinfo for host "badhost" port 80: Temporary failure in name resolution\n'],
    ['nc -p abc 10.0.0.2 80', 'nc: getaddrinfo: Servname not supported for ai_socktype\n'],
    ['nc -zv -s 10.0.0.9 10.0.0.2 80', 'nc: bind failed: Cannot assign requested address\n'],
    ['nc -l abc', 'nc: getaddrinfo: Servname not supported for ai_socktype\n'],
    ['nc -lvn 10.0.0.9 8000', 'nc: Cannot assign requested address\n'],
    ['nc -l 1.2.3.4.5 80', 'nc: getaddrinfo: Temporary failure in name resolution\n'],
  ])('%s', (line, stderr) => {
    expect(exec(a, line)).toEqual(fail(stderr));
  });

  it('-h prints the banner, usage and summary on stderr, exit 0', () => {
    const help = exec(a, 'nc -h');
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toBe('');
    expect(
      help.stderr.startsWith(`OpenBSD netcat (Debian patchlevel 1.219-1)\n${NC_USAGE}\tCommand Summary:\n`),
    ).toBe(true);
    expect(help.stderr.endsWith('\tPort numbers can be individual or ranges: lo-hi [inclusive]\n')).toBe(
      true,
    );
  });

  it('options it does not model are named', () => {
    expect(exec(a, 'nc -x 10.0.0.9:1080 10.0.0.2 80')).toEqual(fail('packetlab: nc -x is not supported\n'));
    expect(exec(a, 'nc -X connect -x 10.0.0.9 10.0.0.2 80')).toEqual(
      fail('packetlab: nc -X is not supported\n'),
    );
    expect(exec(a, 'nc -6 ::1 80')).toEqual(fail('packetlab: nc -6 is not supported\n'));
    expect(exec(a, 'nc -u')).toEqual(fail(NC_USAGE));
  });
});

describe('nc -z: port probes', () => {
  it('refused, silent without -v, exit 1; a range tries each port in order', () => {
    const { a } = twoHosts('nc');
    expect(exec(a, 'nc -z 10.0.0.2 8000')).toEqual(fail(''));
    expect(exec(a, 'nc -zv 10.0.0.2 8002-8000')).toEqual(
      fail(
        'nc: connect to 10.0.0.2 port 8000 (tcp) failed: Connection refused\n' +
          'nc: connect to 10.0.0.2 port 8001 (tcp) failed: Connection refused\n' +
          'nc: connect to 10.0.0.2 port 8002 (tcp) failed: Connection refused\n',
      ),
    );
  });

  it('open: succeeded, with the service name unless -n; exit 0 once any port connected', () => {
    const { a, b } = twoHosts('nc');
    const web = background(b, 'nc -lk 80');
    const other = background(b, 'nc -lk 8001');
    expect(exec(a, 'nc -zv 10.0.0.2 80')).toEqual({
      stdout: '',
      stderr: 'Connection to 10.0.0.2 80 port [tcp/http] succeeded!\n',
      exitCode: 0,
    });
    expect(exec(a, 'nc -zvn 10.0.0.2 http').stderr).toBe(
      'Connection to 10.0.0.2 80 port [tcp/*] succeeded!\n',
    );
    expect(exec(a, 'nc -zv 10.0.0.2 8000-8001')).toEqual({
      stdout: '',
      stderr:
        'nc: connect to 10.0.0.2 port 8000 (tcp) failed: Connection refused\n' +
        'Connection to 10.0.0.2 8001 port [tcp/*] succeeded!\n',
      exitCode: 0,
    });
    expect(web.stop().stdout).toBe('');
    other.stop();
  });

  it('-w: a SYN nobody answers times out after exactly that long; its retransmission due then is not sent', () => {
    const { a, b, sim } = twoHosts('nc');
    run(b, 'nft add table inet probe');
    run(b, "nft add chain inet probe in '{ type filter hook input priority 0; }'");
    run(b, 'nft add rule inet probe in tcp dport 9 drop');
    const capture = background(a, 'tcpdump -nn -i eth0 tcp');
    let start = sim.scheduler.now;
    expect(exec(a, 'nc -zv -w 1 10.0.0.2 9')).toEqual(
      fail('nc: connect to 10.0.0.2 port 9 (tcp) timed out: Operation now in progress\n'),
    );
    expect(sim.scheduler.now - start).toBe(1e9);
    sim.run(5e9);
    // The RTO (1 s) and nc's timeout fall on the same instant; Linux races them, packetlab lets nc win.
    expect(capture.stop().stdout.trim().split('\n')).toHaveLength(1);
    start = sim.scheduler.now;
    const again = background(a, 'tcpdump -nn -i eth0 tcp');
    expect(exec(a, 'nc -z -w 2 10.0.0.2 9')).toEqual(fail(''));
    expect(sim.scheduler.now - start).toBe(2e9);
    sim.run(5e9);
    expect(again.stop().stdout.trim().split('\n')).toHaveLength(2);
  });

  it('without -w the kernel gives up on the SYN: Connection timed out', () => {
    const { a, b, sim } = twoHosts('nc');
    run(b, 'nft add table inet probe');
    run(b, "nft add chain inet probe in '{ type filter hook input priority 0; }'");
    run(b, 'nft add rule inet probe in tcp dport 9 drop');
    const start = sim.scheduler.now;
    expect(exec(a, 'nc -zv 10.0.0.2 9')).toEqual(
      fail('nc: connect to 10.0.0.2 port 9 (tcp) failed: Connection timed out\n'),
    );
    // tcp_syn_retries (6) + tcp_syn_linear_timeouts (4) retransmissions: five 1 s apart, then doubling, and the
    // eleventh timeout gives up at 131 s. Linux 6.18 took 135.0 s here (HZ=250: each second is 1.02 s, and long
    // timers fire late), with the same ten SYN retransmissions.
    expect((sim.scheduler.now - start) / 1e9).toBeCloseTo(131, 1);
  });

  it('an absent on-link address: the failed ARP comes back as host unreachable, No route to host at 3 s', () => {
    const { a, sim } = hostsWithLoopback('nc', { loopback: true });
    const capture = background(a, 'tcpdump -nn -i any');
    const start = sim.scheduler.now;
    expect(exec(a, 'nc -zv -w 5 10.0.0.9 8000')).toEqual(
      fail('nc: connect to 10.0.0.9 port 8000 (tcp) failed: No route to host\n'),
    );
    expect(sim.scheduler.now - start).toBe(3e9);
    sim.run(5e9);
    // Linux 6.18: three probes, one ICMP over lo (the one SYN held in the arp_queue), the entry FAILED; the
    // RTOs at 1, 2 and 3 s found the SYN still queued (TcpExtTCPSpuriousRtxHostQueues 3, TcpRetransSegs 0).
    expect(capture.stop().stdout).toBe(
      [
        '00:00:00.000000 eth0  Out ARP, Request who-has 10.0.0.9 tell 10.0.0.1, length 28',
        '00:00:01.000000 eth0  Out ARP, Request who-has 10.0.0.9 tell 10.0.0.1, length 28',
        '00:00:02.000000 eth0  Out ARP, Request who-has 10.0.0.9 tell 10.0.0.1, length 28',
        '00:00:03.000000 lo    In  IP 10.0.0.1 > 10.0.0.1: ICMP host 10.0.0.9 unreachable, length 68',
        '',
      ].join('\n'),
    );
    expect(exec(a, 'ip neigh').stdout).toBe('10.0.0.9 dev eth0 FAILED \n');
    const nstat = exec(
      a,
      'nstat -a TcpOutSegs TcpRetransSegs TcpExtTCPSpuriousRtxHostQueues IcmpOutMsgs',
    ).stdout;
    expect(
      nstat
        .split('\n')
        .slice(1, -1)
        .map((line) => line.split(/ +/).slice(0, 2).join(' ')),
    ).toEqual(['IcmpOutMsgs 1', 'TcpOutSegs 1', 'TcpExtTCPSpuriousRtxHostQueues 3']);
  });

  it('an absent on-link address with lo down: the host unreachable is lost on lo, nc times out (-w 5)', () => {
    // Linux 6.18 in a fresh namespace (lo down) printed the same after 5.0 s.
    const { a, sim } = twoHosts('nc');
    const start = sim.scheduler.now;
    expect(exec(a, 'nc -zv -w 5 10.0.0.9 8000')).toEqual(
      fail('nc: connect to 10.0.0.9 port 8000 (tcp) timed out: Operation now in progress\n'),
    );
    expect(sim.scheduler.now - start).toBe(5e9);
  });

  it('UDP to an absent on-link address: the host unreachable is not fatal, nc waits out -w 5', () => {
    // Linux 6.18 (strace): the write succeeds, the ICMP arrives over lo at 3 s, poll times out at 5 s, exit 0;
    // __udp4_lib_err does not set sk_err for a non-fatal code without IP_RECVERR.
    const { a, sim } = hostsWithLoopback('nc', { loopback: true });
    const start = sim.scheduler.now;
    expect(exec(a, 'nc -u -w 5 10.0.0.9 9000', { stdin: 'hi\n' })).toEqual({
      stdout: '',
      stderr: '',
      exitCode: 0,
    });
    expect(sim.scheduler.now - start).toBe(5e9);
    expect(a.ipv4.icmp.stats.inMsgs).toBe(1);
  });

  it('no route: Network is unreachable at once', () => {
    const { a } = twoHosts('nc');
    expect(exec(a, 'nc -zv 10.9.0.9 80')).toEqual(
      fail('nc: connect to 10.9.0.9 port 80 (tcp) failed: Network is unreachable\n'),
    );
  });

  it('-p: a local port in use is a bind failure', () => {
    const { a, b } = twoHosts('nc');
    const server = background(b, 'nc -l 8000');
    const holder = background(a, 'nc -l 40000');
    expect(exec(a, 'nc -z -p 40000 10.0.0.2 8000')).toEqual(
      fail('nc: bind failed: Address already in use\n'),
    );
    holder.stop();
    server.stop();
  });
});

describe('nc over TCP', () => {
  it('-N sends stdin and its EOF; the listener prints it and exits when the client closes', () => {
    const { a, b, sim } = twoHosts('nc');
    const server = background(b, 'nc -lvn 8000');
    expect(exec(a, 'nc -N -p 40000 10.0.0.2 8000', { stdin: 'hello\n' })).toEqual({
      stdout: '',
      stderr: '',
      exitCode: 0,
    });
    sim.run(1e9);
    expect(server.done).toBe(true);
    expect(server.stop()).toEqual({
      stdout: 'hello\n',
      stderr: 'Listening on 0.0.0.0 8000\nConnection received on 10.0.0.1 40000\n',
      exitCode: 0,
    });
  });

  it('-k serves one connection after the other; without -n the names cannot be looked up', () => {
    const { a, b } = twoHosts('nc');
    const server = background(b, 'nc -lkv 8000');
    exec(a, 'nc -N 10.0.0.2 8000', { stdin: 'one\n' });
    exec(a, 'nc -N 10.0.0.2 8000', { stdin: 'two\n' });
    expect(server.done).toBe(false);
    expect(server.stop()).toEqual({
      stdout: 'one\ntwo\n',
      stderr: 'nc: getnameinfo: Temporary failure in name resolution\n'.repeat(3),
      exitCode: 0,
    });
  });

  it('-q 1 closes after EOF on stdin and exits a second later; -w 1 waits that long for the peer', () => {
    const { a, b, sim } = twoHosts('nc');
    const server = background(b, 'nc -lk 8000');
    let start = sim.scheduler.now;
    expect(exec(a, 'nc -q 1 10.0.0.2 8000', { stdin: 'hi\n' }).exitCode).toBe(0);
    expect(sim.scheduler.now - start).toBe(1e9);
    start = sim.scheduler.now;
    expect(exec(a, 'nc -w 1 10.0.0.2 8000', { stdin: 'again\n' })).toEqual({
      stdout: '',
      stderr: '',
      exitCode: 0,
    });
    expect(sim.scheduler.now - start).toBe(1e9);
    expect(server.stop().stdout).toBe('hi\nagain\n');
  });

  it('stop() closes the connection being served with a FIN, as a killed nc does', () => {
    const { a, b, sim } = twoHosts('nc');
    const server = background(b, 'nc -l 8000');
    const connected = a.tcp.connect({ dst: parseIpv4('10.0.0.2')!, dstPort: 8000 });
    if (!connected.ok) throw new Error(connected.error);
    const events: string[] = [];
    connected.socket.onEnd = () => events.push('end');
    connected.socket.onClose = (_s, error) => events.push(`close ${error ?? ''}`);
    connected.socket.onConnect = (s) => s.write(new TextEncoder().encode('partial'));
    sim.run(1e9);
    expect(server.stop().stdout).toBe('partial');
    sim.run(1e9);
    expect(events).toEqual(['end']);
  });

  it("prints what the peer sends until the peer's FIN", () => {
    const { a, b } = twoHosts('nc');
    const listener = b.tcp.listen(0, 8000, (socket) => {
      socket.onData = (s, data) => {
        s.write(data);
        s.end();
      };
    });
    expect(listener).not.toBe('EADDRINUSE');
    expect(exec(a, 'nc 10.0.0.2 8000', { stdin: 'echo me\n' })).toEqual({
      stdout: 'echo me\n',
      stderr: '',
      exitCode: 0,
    });
  });
});

describe('nc -u', () => {
  it('sends stdin as one datagram and prints the answer; -v first probes with X bytes', () => {
    const { a, b, sim } = twoHosts('nc');
    const server = background(b, 'nc -lun 9000');
    const start = sim.scheduler.now;
    expect(exec(a, 'nc -uv -w 1 10.0.0.2 9000', { stdin: 'hello\n' })).toEqual({
      stdout: '',
      stderr: 'Connection to 10.0.0.2 9000 port [udp/*] succeeded!\n',
      exitCode: 0,
    });
    // udptest: two writes, one more after each second of -w; then readwrite waits -w again.
    expect(sim.scheduler.now - start).toBe(2e9);
    expect(server.stop().stdout).toBe('XXXhello\n');
  });

  it('an echo server answers within -w', () => {
    const { a, b } = twoHosts('nc');
    udpEcho(b, { port: 7 });
    expect(exec(a, 'nc -u -w 1 10.0.0.2 7', { stdin: 'ping\n' })).toEqual({
      stdout: 'ping\n',
      stderr: '',
      exitCode: 0,
    });
  });

  it('a closed port: the ICMP error ends nc at once (exit 0); with -v the probe fails (exit 1); -z alone succeeds', () => {
    const { a, sim } = twoHosts('nc');
    const start = sim.scheduler.now;
    expect(exec(a, 'nc -u -w 1 10.0.0.2 9000', { stdin: 'hello\n' })).toEqual({
      stdout: '',
      stderr: '',
      exitCode: 0,
    });
    expect(sim.scheduler.now).toBe(start);
    expect(exec(a, 'nc -zuv -w 1 10.0.0.2 9000')).toEqual(fail(''));
    expect(exec(a, 'nc -zu -w 1 10.0.0.2 9000')).toEqual({ stdout: '', stderr: '', exitCode: 0 });
  });

  it('a UDP listener connects to its first caller; with -k it hears everyone', () => {
    const { a, b, sim } = twoHosts('nc');
    // nc -q 0 leaves as soon as it sent: the datagram arrives when the simulation runs on.
    const send = (port: number, text: string): void => {
      exec(a, `nc -u -q 0 -p ${port} 10.0.0.2 9000`, { stdin: text });
      sim.run(1e6);
    };
    const single = background(b, 'nc -luvn 9000');
    send(40001, 'one\n');
    send(40002, 'two\n');
    send(40001, 'three\n');
    expect(single.stop()).toEqual({
      stdout: 'one\nthree\n',
      stderr: 'Bound on 0.0.0.0 9000\nConnection received on 10.0.0.1 40001\n',
      exitCode: 0,
    });
    const every = background(b, 'nc -lukvn 9000');
    send(40001, 'one\n');
    send(40002, 'two\n');
    expect(every.stop()).toEqual({ stdout: 'one\ntwo\n', stderr: 'Bound on 0.0.0.0 9000\n', exitCode: 0 });
  });

  it('a UDP listener with -w exits once its caller was quiet that long', () => {
    const { a, b, sim } = twoHosts('nc');
    const server = background(b, 'nc -lu -w 2 9000');
    exec(a, 'nc -u -q 0 10.0.0.2 9000', { stdin: 'one\n' });
    sim.run(1.5e9);
    expect(server.done).toBe(false);
    sim.run(1e9);
    expect(server.done).toBe(true);
    expect(server.stop().stdout).toBe('one\n');
    expect(b.udp.isBound(9000)).toBe(false);
  });

  it('a port already bound cannot be listened on (no SO_REUSEPORT sharing)', () => {
    const { b } = twoHosts('nc');
    const first = background(b, 'nc -lu 9000');
    expect(spawn(b, 'nc -lu 9000')).toEqual(fail('nc: Address already in use\n'));
    first.stop();
    expect(spawn(b, 'nc 10.0.0.1 80')).toMatchObject({ exitCode: 2 });
  });
});
