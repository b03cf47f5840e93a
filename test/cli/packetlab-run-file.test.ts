// `packetlab run FILE` as a user runs it: the examples (.ts and .yaml), a .mjs module and a .json lab written here;
// then what goes wrong (in process, as main() answers it): malformed YAML (line and column), unknown keys and bad
// values (their paths), a module that throws (one line, the stack with --debug), a missing file. And colour: on a terminal (script(1) gives one), never
// with NO_COLOR, for run and for the shell's prompt.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { mainInProcess, packetlabScript, runPacketlab } from '../support/packetlab-cli.ts';
import { requireTool } from '../support/tools.ts';

const packetlab = (...args: string[]) => runPacketlab(args);
/** main() in this process, its output captured: for the errors, which need no cluster and no second tsx start. */
const inProcess = (...args: string[]) => mainInProcess(args, []);

const dir = mkdtempSync(join(tmpdir(), 'packetlab-run-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const validateStory = new Ajv({ allErrors: true }).compile(
  JSON.parse(readFileSync('docs/story.schema.json', 'utf8')),
);
const validateLab = new Ajv({ allErrors: true }).compile(
  JSON.parse(readFileSync('docs/scenario-file.schema.json', 'utf8')),
);

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const STORY_MODULE = pathToFileURL(resolve('src/index.ts')).href;

describe('packetlab run FILE', () => {
  it('runs the TypeScript example and prints its checks; --json as the story schema says', () => {
    const plain = packetlab('run', 'examples/mtu-black-hole.ts');
    expect(plain.stderr).toBe('');
    expect(plain.status).toBe(0);
    expect(plain.stdout).toContain('$ kubectl exec diag -- ping -M do -s 1422 -c 1 10.244.2.7\n');
    expect(plain.stdout.trimEnd().split('\n').slice(-3)).toEqual([
      "PASS diag's eth0 has mtu 1450",
      'PASS 1422 bytes of payload (1450 with the headers) cross without fragmenting',
      'PASS one byte more and the kernel refuses to send it',
    ]);
    const json = packetlab('run', 'examples/mtu-black-hole.ts', '--json', '--seed', '5');
    const result = JSON.parse(json.stdout);
    expect(validateStory(result), JSON.stringify(validateStory.errors)).toBe(true);
    expect(result).toMatchObject({ scenario: 'mtu-black-hole', seed: '5', ok: true });
  });

  it('runs the YAML example, which its JSON Schema accepts', () => {
    const text = readFileSync('examples/service-from-outside.yaml', 'utf8');
    expect(validateLab(parse(text)), JSON.stringify(validateLab.errors)).toBe(true);
    expect(validateLab({ ...parse(text), clusters: {} })).toBe(false);
    const run = packetlab('run', 'examples/service-from-outside.yaml');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('$ curl -s http://172.18.0.3:30080/sante\nok\n');
    const checks = run.stdout.split('\n').filter((line) => /^(PASS|FAIL) /.test(line));
    expect(checks).toHaveLength(5);
    expect(checks).toContain(
      'PASS from outside, the pod sees formation-worker, which masqueraded the client',
    );
  });

  it('runs a JavaScript module with the words after its name, and a JSON lab; a failing check exits 1', () => {
    const js = file(
      'echo.mjs',
      `import { Simulation, Story, exec } from '${STORY_MODULE}';
export default function ({ seed, args }) {
  const sim = new Simulation({ seed: seed ?? 'mine' });
  const story = new Story('mine', seed ?? 'mine');
  story.attach(sim);
  const ns = sim.addNamespace('one');
  const up = story.run('$', ns, 'ip link set lo up');
  story.expectEqual('lo comes up', 0, up.exitCode);
  story.expectEqual('the words after the file', 'a b', args.join(' '));
  return story.result();
}
`,
    );
    const ran = packetlab('run', js, 'a', 'b', '--seed', '9');
    expect(ran.stderr).toBe('');
    expect(ran.stdout).toBe('$ ip link set lo up\n\nPASS lo comes up\nPASS the words after the file\n');
    expect(ran.status).toBe(0);
    const wrongArgs = packetlab('run', js, 'c');
    expect(wrongArgs.status).toBe(1);
    expect(wrongArgs.stdout).toContain('FAIL the words after the file: expected a b, got c');

    const json = file(
      'lab.json',
      JSON.stringify({
        cluster: { workers: 1 },
        pods: [{ name: 'a', node: 'kind-worker' }],
        checks: [
          { command: { run: 'kubectl get pods', contains: 'a ' } },
          { name: 'no such pod', command: { run: 'kubectl get pod b' } },
        ],
      }),
    );
    const lab = packetlab('run', json);
    expect(lab.stdout.trimEnd().split('\n').slice(-2)).toEqual([
      'PASS kubectl get pods',
      'FAIL no such pod: expected exit 0, got exit 1',
    ]);
    expect(lab.status).toBe(1);
  });

  it.each([
    [
      'bad.yaml',
      'cluster:\n  cni: kindnet\npods: [ {name: a, node: x\nchecks: []\n',
      ':4:1: Flow map in block collection must be sufficiently indented and end with a }',
    ],
    ['dup.yaml', 'cluster: {}\ncluster: {}\n', ':2:1: Map keys must be unique'],
    ['bad.json', '{"cluster": {"workers": 1},, }', ':1:28: Unexpected , in flow map'],
  ])('refuses malformed %s with one line naming its line and column, exit 2', async (name, text, where) => {
    const path = file(name, text);
    const run = await inProcess('run', path);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`packetlab: ${path}${where}\n`);
    expect(run.status).toBe(2);
  });

  it('names the path, line and column of each unknown key and bad value', async () => {
    const path = file(
      'keys.yaml',
      'cluster:\n  cni: calico\n  wrokers: 2\npods:\n  - name: a\n    node: kind-worker\n    ip: 10.1.2\n',
    );
    const run = await inProcess('run', path);
    expect(run.stderr).toBe(
      [
        `packetlab: ${path}:3:3: cluster.wrokers: unknown key (expected one of name, workers, cni, kubeProxy, seed)`,
        `packetlab: ${path}:2:8: cluster.cni: must be one of kindnet, flannel-vxlan, flannel-host-gw, got "calico"`,
        `packetlab: ${path}:7:9: pods[0].ip: must be an IPv4 address, got "10.1.2"`,
        '',
      ].join('\n'),
    );
    expect(run.status).toBe(2);
  });

  it('turns a module that throws into one line and exit 1, the stack with --debug', async () => {
    const path = file(
      'boom.mjs',
      'export default function () {\n  throw new Error("the bridge is on fire");\n}\n',
    );
    const plain = await inProcess('run', path);
    expect(plain).toEqual({
      stdout: '',
      stderr: `packetlab: scenario ${path} failed: the bridge is on fire\n`,
      status: 1,
    });
    const debug = packetlab('run', path, '--debug');
    expect(debug.status).toBe(1);
    expect(debug.stderr).toMatch(
      /^Error: the bridge is on fire\n {4}at default \(file:\/\/.*boom\.mjs:2:9\)\n/,
    );
    const ts = file(
      'boom.ts',
      'export default function (): never {\n  throw new TypeError("no route to host");\n}\n',
    );
    expect(packetlab('run', ts).stderr).toBe(`packetlab: scenario ${ts} failed: no route to host\n`);
  });

  it('says what is wrong with a file that is no scenario, one line each', async () => {
    const syntax = file('syntax.mjs', 'export default function ( {\n');
    const broken = await inProcess('run', syntax);
    expect(broken.status).toBe(1);
    expect(broken.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(broken.stderr).toMatch(new RegExp(`^packetlab: ${syntax}: `));
    expect(await inProcess('run', file('value.mjs', 'export default 42;\n'))).toMatchObject({
      stderr: `packetlab: ${join(dir, 'value.mjs')}: its default export must be a function ({seed, args}) => StoryResult | Story\n`,
      status: 2,
    });
    const promise = file('async.mjs', 'export default async function () {}\n');
    expect((await inProcess('run', promise)).stderr).toBe(
      `packetlab: scenario ${promise} failed: ${promise}: the default export returned a Promise: it must return a StoryResult or a Story\n`,
    );
    expect(await inProcess('run', join(dir, 'missing.yaml'))).toEqual({
      stdout: '',
      stderr: `packetlab: cannot read ${join(dir, 'missing.yaml')}: No such file or directory\n`,
      status: 2,
    });
  });
});

describe('colour', () => {
  /** The command on a pseudo-terminal (script -e exits with the command's status). */
  function onTerminal(command: string, env: Record<string, string>, input = '') {
    const run = spawnSync('script', ['-qec', command, '/dev/null'], {
      encoding: 'utf8',
      input,
      env: { ...process.env, HOME: dir, ...env },
    });
    return { stdout: run.stdout, status: run.status };
  }

  it('paints run and the shell prompt on a terminal, and never with NO_COLOR', (ctx) => {
    if (!requireTool('script', ctx)) return;
    const node = `${process.execPath} ${packetlabScript()}`;
    const painted = onTerminal(`${node} run veth`, { NO_COLOR: '' });
    expect(painted.status).toBe(0);
    expect(painted.stdout).toContain('\x1b[1m$ ip netns exec a ping -c 2 10.0.0.2\x1b[0m');
    expect(painted.stdout).toContain('\x1b[32mPASS both echo requests are answered\x1b[0m');
    expect(painted.stdout).toContain('packetlab: running veth...\r\x1b[K');
    const plain = onTerminal(`${node} run veth`, { NO_COLOR: '1' });
    expect(plain.status).toBe(0);
    expect(plain.stdout).toContain('PASS both echo requests are answered');
    expect(plain.stdout).not.toContain('\x1b[');

    const prompt = onTerminal(`${node} shell veth`, { NO_COLOR: '' }, 'ip netns list\rexit 3\r');
    expect(prompt.status).toBe(3);
    expect(prompt.stdout).toContain('\x1b[1m# \x1b[0m');
    const bare = onTerminal(`${node} shell veth`, { NO_COLOR: '1' }, 'exit 4\r');
    expect(bare.status).toBe(4);
    expect(bare.stdout).not.toContain('\x1b[1m');
  });
});
