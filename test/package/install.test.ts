// The package as a user installs it: `npm pack` (which builds dist/ with tsc), installed into an empty folder, then
// imported from plain Node, typechecked from TypeScript, and its command run — with no tsx and no sources.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireNetns } from '../support/netns.ts';

const REPO = resolve('.');
let work: string;
let app: string;

function run(command: string, args: readonly string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'packetlab-pack-'));
  app = join(work, 'app');
  mkdirSync(app);
  run('npm', ['pack', '--silent', '--pack-destination', work], REPO);
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
  if (tarball === undefined) throw new Error('npm pack wrote no tarball');
  writeFileSync(join(app, 'package.json'), '{"name":"consumer","private":true,"type":"module"}\n');
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, tarball)], app);
}, 300_000);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('the installed package', () => {
  it('ships JavaScript and declarations only, no TypeScript sources', () => {
    const listing = run(
      'tar',
      ['-tzf', join(work, readdirSync(work).find((n) => n.endsWith('.tgz'))!)],
      work,
    );
    const files = listing.trim().split('\n');
    expect(files).toContain('package/dist/src/index.js');
    expect(files).toContain('package/dist/src/index.d.ts');
    expect(files).toContain('package/bin/packetlab.mjs');
    // `packetlab verify`'s kernel side runs these with plain node (src/cli/verify/linux-driver.ts).
    for (const peer of ['udp-peer', 'tcp-peer', 'ports-peer'])
      expect(files).toContain(`package/dist/src/cli/verify/peers/${peer}.mjs`);
    expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
  });

  it('imports from plain Node and runs a ping between two namespaces', () => {
    const script = [
      "import { Simulation, exec } from 'packetlab';",
      "const sim = new Simulation({ seed: 'pack' });",
      "const a = sim.addNamespace('a');",
      "sim.addNamespace('b');",
      "exec(a, 'ip link add veth-a type veth peer name veth-b netns b');",
      "exec(a, 'ip addr add 10.0.0.1/24 dev veth-a');",
      "exec(a, 'ip link set veth-a up');",
      "exec(sim.namespace('b'), 'ip addr add 10.0.0.2/24 dev veth-b');",
      "exec(sim.namespace('b'), 'ip link set veth-b up');",
      "process.stdout.write(exec(a, 'ping -c 1 10.0.0.2').stdout);",
    ].join('\n');
    writeFileSync(join(app, 'ping.mjs'), script);
    expect(run(process.execPath, ['ping.mjs'], app)).toContain(
      '1 packets transmitted, 1 received, 0% packet loss',
    );
  });

  it('typechecks a consumer written in TypeScript against the declarations', () => {
    writeFileSync(
      join(app, 'consumer.ts'),
      "import { Simulation, type CommandResult, exec } from 'packetlab';\n" +
        "const result: CommandResult = exec(new Simulation().addNamespace('n'), 'ip link');\n" +
        'export const code: number = result.exitCode;\n',
    );
    const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
    const args = [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--skipLibCheck',
    ];
    expect(run(process.execPath, [tsc, ...args, 'consumer.ts'], app)).toBe('');
  });

  it("runs the command from the package's bin without tsx", () => {
    const list = run('npx', ['--no-install', 'packetlab', 'list'], app);
    expect(list.split('\n').slice(0, 2)).toEqual([
      expect.stringMatching(/^tour +the guided tour/),
      expect.stringMatching(/^veth +two namespaces joined by a veth pair/),
    ]);
    expect(run('npm', ['ls', 'tsx', '--parseable'], app).trim()).toBe('');
  });

  it('verifies a scenario on the kernel from the installed package (root only; CI must)', (ctx) => {
    if (!requireNetns(ctx)) return;
    // The plan's UDP exchange runs dist/'s udp-peer.mjs on the kernel side.
    const verified = run('npx', ['--no-install', 'packetlab', 'verify', 'lesson', 'routed', 'direct'], app);
    expect(verified.trimEnd().split('\n').at(-1)).toMatch(
      /^packetlab and Linux agree: 8 observations, 3 captures/,
    );
  }, 60_000);
});
