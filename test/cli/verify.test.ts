// `packetlab verify`: through bin/packetlab.mjs on the real kernel for veth and lesson-case 2 (skipped locally without
// root, required in CI), a difference it must report (an observation packetlab has no model for: IPv6), and the
// reasons it cannot run (exit 2) on machines described to the check.

import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../scenarios/index.ts';
import { vethPlan } from '../../scenarios/kernel-plans.ts';
import { kernelBlocker, type Machine } from '../../src/cli/verify/kernel.ts';
import { type VerifyIo, verify } from '../../src/cli/verify/verify.ts';
import { ScenarioBuilder } from '../../src/harness/scenario.ts';
import { twoHosts } from '../../src/harness/topologies.ts';
import { requireNetns } from '../support/netns.ts';

function packetlab(...args: string[]): Promise<{ stdout: string; stderr: string; status: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/packetlab.mjs', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.once('close', (status) => resolve({ stdout, stderr, status }));
  });
}

describe('packetlab verify on the kernel', () => {
  it('veth: packetlab and Linux agree on the ping, the six frames, ip neigh, ip route and ip -s link', async (ctx) => {
    if (!requireNetns(ctx)) return;
    const { stdout, stderr, status } = await packetlab('verify', 'veth');
    expect(stderr).toBe('');
    expect(stdout.split('\n')[0]).toMatch(/^packetlab verify veth: two namespaces/);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe(
      'packetlab and Linux agree: 5 observations, 1 capture (6 frames) after 9 set-up commands',
    );
    expect(status).toBe(0);
  }, 120_000);

  it("lesson-case 2 flannel-vxlan: the cluster plan's ping across nodes, its frames, formation-worker's state", async (ctx) => {
    if (!requireNetns(ctx)) return;
    const { stdout, status } = await packetlab('verify', 'lesson-case', '2', 'flannel-vxlan');
    expect(stdout).toContain('ping diag -> 10.244.2.7');
    expect(stdout.trimEnd().split('\n').at(-1)).toMatch(
      /^packetlab and Linux agree: 11 observations, 2 captures \(\d+ frames\) after \d+ set-up commands$/,
    );
    expect(status).toBe(0);
  }, 120_000);

  it("lesson-case 6 kindnet nftables: the NodePort from the Docker host through kube-proxy's nftables rules", async (ctx) => {
    if (!requireNetns(ctx)) return;
    const { stdout, status } = await packetlab('verify', 'lesson-case', '6', 'kindnet', 'nftables');
    expect(stdout).toContain("kube-proxy's nftables rules on every node");
    expect(stdout.trimEnd().split('\n').at(-1)).toMatch(
      /^packetlab and Linux agree: \d+ observations, 2 captures \(\d+ frames\) after \d+ set-up commands$/,
    );
    expect(status).toBe(0);
  }, 120_000);

  it('reports a difference: an --observe of an IPv6 sysctl, which packetlab does not model, exits 1', async (ctx) => {
    if (!requireNetns(ctx)) return;
    const { stdout, stderr, status } = await packetlab(
      'verify',
      'veth',
      '--observe',
      'a: sysctl net.ipv6.conf.all.disable_ipv6',
    );
    expect(stdout).toContain(
      [
        'observe a: sysctl net.ipv6.conf.all.disable_ipv6 | stdout line 1',
        '    linux:     net.ipv6.conf.all.disable_ipv6 = 1',
      ].join('\n'),
    );
    expect(stdout).toContain(
      'packetlab: sysctl: cannot stat /proc/sys/net/ipv6/conf/all/disable_ipv6: No such file or directory',
    );
    expect(stdout.trimEnd().split('\n').at(-1)).toMatch(
      /^packetlab and Linux differ: \d+ differences in 6 observations, 1 capture \(6 frames\)/,
    );
    // The kernel side ran three times before verify concluded.
    expect(stderr).toContain('running it again (2 of 2)');
    expect(status).toBe(1);
  }, 120_000);
});

/** A machine that can run everything, with PATH pointing at a folder of fake programs. */
const bin = mkdtempSync(join(tmpdir(), 'packetlab-verify-path-'));
afterAll(() => rmSync(bin, { recursive: true, force: true }));
function withPrograms(...programs: string[]): string {
  const dir = mkdtempSync(join(bin, 'p'));
  for (const program of programs) {
    writeFileSync(join(dir, program), '#!/bin/sh\n');
    chmodSync(join(dir, program), 0o755);
  }
  return dir;
}
const ROOT_LINUX: Machine = {
  platform: 'linux',
  uid: 0,
  path: withPrograms('ip', 'tcpdump', 'sysctl', 'ping'),
  canCreateNamespace: () => undefined,
};

describe('what verify needs (exit 2, one line)', () => {
  const tour = vethPlan().scenario;

  it('runs on a root Linux machine with ip, tcpdump, sysctl and ping', () => {
    expect(kernelBlocker(tour, ROOT_LINUX)).toBeUndefined();
  });

  it('says which of Linux, root, a program, a namespace is missing', () => {
    expect(kernelBlocker(tour, { ...ROOT_LINUX, platform: 'darwin' })).toBe(
      'packetlab verify needs Linux (network namespaces), not darwin',
    );
    expect(kernelBlocker(tour, { ...ROOT_LINUX, uid: 1000 })).toBe(
      'packetlab verify needs root to create network namespaces (try sudo)',
    );
    expect(kernelBlocker(tour, { ...ROOT_LINUX, path: withPrograms('ip', 'sysctl', 'ping') })).toBe(
      'packetlab verify needs tcpdump on PATH',
    );
    expect(
      kernelBlocker(tour, {
        ...ROOT_LINUX,
        canCreateNamespace: () => 'mount --make-shared /run/netns failed',
      }),
    ).toBe('packetlab verify cannot create a network namespace: mount --make-shared /run/netns failed');
  });

  it("asks for the programs a plan's commands and steps start (conntrack, tcpreplay)", () => {
    const scenario = twoHosts('needs')
      .observe('a', 'conntrack', '-L')
      .frames('a', 'veth-a', [new Uint8Array(60)])
      .build();
    expect(kernelBlocker(scenario, ROOT_LINUX)).toBe('packetlab verify needs conntrack on PATH');
    expect(
      kernelBlocker(scenario, { ...ROOT_LINUX, path: withPrograms('ip', 'tcpdump', 'sysctl', 'conntrack') }),
    ).toBe('packetlab verify needs tcpreplay on PATH');
  });
});

describe('verify without the kernel: arguments and plans', () => {
  async function verifyIn(machine: Machine, ...words: string[]) {
    let stdout = '';
    let stderr = '';
    let kernelRuns = 0;
    const io: VerifyIo = {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
      tty: false,
      machine,
      runKernel: () => {
        kernelRuns++;
        return Promise.reject(new Error('no kernel in this test'));
      },
    };
    const status = await verify(words, SCENARIOS, io);
    return { stdout, stderr, status, kernelRuns };
  }

  it('stops before the kernel on a machine that is not root', async () => {
    const run = await verifyIn({ ...ROOT_LINUX, uid: 1000 }, 'veth');
    expect(run).toEqual({
      stdout: '',
      stderr: 'packetlab verify needs root to create network namespaces (try sudo)\n',
      status: 2,
      kernelRuns: 0,
    });
  });

  it('refuses unknown scenarios, scenarios without a plan, arguments without a plan and bad --observe', async () => {
    const cases: [string[], string][] = [
      [['nosuch'], "packetlab: unknown scenario 'nosuch' (packetlab list shows them)\n"],
      [
        ['traffic'],
        'packetlab: scenario traffic has no kernel plan (verify runs veth, lesson, lesson-case)\n',
      ],
      [
        ['lesson-case', '7'],
        'usage: packetlab verify lesson-case [1-6] [flannel-vxlan|kindnet] [iptables|nftables]\n',
      ],
      [['veth', 'extra'], 'usage: packetlab verify veth\n'],
      [
        ['veth', '--observe', 'x: ip route'],
        "packetlab: --observe 'x: ip route': no namespace x in the plan (a, b)\n",
      ],
      [
        ['veth', '--observe', 'a: curl http://10.0.0.2/'],
        'packetlab: verify veth: scenario veth: program curl is not allowed\n',
      ],
      [
        ['veth', '--observe', 'ip route'],
        "packetlab: --observe 'ip route': expected 'NS: COMMAND' (a namespace of the plan, then a command)\n",
      ],
    ];
    for (const [words, stderr] of cases) {
      const run = await verifyIn(ROOT_LINUX, ...words);
      expect(run, words.join(' ')).toEqual({ stdout: '', stderr, status: 2, kernelRuns: 0 });
    }
  });

  it('reports a kernel run that cannot complete as exit 2, after naming what the plan covers', async () => {
    const run = await verifyIn(ROOT_LINUX, 'veth');
    expect(run.stdout).toMatch(/^packetlab verify veth: /);
    expect(run.stderr).toBe('packetlab: verify veth could not run: no kernel in this test\n');
    expect(run.status).toBe(2);
    expect(run.kernelRuns).toBe(1);
  });

  it("adds --observe commands after the plan's own, checked as the builder checks them", () => {
    const plan = vethPlan().scenario;
    const observing = ScenarioBuilder.observing(plan, [{ ns: 'b', argv: ['ip', 'route'] }]);
    expect(observing.observe.slice(0, -1)).toEqual(plan.observe);
    expect(observing.observe.at(-1)).toEqual({ ns: 'b', argv: ['ip', 'route'] });
    expect(() => ScenarioBuilder.observing(plan, [{ ns: 'a', argv: ['ip', 'netns', 'list'] }])).toThrow(
      '`ip netns` is not allowed',
    );
  });
});

describe('through bin/packetlab.mjs without the kernel', () => {
  it('an unknown option is a usage error', async () => {
    const { stdout, stderr, status } = await packetlab('verify', 'veth', '--nope');
    expect(stdout).toBe('');
    expect(stderr.split('\n')[0]).toBe("packetlab: unknown option '--nope'");
    expect(status).toBe(2);
  });
});
