// The declarative lab: readLab names the path of every unknown key and bad value; runLab builds the cluster, runs
// the traffic and computes each check from what ran, so a check whose claim is false fails.

import { describe, expect, it } from 'vitest';
import { readLab, runLab } from '../../src/story/declarative.ts';
import { checkLines } from '../../src/story/story.ts';

describe('readLab', () => {
  it('fills the defaults of a minimal document', () => {
    const read = readLab({});
    expect(read).toEqual({
      ok: true,
      lab: {
        scenario: undefined,
        cluster: { name: 'kind', workers: 2, cni: 'kindnet', kubeProxy: 'iptables', seed: undefined },
        pods: [],
        services: [],
        traffic: [],
        checks: [],
      },
    });
  });

  it('names the path of each unknown key, bad value and missing field', () => {
    const read = readLab({
      cluster: { cni: 'calico', workers: 2.5, kubeproxy: 'iptables' },
      pods: [{ name: 'a' }, { name: 'b', node: 'kind-worker', ip: '10.0.0.300', http: { port: 0 } }],
      services: [{ name: 's', ports: [{ targetPort: 80 }] }],
      traffic: [{ say: 'x', run: 'y' }, { sleep: '5ms' }],
      checks: [
        { reachable: { from: 'a', to: 'ftp://x' } },
        { sourceSeenAs: { from: 'a', to: '10.0.0.1' } },
        {},
      ],
    });
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.errors.map((error) => `${error.path.join('.')}: ${error.message}`)).toEqual([
      'cluster.kubeproxy: unknown key (expected one of name, workers, cni, kubeProxy, seed)',
      'cluster.workers: must be an integer from 0 to 16, got 2.5',
      'cluster.cni: must be one of kindnet, flannel-vxlan, flannel-host-gw, got "calico"',
      'pods.0.node: is required',
      'pods.1.http.port: must be an integer from 1 to 65535, got 0',
      'pods.1.ip: must be an IPv4 address, got "10.0.0.300"',
      'services.0.ports.0.port: is required',
      'traffic.0: needs exactly one of say, run, sleep',
      'traffic.1.sleep: must be a duration in seconds (2, 0.5s, 1m), got "5ms"',
      'checks.0.reachable.to: must be an http:// URL or an IPv4 address, got "ftp://x"',
      'checks.1.sourceSeenAs.expect: is required',
      'checks.1.sourceSeenAs.to: must be an http:// URL (the server that logs the source)',
      'checks.2: needs exactly one of reachable, sourceSeenAs, dropsAt, command',
    ]);
    expect(read.errors[0]).toMatchObject({ key: true });
    expect(read.errors[1]).not.toHaveProperty('key');
  });

  it('refuses a document that is not a mapping', () => {
    expect(readLab(['a'])).toEqual({
      ok: false,
      errors: [{ path: [], message: 'the document must be a mapping, got a list' }],
    });
  });
});

describe('runLab', () => {
  it('computes every check from what ran: true claims pass, false ones fail', () => {
    const read = readLab({
      cluster: { workers: 1, seed: 'lab' },
      pods: [
        { name: 'client', node: 'kind-worker' },
        { name: 'web', node: 'kind-control-plane', labels: { app: 'web' }, http: { port: 8080 } },
      ],
      services: [
        {
          name: 'web',
          clusterIP: '10.96.0.80',
          selector: { app: 'web' },
          ports: [{ port: 80, targetPort: 8080 }],
        },
        // No pod has the label: kube-proxy rejects what is sent to it, on the client's node.
        { name: 'empty', clusterIP: '10.96.0.81', selector: { app: 'none' }, ports: [{ port: 80 }] },
      ],
      traffic: [{ say: 'client calls web' }, { run: 'kubectl exec client -- curl -s http://10.96.0.80/' }],
      checks: [
        { reachable: { from: 'client', to: 'http://10.96.0.80/' } },
        {
          name: 'claimed unreachable, but it answers',
          reachable: { from: 'client', to: 'http://10.96.0.80/', expect: false },
        },
        { sourceSeenAs: { from: 'client', to: 'http://10.96.0.80/', expect: '10.244.1.2' } },
        {
          name: 'claimed masqueraded to the node',
          sourceSeenAs: { from: 'client', to: 'http://10.96.0.80/', expect: '172.18.0.3' },
        },
        {
          dropsAt: {
            from: 'client',
            to: 'http://10.96.0.81/',
            netns: 'kind-worker',
            reason: 'NETFILTER_DROP',
          },
        },
        {
          name: 'claimed dropped on the way to a Service that answers',
          dropsAt: { from: 'client', to: 'http://10.96.0.80/', netns: 'kind-worker' },
        },
        { command: { run: 'kubectl get svc web', contains: '10.96.0.80' } },
        { command: { run: 'kubectl get svc nope', exitCode: 0 } },
      ],
    });
    if (!read.ok) throw new Error(JSON.stringify(read.errors));
    const result = runLab(read.lab, { seed: undefined, name: 'lab.yaml' });
    expect(result.scenario).toBe('lab.yaml');
    expect(result.seed).toBe('lab');
    expect(result.steps.slice(0, 3).map((step) => step.kind)).toEqual(['say', 'say', 'command']);
    expect(result.steps[2]).toMatchObject({
      command: 'kubectl exec client -- curl -s http://10.96.0.80/',
      output: 'ok\n',
    });
    expect(checkLines(result)).toEqual([
      'PASS client reaches http://10.96.0.80/',
      'FAIL claimed unreachable, but it answers: expected no answer, got answered (exit 0)',
      "PASS the server sees client's request to http://10.96.0.80/ come from 10.244.1.2",
      'FAIL claimed masqueraded to the node: expected 172.18.0.3, got 10.244.1.2',
      "PASS client's request to http://10.96.0.81/ is dropped in kind-worker NETFILTER_DROP",
      'FAIL claimed dropped on the way to a Service that answers: expected kind-worker, got no drop',
      'PASS kubectl get svc web',
      'FAIL kubectl get svc nope: expected exit 0, got exit 1',
    ]);
    expect(result.ok).toBe(false);
  });

  it('names the path when the cluster refuses what the document asks', () => {
    const read = readLab({ cluster: { workers: 1 }, pods: [{ name: 'a', node: 'kind-worker9' }] });
    if (!read.ok) throw new Error(JSON.stringify(read.errors));
    expect(() => runLab(read.lab, { seed: undefined, name: 'x' })).toThrow(
      'pods[0].node: no node kind-worker9 (nodes: kind-control-plane, kind-worker)',
    );
  });
});
