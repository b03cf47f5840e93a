// ss compared live with iproute2's ss in two real namespaces holding the sockets of ss-sockets.ts (every TCP state a
// short exchange passes through, UDP bound and connected), up to the kernel's hash order; the recorded copies are in
// ss-fixtures.ts, checked without root by ss.test.ts.

import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Namespace } from '../../src/netns/namespace.ts';
import { exec } from '../../src/tools/exec.ts';
import { RealNamespaces, requireNetns } from '../support/netns.ts';
import { requireTool } from '../support/tools.ts';
import {
  canonical,
  DROP_SYN_ACK,
  hasHeader,
  inSectionOrder,
  NODE_PROGRAMS,
  OTHER_COMMANDS,
  packetlabSockets,
  SOCKET_COMMANDS,
  TOPOLOGY,
} from './ss-sockets.ts';

/** Starts one of the socket programs in a namespace and waits for its `ready`. */
function startProgram(real: RealNamespaces, ns: 'a' | 'b', children: ChildProcess[]): Promise<void> {
  const child = spawn('ip', ['netns', 'exec', real.name(ns), process.execPath, '-e', NODE_PROGRAMS[ns]], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${ns}: no "ready" within 10 s: ${seen}`)), 10_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      if (seen.includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${ns}: exited with ${code}: ${seen}`));
    });
  });
}

describe('ss against iproute2 6.1.0 in real namespaces', () => {
  const real = new RealNamespaces();
  const children: ChildProcess[] = [];
  let ours: { a: Namespace; b: Namespace } | undefined;

  beforeAll(async () => {
    if (!requireNetns() || !requireTool('ss') || !requireTool('iptables')) return;
    real.add('a');
    real.add('b');
    if (real.exec('a', 'ss', ['-V']).stdout !== 'ss utility, iproute2-6.1.0\n') {
      console.warn('notice: ss is not iproute2 6.1.0 here: skipping the live comparison');
      return;
    }
    real.ip('a', 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', real.name('b'));
    for (const line of TOPOLOGY.a) real.ip('a', ...line.split(' '));
    for (const line of TOPOLOGY.b) real.ip('b', ...line.split(' '));
    const filter = real.exec('a', 'iptables', DROP_SYN_ACK.split(' '));
    if (filter.exitCode !== 0) throw new Error(`iptables: ${filter.stderr}`);
    await startProgram(real, 'b', children);
    await startProgram(real, 'a', children);
    ours = packetlabSockets();
  }, 30_000);

  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
    real.cleanup();
  });

  const cases = (['a', 'b'] as const).flatMap((ns) => SOCKET_COMMANDS.map((cmd) => [ns, cmd] as const));
  it.each(cases)('%s: %s', (ns, cmd) => {
    if (ours === undefined) return;
    const theirs = real.exec(ns, 'bash', ['-c', cmd]);
    const mine = exec(ours[ns], cmd);
    const options = { header: hasHeader(cmd) };
    expect(inSectionOrder(theirs.stdout, options)).toBe(true);
    expect(inSectionOrder(mine.stdout, options)).toBe(true);
    expect({
      stdout: canonical(mine.stdout, options),
      stderr: mine.stderr,
      exitCode: mine.exitCode,
    }).toEqual({ ...theirs, stdout: canonical(theirs.stdout, options) });
  });

  // -i: the deterministic tcp_info fields of every connection, row by row (timings, the congestion module's own
  // fields and rcv_ssthresh, which packetlab's window model does not grow as Linux does, are left out).
  it.each(['a', 'b'] as const)('%s: ss -tnoi: the tcp_info fields packetlab keeps', (ns) => {
    if (ours === undefined) return;
    const compared =
      /^(ts|sack|wscale|ato|mss|pmtu|rcvmss|advmss|cwnd|ssthresh|bytes_\w+|segs_\w+|data_segs_\w+|rcv_space|snd_wnd|unacked|retrans|backoff)$/;
    const byTuple = (text: string): Map<string, Map<string, string>> => {
      const rows = new Map<string, Map<string, string>>();
      const lines = text.split('\n');
      for (let i = 1; i + 1 < lines.length; i += 2) {
        const [, , local, peer] = lines[i]!.split(/\s+/);
        const fields = new Map<string, string>();
        for (const word of lines[i + 1]!.trim().split(' ')) {
          const [key, value = ''] = word.split(':');
          if (compared.test(key!)) fields.set(key!, value);
        }
        rows.set(`${local} ${peer}`, fields);
      }
      return rows;
    };
    const theirs = byTuple(real.exec(ns, 'ss', ['-tnoi', 'state', 'established']).stdout);
    const mine = byTuple(exec(ours[ns], 'ss -tnoi state established').stdout);
    expect(mine.size).toBeGreaterThan(0);
    expect([...mine.keys()].sort()).toEqual([...theirs.keys()].sort());
    for (const [tuple, fields] of mine)
      expect({ tuple, fields }).toEqual({ tuple, fields: theirs.get(tuple) });
  });

  it.each(OTHER_COMMANDS)('%s', (cmd) => {
    if (ours === undefined) return;
    const mine = exec(ours.a, cmd);
    expect({ stdout: mine.stdout, stderr: mine.stderr, exitCode: mine.exitCode }).toEqual(
      real.exec('a', 'bash', ['-c', cmd]),
    );
  });
});
