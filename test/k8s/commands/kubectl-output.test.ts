// kubectl get -o json|yaml: the API's shape, Go's sorted keys, kubectl's four-space JSON and yaml.v2's quoting.

import { describe, expect, test } from 'vitest';
import { clusterExec } from '../../../src/k8s/commands/cluster-exec.ts';
import { printYaml } from '../../../src/k8s/commands/kubectl/yaml.ts';
import { buildFixture, SECOND } from './fixture.ts';

describe('yaml.v2 scalars as kubectl prints them', () => {
  test.each([
    ['plain', 'plain'],
    ['', '""'],
    ['80', '"80"'],
    ['0x4000', '"0x4000"'],
    ['1.5', '"1.5"'],
    ['true', '"true"'],
    ['yes', '"yes"'],
    ['null', '"null"'],
    ['1970-01-01T00:00:30Z', '"1970-01-01T00:00:30Z"'],
    ['10.244.1.5', '10.244.1.5'],
    ['a: b', "'a: b'"],
    ['*star', "'*star'"],
    ['- dash', "'- dash'"],
    ['-dash', '-dash'],
    ["it's", "it's"],
    ['x #y', "'x #y'"],
  ])('%j prints as %s', (value, printed) => {
    expect(printYaml({ k: value })).toBe(`k: ${printed}\n`);
  });

  test('sequences sit at their key’s indentation; empty collections are flow', () => {
    expect(printYaml({ b: [{ port: 1, items: [] }, 'z'], a: {} })).toBe(
      'a: {}\nb:\n- items: []\n  port: 1\n- z\n',
    );
    // yaml.v2 reads y and n as booleans: as keys too they are quoted.
    expect(printYaml({ y: 1 })).toBe('"y": 1\n');
  });
});

describe('kubectl get -o json|yaml', () => {
  const f = buildFixture();
  f.sim.scheduler.runUntil(120 * SECOND);
  const run = (line: string) => clusterExec(f.ctx, line);

  test('one object named alone prints as itself, with four-space indents and sorted keys', () => {
    const uid = f.store.get('Service', 'default', 'signalements')!.metadata.uid;
    expect(run('kubectl get svc signalements -o json').stdout).toBe(
      [
        '{',
        '    "apiVersion": "v1",',
        '    "kind": "Service",',
        '    "metadata": {',
        '        "creationTimestamp": "1970-01-01T00:00:45Z",',
        '        "name": "signalements",',
        '        "namespace": "default",',
        '        "resourceVersion": "7",',
        `        "uid": "${uid}"`,
        '    },',
        '    "spec": {',
        '        "clusterIP": "10.96.40.12",',
        '        "clusterIPs": [',
        '            "10.96.40.12"',
        '        ],',
        '        "externalTrafficPolicy": "Cluster",',
        '        "internalTrafficPolicy": "Cluster",',
        '        "ipFamilies": [',
        '            "IPv4"',
        '        ],',
        '        "ipFamilyPolicy": "SingleStack",',
        '        "ports": [',
        '            {',
        '                "nodePort": 30080,',
        '                "port": 80,',
        '                "protocol": "TCP",',
        '                "targetPort": 8000',
        '            }',
        '        ],',
        '        "selector": {',
        '            "app": "signalements"',
        '        },',
        '        "sessionAffinity": "None",',
        '        "type": "NodePort"',
        '    },',
        '    "status": {',
        '        "loadBalancer": {}',
        '    }',
        '}',
        '',
      ].join('\n'),
    );
  });

  test('a listing is a List, empty or not', () => {
    expect(run('kubectl get daemonsets -o json')).toEqual({
      stdout:
        '{\n    "apiVersion": "v1",\n    "items": [],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n',
      stderr: '',
      exitCode: 0,
    });
    const yaml = run('kubectl get pods -l run=diag -o yaml').stdout;
    expect(
      yaml.startsWith(
        'apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    creationTimestamp: "1970-01-01T00:00:30Z"\n',
      ),
    ).toBe(true);
    expect(yaml).toContain('\n  status:\n    conditions:\n    - status: "True"\n      type: Ready\n');
    expect(yaml).toContain('\n    podIP: 10.244.1.5\n    podIPs:\n    - ip: 10.244.1.5\n');
    expect(yaml.endsWith('kind: List\nmetadata:\n  resourceVersion: ""\n')).toBe(true);
  });

  test('a missing name prints only the error', () => {
    expect(run('kubectl get pod nope -o yaml')).toEqual({
      stdout: '',
      stderr: 'Error from server (NotFound): pods "nope" not found\n',
      exitCode: 1,
    });
  });
});

test('integer-like keys sort as Go sorts strings, not as JavaScript enumerates them', () => {
  expect(printYaml({ '9': 'a', '10': 'b' })).toBe('"10": b\n"9": a\n');
});
