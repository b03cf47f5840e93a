import { describe, expect, it } from 'vitest';
import { udpEcho } from '../../src/app/echo/udp-echo.ts';
import { exec, spawn } from '../../src/tools/exec.ts';
import { parseIpv4 } from '../../src/wire/address.ts';
import { twoHosts } from './lab.ts';

describe('udpEcho', () => {
  it('sends each datagram back to its sender, from the server port', () => {
    const { sim, a, b } = twoHosts();
    const server = udpEcho(b, { port: 7 });
    const got: string[] = [];
    expect(
      a.udp.bind(0, 40000, (d) =>
        got.push(`${d.srcPort}>${d.dstPort} ${new TextDecoder().decode(d.payload)}`),
      ),
    ).toBe(true);
    for (const text of ['one', 'two'])
      a.udp.send({
        dst: parseIpv4('10.0.0.2')!,
        dstPort: 7,
        srcPort: 40000,
        payload: new TextEncoder().encode(text),
      });
    sim.run(1e9);
    expect(got).toEqual(['7>40000 one', '7>40000 two']);
    expect(server.stats).toEqual({ echoed: 2, sendErrors: 0, bytes: 6 });
    server.close();
    expect(b.udp.isBound(7)).toBe(false);
  });

  it('answers nc -u, which prints the echo and leaves after -w', () => {
    const { sim, a, b } = twoHosts();
    udpEcho(b, { port: 9000 });
    const capture = spawn(a, 'tcpdump -nn -i eth0 udp');
    const start = sim.scheduler.now;
    const result = exec(a, 'nc -u -w 1 10.0.0.2 9000', { stdin: 'ping\n' });
    expect(result).toEqual({ stdout: 'ping\n', stderr: '', exitCode: 0 });
    expect(sim.scheduler.now - start).toBe(1e9);
    if (!('stop' in capture)) throw new Error(capture.stderr);
    const lines = capture.stop().stdout.trim().split('\n');
    const port = /10\.0\.0\.1\.(\d+) >/.exec(lines[0]!)![1]!;
    expect(Number(port)).toBeGreaterThanOrEqual(32768);
    expect(lines.map((line) => line.replace(/^\S+ /, '').replaceAll(`.${port}`, '.P'))).toEqual([
      'IP 10.0.0.1.P > 10.0.0.2.9000: UDP, length 5',
      'IP 10.0.0.2.9000 > 10.0.0.1.P: UDP, length 5',
    ]);
  });

  it('refuses a port already bound', () => {
    const { b } = twoHosts();
    udpEcho(b, { port: 7 });
    expect(() => udpEcho(b, { port: 7 })).toThrow(/in use/);
  });
});
