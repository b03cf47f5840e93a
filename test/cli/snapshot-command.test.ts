// `packetlab snapshot`, `packetlab node FILE` and `packetlab trace FILE PACKET` as a user runs them: the script on
// stdout, a real node's snapshot rebuilt and traced, and the errors with their exit codes.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { nodeCommand, snapshotCommand, traceCommand } from '../../src/cli/snapshot.ts';
import { snapshotScript } from '../../src/node-snapshot/script.ts';

const FIXTURE = 'test/fixtures/node-snapshot/node.snapshot';

function packetlab(...args: string[]) {
  const run = spawnSync(process.execPath, ['bin/packetlab.mjs', ...args], { encoding: 'utf8' });
  return { stdout: run.stdout, stderr: run.stderr, status: run.status };
}

const COMMANDS = { snapshot: snapshotCommand, node: nodeCommand, trace: traceCommand };

/** The command run in this process (spawning one per case would cost seconds each), its output captured. */
async function inProcess(name: keyof typeof COMMANDS, ...args: string[]) {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const status = await COMMANDS[name](args);
    return { stdout, stderr, status };
  } finally {
    vi.restoreAllMocks();
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('packetlab snapshot, node, trace', () => {
  it('snapshot prints the script, which sh accepts', async () => {
    const run = packetlab('snapshot');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(snapshotScript());
    const dir = mkdtempSync(join(tmpdir(), 'packetlab-snapshot-'));
    try {
      writeFileSync(join(dir, 'snapshot.sh'), run.stdout);
      // -n: read the whole script without running it (a syntax error would show here).
      expect(spawnSync('sh', ['-n', join(dir, 'snapshot.sh')], { encoding: 'utf8' }).status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(await inProcess('snapshot', 'extra')).toEqual({
      stdout: '',
      stderr: 'packetlab: snapshot takes no arguments\nusage: packetlab snapshot > snapshot.sh\n',
      status: 2,
    });
  });

  it('node rebuilds the snapshot and lists what it did not build', async () => {
    const run = await inProcess('node', FIXTURE);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`# ${FIXTURE}: vm (Linux 6.18.44-fc-v669), rebuilt as namespace vm`);
    expect(lines).toContainEqual(
      expect.stringMatching(/^ip rule add priority 100 fwmark 0x200\/0x200 lookup 100 +# line \d+$/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^nft -f - +# lines \d+-\d+: table inet mine$/));
    expect(lines.at(-4)).toBe('not built, or built otherwise (3):');
    expect(lines.at(-1)).toMatch(
      /^test\/fixtures\/node-snapshot\/node.snapshot:\d+: sysctl net.bridge.bridge-nf-call-arptables = 1 is not modelled$/,
    );
  });

  it('trace prints the rebuild summary, then the trace', () => {
    const run = packetlab('trace', FIXTURE, 'tcp 203.0.113.7:5555 > 172.18.0.2:30080 in eth0');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[1]).toMatch(/^built: 4 interfaces, /);
    expect(lines).toContain('# trace: tcp 203.0.113.7:5555 > 172.18.0.2:30080 in eth0');
    expect(lines).toContain('# verdict');
    expect(lines).toContain('sent on vethpod to 0a:58:0a:f4:01:09: 203.0.113.7:5555->10.244.1.5:8080(tcp)');
  });

  it('takes the packet as separate words too', async () => {
    const run = await inProcess('trace', FIXTURE, 'udp', '172.18.0.2:4000', '>', '10.99.1.1:53', 'out');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('sent on eth0 to 02:42:ac:12:00:01: 172.18.0.2:4000->10.99.1.1:53(udp)');
  });

  it.each([
    [['node'], 2, 'usage: packetlab node FILE [--seed S]\n'],
    [['node', 'no-such.snapshot'], 2, 'packetlab: cannot read no-such.snapshot: ENOENT\n'],
    [
      ['node', 'package.json'],
      2,
      'packetlab: package.json:1: not a packetlab snapshot: no packetlab-snapshot line (packetlab snapshot prints the script that writes one)\n',
    ],
    [
      ['node', FIXTURE, '--bogus'],
      2,
      "packetlab: unknown option '--bogus'\nusage: packetlab node FILE [--seed S]\n",
    ],
    [
      ['trace', FIXTURE],
      2,
      "usage: packetlab trace FILE 'tcp|udp SRC:PORT > DST:PORT in IFACE|out' [--seed S]  (icmp: 'icmp SRC > DST in IFACE')\n",
    ],
    [
      ['trace', FIXTURE, 'tcp 1.2.3.4 > 5.6.7.8:1 in eth0'],
      2,
      "packetlab: trace: '1.2.3.4' needs a port (ADDRESS:PORT)\n",
    ],
  ])('%j exits %i', async (args, status, stderr) => {
    const [name, ...rest] = args as [keyof typeof COMMANDS, ...string[]];
    const run = await inProcess(name, ...rest);
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status, stderr });
  });

  it('a packet that cannot be sent exits 1 and says why', async () => {
    const run = await inProcess('trace', FIXTURE, 'tcp 1.2.3.4:1 > 172.18.0.2:22 in eth9');
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('packetlab: trace: the node has no interface eth9');
  });
});
