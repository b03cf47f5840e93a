// curl's output as Debian 12's curl 7.88.1 prints it. The curl-side lines (`*`, `>`, errors, exit codes, -w
// values) were recorded by running the real curl in a throw-away namespace pair against a small server on the
// kernel (10.0.0.1 → 10.0.0.2), then replayed here; elapsed times are packetlab's virtual ones (real curl showed
// 1001 ms where packetlab's clock says exactly 1000).

import { describe, expect, it } from 'vitest';
import { latin1Bytes } from '../../src/app/http/message.ts';
import { httpServer } from '../../src/app/http/server.ts';
import type { Namespace } from '../../src/netns/namespace.ts';
import type { TcpSocket } from '../../src/socket/tcp/socket.ts';
import { exec } from '../../src/tools/exec.ts';
import { twoHosts } from '../app/http/topology.ts';

/** A raw server on b:port that reacts to the first bytes of each connection. */
function rawServer(b: Namespace, port: number, onRequest: (socket: TcpSocket) => void): void {
  const listener = b.tcp.listen(0, port, (socket) => {
    socket.onData = (s) => onRequest(s);
  });
  if (listener === 'EADDRINUSE') throw new Error('port taken');
}

function lab() {
  const hosts = twoHosts('curl');
  const { b } = hosts;
  const server = httpServer(b, {
    port: 8000,
    routes: {
      '/sante': { body: 'ok\n', health: true },
      '/flux': { body: 'abcde', chunked: true, chunkBytes: 3 },
      '/rapport': { bodyBytes: 5000 },
      '/lent': { body: 'late\n', delayMs: 1500 },
    },
  });
  rawServer(b, 8010, (s) => s.end()); // empty reply
  rawServer(b, 8011, (s) => s.abort()); // reset
  rawServer(b, 8012, () => {}); // never answers
  rawServer(b, 8013, (s) => s.write(latin1Bytes('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc'))); // slow
  rawServer(b, 8014, (s) =>
    s.write(latin1Bytes('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n')),
  );
  rawServer(b, 8015, (s) => {
    s.write(latin1Bytes('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'));
    s.end();
  });
  rawServer(b, 8016, (s) => {
    s.write(latin1Bytes('garbage\r\n\r\n'));
    s.end();
  });
  return { ...hosts, server };
}

const HEAD_200 = (date: string, length: number, type = 'text/plain; charset=utf-8') =>
  `HTTP/1.1 200 OK\r\nDate: ${date}\r\nContent-Length: ${length}\r\nContent-Type: ${type}\r\n\r\n`;
const DATE0 = 'Thu, 01 Jan 1970 00:00:00 GMT';
const REQUEST = (path: string, host = '10.0.0.2:8000', method = 'GET') =>
  `> ${method} ${path} HTTP/1.1\r\n> Host: ${host}\r\n> User-Agent: curl/7.88.1\r\n> Accept: */*\r\n> \r\n`;

describe('curl transfers', () => {
  it('prints the body, and with -v the connect, request and response lines', () => {
    const { a } = lab();
    const result = exec(a, 'curl -sv http://10.0.0.2:8000/sante');
    expect(result).toEqual({
      exitCode: 0,
      stdout: 'ok\n',
      stderr:
        '*   Trying 10.0.0.2:8000...\n' +
        '* Connected to 10.0.0.2 (10.0.0.2) port 8000 (#0)\n' +
        REQUEST('/sante') +
        `< HTTP/1.1 200 OK\r\n< Date: ${DATE0}\r\n< Content-Length: 3\r\n< Content-Type: text/plain; charset=utf-8\r\n< \r\n` +
        '{ [3 bytes data]\n' +
        '* Connection #0 to host 10.0.0.2 left intact\n',
    });
  });

  it('fills every -w variable the lesson uses', () => {
    const { a } = lab();
    const result = exec(
      a,
      `curl -s -o /dev/null -w '%{http_code} %{remote_ip} %{remote_port} %{local_ip} %{local_port} %{time_total} %{time_connect} %{time_starttransfer} %{size_download} %{size_header} %{num_connects} %{exitcode} %{errormsg} %{url_effective} %{content_type}\\n' http://10.0.0.2:8000/sante`,
    );
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
    const [code, rip, rport, lip, lport, total, connect, start, size, header, connects, exit, ...rest] =
      result.stdout.trimEnd().split(' ');
    expect([code, rip, rport, lip, exit, connects, size]).toEqual([
      '200',
      '10.0.0.2',
      '8000',
      '10.0.0.1',
      '0',
      '1',
      '3',
    ]);
    expect(Number(lport)).toBeGreaterThanOrEqual(32768);
    expect(Number(lport) % 2).toBe(0);
    // Zero-latency links: the whole exchange happens at one virtual instant.
    expect([total, connect, start]).toEqual(['0.000000', '0.000000', '0.000000']);
    expect(Number(header)).toBe(HEAD_200(DATE0, 3).length);
    // An empty %{errormsg}, then the URL and the type.
    expect(rest).toEqual(['', 'http://10.0.0.2:8000/sante', 'text/plain;', 'charset=utf-8']);
  });

  it('measures time in virtual seconds', () => {
    const { a } = lab();
    const result = exec(a, `curl -s -w '%{time_total} %{time_starttransfer}\\n' http://10.0.0.2:8000/lent`);
    expect(result.stdout).toBe('late\n1.500000 1.500000\n');
  });

  it('prints the head with -i and only the head with -I (a HEAD request)', () => {
    const { a } = lab();
    expect(exec(a, 'curl -s -i http://10.0.0.2:8000/flux').stdout).toBe(
      `HTTP/1.1 200 OK\r\nDate: ${DATE0}\r\nContent-Type: text/plain; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\nabcde`,
    );
    const head = exec(a, 'curl -sv -I http://10.0.0.2:8000/sante');
    expect(head.stdout).toBe(HEAD_200(DATE0, 3));
    expect(head.stderr).toContain(REQUEST('/sante', '10.0.0.2:8000', 'HEAD'));
  });

  it('shows the first read after the head of a flushed chunked body as one data line', () => {
    const { a } = lab();
    const result = exec(a, 'curl -sv http://10.0.0.2:8000/flux');
    expect(result.stdout).toBe('abcde');
    // The handler flushed after `abc`: the head's segment carries 3\r\nabc\r\n (8 bytes), and curl shows only
    // that first read (the next, 2\r\nde\r\n0\r\n\r\n, leaves in its own segment as Go's TCP_NODELAY sends it).
    expect(result.stderr).toContain('< \r\n{ [8 bytes data]\n* Connection #0 to host 10.0.0.2 left intact\n');
  });

  it('shows only the first read of a body that arrives in several segments (tool_debug_cb traced_data)', () => {
    const { a } = lab();
    const result = exec(a, 'curl -sv -o /dev/null http://10.0.0.2:8000/rapport');
    // Real curl against Go printed `{ [3971 bytes data]` or `{ [5013 bytes data]` for a 5000-byte chunked body:
    // one line whatever the reads, never one per read.
    expect(result.stderr.match(/bytes data/g)).toHaveLength(1);
    expect(result.stderr).toMatch(
      /< \r\n\{ \[\d+ bytes data\]\n\* Connection #0 to host 10\.0\.0\.2 left intact\n$/,
    );
  });

  it('runs several URLs serially on one kept-alive connection, as curl 7.88.1 does against Go', () => {
    const { a } = lab();
    const result = exec(
      a,
      "curl -sv -w '%{http_code} %{num_connects}\\n' http://10.0.0.2:8000/sante http://10.0.0.2:8000/sante",
    );
    expect(result.exitCode).toBe(0);
    // -w after each transfer; the second opened no connection.
    expect(result.stdout).toBe('ok\n200 1\nok\n200 0\n');
    expect(result.stderr).toContain(
      '* Connection #0 to host 10.0.0.2 left intact\n* Found bundle for host: 0x55d5c0de2a40 [serially]\n' +
        '* Can not multiplex, even if we wanted to\n* Re-using existing connection #0 with host 10.0.0.2\n> GET /sante',
    );
    expect(result.stderr.match(/Trying/g)).toHaveLength(1);
    // curl exits: the kept connection closes (no socket of a's left established).
    expect(exec(a, 'ss -tnH state established').stdout).toBe('');
  });

  it('-o names the first URL only; another port gets connection #1', () => {
    const { sim, a } = lab();
    const result = exec(
      a,
      'curl -s -o /first http://10.0.0.2:8000/sante http://10.0.0.2:8010/ http://10.0.0.2:8000/sante',
    );
    expect(new TextDecoder().decode(sim.files.get('/first'))).toBe('ok\n');
    // The empty reply of 8010 fails (52); the last URL's transfer decides the status.
    expect(result).toMatchObject({ stdout: 'ok\n', exitCode: 0 });
    const verbose = exec(a, 'curl -v -o /dev/null -s http://10.0.0.2:8000/sante http://10.0.0.2:8010/');
    expect(verbose.stderr).toContain('* Connected to 10.0.0.2 (10.0.0.2) port 8010 (#1)\n');
    expect(verbose.exitCode).toBe(52);
  });

  it('writes -o files into the simulation and /dev/null nowhere', () => {
    const { sim, a } = lab();
    expect(exec(a, 'curl -s -o /tmp/rapport http://10.0.0.2:8000/rapport').stdout).toBe('');
    expect(sim.files.get('/tmp/rapport')?.length).toBe(5000);
    expect(exec(a, 'curl -s -o /dev/null -w "%{size_download}\\n" http://10.0.0.2:8000/rapport').stdout).toBe(
      '5000\n',
    );
  });

  it('sends -d as a form POST and -H fields after the defaults, replacing or removing them', () => {
    const { a, b } = lab();
    let request = '';
    const listener = b.tcp.listen(0, 8020, (socket) => {
      socket.onData = (s, data) => {
        request += new TextDecoder().decode(data);
        s.write(latin1Bytes('HTTP/1.1 204 No Content\r\n\r\n'));
      };
    });
    expect(listener).not.toBe('EADDRINUSE');
    const result = exec(
      a,
      `curl -sv -d 'a=1' -d 'b=2' -H 'Host: web' -H 'User-Agent: lb' -H 'Accept:' -H 'X-A: 1' http://10.0.0.2:8020/form`,
    );
    expect(result.exitCode).toBe(0);
    expect(request).toBe(
      'POST /form HTTP/1.1\r\nHost: web\r\nUser-Agent: lb\r\nX-A: 1\r\nContent-Length: 7\r\n' +
        'Content-Type: application/x-www-form-urlencoded\r\n\r\na=1&b=2',
    );
    expect(result.stderr).toContain('> \r\n} [7 bytes data]\n< HTTP/1.1 204 No Content\r\n');
    expect(exec(a, 'curl -s -X PUT -w "%{method}" http://10.0.0.2:8020/x').stdout).toBe('PUT');
  });

  it('prints the status with -f and fails with 22 on an HTTP error', () => {
    const { a, server } = lab();
    server.setHealthy(false);
    expect(exec(a, 'curl -sS -f -w "%{http_code}\\n" http://10.0.0.2:8000/sante')).toEqual({
      exitCode: 22,
      stdout: '503\n',
      stderr: 'curl: (22) The requested URL returned error: 503\n',
    });
    expect(exec(a, 'curl -s http://10.0.0.2:8000/sante')).toEqual({
      exitCode: 0,
      stdout: 'Service Unavailable\n',
      stderr: '',
    });
  });

  it('resolves names only through --resolve', () => {
    const { a } = lab();
    const result = exec(
      a,
      `curl -sv --resolve web:8000:10.0.0.2 -w '%{remote_ip} %{url_effective}\\n' http://web:8000/sante`,
    );
    expect(result.stdout).toBe('ok\n10.0.0.2 http://web:8000/sante\n');
    expect(result.stderr).toMatch(
      /^\* Added web:8000:10\.0\.0\.2 to DNS cache\n\* Hostname web was found in DNS cache\n\* {3}Trying 10\.0\.0\.2:8000\.\.\.\n\* Connected to web \(10\.0\.0\.2\) port 8000 \(#0\)\n> GET \/sante HTTP\/1\.1\r\n> Host: web:8000\r\n/,
    );
    expect(result.stderr).toMatch(/\* Connection #0 to host web left intact\n$/);
  });

  it('adds the scheme and the root path to %{url_effective}', () => {
    const { a } = lab();
    expect(exec(a, `curl -s -o /dev/null -w '%{url_effective}' 10.0.0.2:8000`).stdout).toBe(
      'http://10.0.0.2:8000/',
    );
  });

  it('expands %%, \\t and \\n, keeps other backslashes, and warns about unknown variables', () => {
    const { a } = lab();
    expect(
      exec(a, `curl -s -o /dev/null -w 'a\\tb\\\\n%% %{http_code}' http://10.0.0.2:8000/sante`).stdout,
    ).toBe('a\tb\\\\n% 200');
    expect(exec(a, `curl -s -o /dev/null -w '%{foo} %{http_code}\\n' http://10.0.0.2:8000/sante`)).toEqual({
      exitCode: 0,
      stdout: ' 200\n',
      stderr: "curl: unknown --write-out variable: 'foo'\n",
    });
  });

  it('reuses its kept-alive connection for a second URL to the same host and port', () => {
    const { a, server } = lab();
    const result = exec(
      a,
      `curl -sv -w '\\n%{num_connects} %{local_port}\\n' http://10.0.0.2:8000/sante http://10.0.0.2:8000/flux`,
    );
    const [first, second] = result.stdout.split('\n').filter((line) => /^\d+ \d+$/.test(line));
    expect(first!.split(' ')[0]).toBe('1');
    expect(second!.split(' ')[0]).toBe('0');
    expect(second!.split(' ')[1]).toBe(first!.split(' ')[1]);
    expect(result.stderr).toContain(
      '* Connection #0 to host 10.0.0.2 left intact\n* Found bundle for host: 0x55d5c0de2a40 [serially]\n' +
        '* Can not multiplex, even if we wanted to\n* Re-using existing connection #0 with host 10.0.0.2\n> GET /flux HTTP/1.1\r\n',
    );
    expect(server.stats.connections).toBe(1);
    expect(server.stats.requests).toBe(2);
  });

  it('opens connection #1 after the server closed #0, and exits with the last transfer’s code', () => {
    const { a } = lab();
    const result = exec(
      a,
      'curl -sSv http://10.0.0.2:8000/sante http://10.0.0.2:8010/empty http://10.0.0.2:8010/empty',
    );
    expect(result.exitCode).toBe(52);
    expect(result.stderr).toContain('* Connected to 10.0.0.2 (10.0.0.2) port 8010 (#1)\n');
    expect(result.stderr).toContain(
      '* Hostname 10.0.0.2 was found in DNS cache\n*   Trying 10.0.0.2:8010...\n* Connected to 10.0.0.2 (10.0.0.2) port 8010 (#2)\n',
    );
    expect(result.stderr.match(/curl: \(52\) Empty reply from server\n/g)).toHaveLength(2);
  });

  it('closes the connection when it exits: the client holds TIME_WAIT', () => {
    const { sim, a } = lab();
    exec(a, 'curl -s http://10.0.0.2:8000/sante');
    sim.run(1e9);
    expect([...a.tcp.sockets()].map((socket) => socket.state)).toEqual(['TIME_WAIT']);
  });
});

describe('curl failures: exit codes and texts', () => {
  const cases: { name: string; line: string; exitCode: number; stderr: string; verbose?: string[] }[] = [
    {
      name: 'connection refused (7)',
      line: 'curl -sS http://10.0.0.2:8001/',
      exitCode: 7,
      stderr: "curl: (7) Failed to connect to 10.0.0.2 port 8001 after 0 ms: Couldn't connect to server\n",
      verbose: [
        '*   Trying 10.0.0.2:8001...',
        '* connect to 10.0.0.2 port 8001 failed: Connection refused',
        "* Failed to connect to 10.0.0.2 port 8001 after 0 ms: Couldn't connect to server",
        '* Closing connection 0',
      ],
    },
    {
      name: 'no route (7, immediate)',
      line: 'curl -sS http://192.168.99.1/',
      exitCode: 7,
      stderr: "curl: (7) Failed to connect to 192.168.99.1 port 80 after 0 ms: Couldn't connect to server\n",
      verbose: [
        '*   Trying 192.168.99.1:80...',
        '* Immediate connect fail for 192.168.99.1: Network is unreachable',
        "* Failed to connect to 192.168.99.1 port 80 after 0 ms: Couldn't connect to server",
        '* Closing connection 0',
      ],
    },
    {
      name: 'an unknown name (6)',
      line: 'curl -sS http://nosuchhost:8080/x',
      exitCode: 6,
      stderr: 'curl: (6) Could not resolve host: nosuchhost\n',
      verbose: ['* Could not resolve host: nosuchhost', '* Closing connection 0'],
    },
    {
      name: 'a connect timeout (28)',
      line: 'curl -sS --connect-timeout 1 http://10.0.0.9/',
      exitCode: 28,
      stderr: 'curl: (28) Failed to connect to 10.0.0.9 port 80 after 1000 ms: Timeout was reached\n',
      verbose: [
        '*   Trying 10.0.0.9:80...',
        '* ipv4 connect timeout after 1000ms, move on!',
        '* Failed to connect to 10.0.0.9 port 80 after 1000 ms: Timeout was reached',
        '* Closing connection 0',
      ],
    },
    {
      name: 'the overall timeout while connecting (28)',
      line: 'curl -sS -m 0.5 http://10.0.0.9/',
      exitCode: 28,
      stderr: 'curl: (28) Connection timed out after 500 milliseconds\n',
      verbose: [
        '*   Trying 10.0.0.9:80...',
        '* Connection timed out after 500 milliseconds',
        '* Closing connection 0',
      ],
    },
    {
      name: 'the overall timeout with no answer (28)',
      line: 'curl -sS -m 1 http://10.0.0.2:8012/hang',
      exitCode: 28,
      stderr: 'curl: (28) Operation timed out after 1000 milliseconds with 0 bytes received\n',
    },
    {
      name: 'the overall timeout in a body of known length (28)',
      line: 'curl -sS -m 1 http://10.0.0.2:8013/slow',
      exitCode: 28,
      stderr: 'curl: (28) Operation timed out after 1000 milliseconds with 3 out of 100 bytes received\n',
    },
    {
      name: 'an empty reply (52)',
      line: 'curl -sS http://10.0.0.2:8010/empty',
      exitCode: 52,
      stderr: 'curl: (52) Empty reply from server\n',
      verbose: [
        ...REQUEST('/empty', '10.0.0.2:8010').split('\n').slice(0, -1),
        '* Empty reply from server',
        '* Closing connection 0',
      ],
    },
    {
      name: 'a reset (56)',
      line: 'curl -sS http://10.0.0.2:8011/reset',
      exitCode: 56,
      stderr: 'curl: (56) Recv failure: Connection reset by peer\n',
      verbose: [
        ...REQUEST('/reset', '10.0.0.2:8011').split('\n').slice(0, -1),
        '* Recv failure: Connection reset by peer',
        '* Closing connection 0',
      ],
    },
    {
      name: 'a bad chunk size (56)',
      line: 'curl -sS http://10.0.0.2:8014/badchunk',
      exitCode: 56,
      stderr: 'curl: (56) Illegal or missing hexadecimal sequence in chunked-encoding\n',
    },
    {
      name: 'a body cut short (18)',
      line: 'curl -sS http://10.0.0.2:8015/partial',
      exitCode: 18,
      stderr: 'curl: (18) transfer closed with 7 bytes remaining to read\n',
    },
    {
      name: 'a reply that is not HTTP (1)',
      line: 'curl -sS http://10.0.0.2:8016/weird',
      exitCode: 1,
      stderr: 'curl: (1) Received HTTP/0.9 when not allowed\n',
    },
    {
      name: 'a scheme curl does not speak (1)',
      line: 'curl -sS ftp2://10.0.0.2/',
      exitCode: 1,
      stderr: 'curl: (1) Protocol "ftp2" not supported or disabled in libcurl\n',
    },
    {
      name: 'a port out of range (3)',
      line: 'curl -sS http://10.0.0.2:99999/',
      exitCode: 3,
      stderr: 'curl: (3) URL using bad/illegal format or missing URL\n',
    },
  ];
  for (const c of cases)
    it(`reports ${c.name}`, () => {
      const { a } = lab();
      const shown = exec(a, c.line);
      expect({ exitCode: shown.exitCode, stderr: shown.stderr }).toEqual({
        exitCode: c.exitCode,
        stderr: c.stderr,
      });
      // -s alone hides the error; the exit code stays.
      const silent = exec(a, c.line.replace('-sS', '-s'));
      expect({ exitCode: silent.exitCode, stderr: silent.stderr }).toEqual({
        exitCode: c.exitCode,
        stderr: '',
      });
      if (c.verbose !== undefined) {
        const verbose = exec(a, c.line.replace('-sS', '-sv'));
        const lines = verbose.stderr.split('\n').slice(0, -1);
        expect(lines.slice(-c.verbose.length)).toEqual(c.verbose);
      }
    });

  it('keeps the body received before a timeout, and -w sees the failure', () => {
    const { a } = lab();
    expect(
      exec(a, `curl -s -m 1 -w '|%{http_code} %{exitcode} %{errormsg}' http://10.0.0.2:8013/slow`).stdout,
    ).toBe('abc|200 28 Operation timed out after 1000 milliseconds with 3 out of 100 bytes received');
    expect(
      exec(
        a,
        `curl -s -w '%{http_code} %{exitcode} %{errormsg} %{num_connects} %{remote_ip}\\n' http://10.0.0.2:8001/`,
      ).stdout,
    ).toBe("000 7 Failed to connect to 10.0.0.2 port 8001 after 0 ms: Couldn't connect to server 0 \n");
    expect(
      exec(
        a,
        `curl -s -w '%{http_code} %{exitcode} %{errormsg} %{size_download} %{size_header}\\n' http://10.0.0.2:8010/`,
      ).stdout,
    ).toBe('000 52 Empty reply from server 0 0\n');
  });
});

describe('curl command line', () => {
  const HINT = "curl: try 'curl --help' or 'curl --manual' for more information\n";
  it.each([
    ['curl -s --foo http://x/', 'curl: option --foo: is unknown\n'],
    ['curl -s9 http://x/', 'curl: option -s9: is unknown\n'],
    ['curl --max-time=3 http://x/', 'curl: option --max-time=3: is unknown\n'],
    ['curl -s -o', 'curl: option -o: requires parameter\n'],
    ['curl -s -m abc http://x/', 'curl: option -m: expected a proper numerical parameter\n'],
    [
      'curl -s --connect-timeout x http://x/',
      'curl: option --connect-timeout: expected a proper numerical parameter\n',
    ],
    ['curl -s', 'curl: no URL specified!\n'],
  ])('%s is refused as curl refuses it (exit 2)', (line, message) => {
    const { a } = lab();
    expect(exec(a, line)).toEqual({ exitCode: 2, stdout: '', stderr: message + HINT });
  });

  it('names the real options it does not model', () => {
    const { a } = lab();
    expect(exec(a, 'curl -sL http://10.0.0.2:8000/')).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: 'packetlab: curl -L is not supported\n',
    });
    expect(exec(a, 'curl --http2 http://10.0.0.2:8000/').stderr).toBe(
      'packetlab: curl --http2 is not supported\n',
    );
    expect(exec(a, 'curl https://10.0.0.2/').stderr).toBe('packetlab: curl https is not supported\n');
  });

  it('stops a transfer that can never end without --max-time', () => {
    const { a } = lab();
    const result = exec(a, 'curl -s http://10.0.0.2:8012/hang');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      'packetlab: curl: the transfer stalled with no event pending; give it --max-time\n',
    );
  });
});

describe('curl through a Service address', () => {
  it('reaches the server behind a DNAT and reports the address it asked for', () => {
    const { sim, a, server } = lab();
    for (const line of [
      'ip route add default via 10.0.0.2',
      'iptables -t nat -A OUTPUT -d 10.96.40.12/32 -p tcp --dport 80 -j DNAT --to-destination 10.0.0.2:8000',
    ])
      expect(exec(a, line).exitCode).toBe(0);
    const result = exec(
      a,
      `curl -s -w ' %{remote_ip}:%{remote_port} %{http_code}\\n' http://10.96.40.12/sante`,
    );
    expect(result.stdout).toBe('ok\n 10.96.40.12:80 200\n');
    sim.run(1e9);
    expect(server.accessLog).toEqual([
      '10.0.0.1 - - [01/Jan/1970:00:00:00 +0000] "GET /sante HTTP/1.1" 200 3',
    ]);
    expect(exec(a, 'conntrack -L -p tcp').stdout).toMatch(
      /^tcp {6}6 \d+ TIME_WAIT src=10\.0\.0\.1 dst=10\.96\.40\.12 sport=\d+ dport=80 src=10\.0\.0\.2 dst=10\.0\.0\.1 sport=8000 dport=\d+ \[ASSURED\] mark=0 use=1\n$/,
    );
  });
});
