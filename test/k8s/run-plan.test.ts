import { describe, expect, it } from 'vitest';
import { PlanRunner, runPlan } from '../../src/k8s/run-plan.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec } from '../../src/tools/exec.ts';

describe('runPlan', () => {
  it('builds namespaces, segment ports with their MACs, and runs commands with namespace and file words', () => {
    const sim = new Simulation({ seed: 'run-plan' });
    const { runner, results } = runPlan(sim, {
      namespaces: ['n1', 'n2', 'pod'],
      segments: [
        {
          name: 'kind',
          mtu: 1500,
          ports: [
            { ns: 'n1', ifname: 'eth0', mac: '02:42:ac:12:00:02', mtu: 1500 },
            { ns: 'n2', ifname: 'eth0', mac: '02:42:ac:12:00:03', mtu: 1500 },
          ],
        },
      ],
      commands: [
        { ns: 'n1', argv: ['ip', 'addr', 'add', '172.18.0.2/16', 'dev', 'eth0'] },
        { ns: 'n2', argv: ['ip', 'addr', 'add', '172.18.0.3/16', 'dev', 'eth0'] },
        {
          ns: 'pod',
          argv: [
            'ip',
            'link',
            'add',
            'eth0',
            'type',
            'veth',
            'peer',
            'name',
            'vethab',
            'netns',
            { ns: 'n1' },
          ],
        },
        { ns: 'n1', argv: ['nft', '-f', { file: 'rules.nft', text: 'table ip t {\n}\n' }] },
        { ns: 'n1', argv: ['ip', 'link', 'show', 'nosuch'] },
      ],
    });
    expect(results.map((r) => r.exitCode)).toEqual([0, 0, 0, 0, 1]);
    expect(results[4]!.stderr).toBe('Device "nosuch" does not exist.\n');
    expect(exec(runner.nsOf('n1'), 'ip -br link show eth0').stdout).toMatch(
      /^eth0@if\d+ +UP +02:42:ac:12:00:02 /,
    );
    expect(runner.nsOf('n1').byName('vethab')).toBeDefined();
    expect(exec(runner.nsOf('n1'), 'nft list tables').stdout).toBe('table ip t\n');
    expect(new TextDecoder().decode(sim.files.get('/run/packetlab/rules.nft'))).toBe('table ip t {\n}\n');
  });

  it('removes a namespace with its devices: the veth peer in another namespace goes too, the name is free again', () => {
    const sim = new Simulation({ seed: 'run-plan' });
    const runner = new PlanRunner(sim);
    runner.addNamespace('node');
    runner.addNamespace('pod');
    runner.mustRun([
      {
        ns: 'pod',
        argv: ['ip', 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'veth1', 'netns', { ns: 'node' }],
      },
    ]);
    expect(runner.nsOf('node').byName('veth1')).toBeDefined();
    runner.removeNamespace('pod');
    expect(runner.nsOf('node').byName('veth1')).toBeUndefined();
    expect(sim.hasNamespace('pod')).toBe(false);
    expect(runner.hasNamespace('pod')).toBe(false);
    expect(() => runner.nsOf('pod')).toThrow('no namespace pod in the plan');
    expect(runner.addNamespace('pod').byName('eth0')).toBeUndefined();
  });

  it('mustRun names the failing command', () => {
    const runner = new PlanRunner(new Simulation());
    runner.addNamespace('a');
    expect(() => runner.mustRun([{ ns: 'a', argv: ['ip', 'link', 'set', 'eth9', 'up'] }])).toThrow(
      /^a: ip link set eth9 up: Cannot find device "eth9"$/,
    );
  });
});
