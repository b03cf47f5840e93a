// The lesson's four exercises (scenarios/exercises.ts): each passes every check it declares, prints what answers it,
// and is the same story for a seed; the scenario table runs them from their arguments.

import { describe, expect, it } from 'vitest';
import { EXERCISES, exerciseStory } from '../../scenarios/exercises.ts';
import { SCENARIOS } from '../../scenarios/index.ts';
import { checkLines, type StoryResult, transcript } from '../../src/story/story.ts';

const results = new Map<number, StoryResult>();
function run(which: (typeof EXERCISES)[number]): StoryResult {
  let result = results.get(which);
  if (result === undefined) {
    result = exerciseStory(which);
    results.set(which, result);
  }
  return result;
}

describe('the exercises', () => {
  it.each(EXERCISES)('exercise %i passes every check it declares', (which) => {
    const result = run(which);
    expect(result.checks.length).toBeGreaterThanOrEqual(7);
    expect(checkLines(result).filter((line) => !line.startsWith('PASS'))).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it('exercise 1 prints every hop: DNAT on formation-worker, VXLAN between the nodes, the un-DNAT back', () => {
    const lines = transcript(run(1));
    expect(lines).toContain('$ kubectl exec diag -- curl -s http://signalements/sante');
    const table = lines.slice(lines.findIndex((line) => line.startsWith('step  node')));
    expect(table[0]).toMatch(/^step +node +device +dir +where +source +destination +outer \(VXLAN\)$/);
    const rows = table.slice(1, 17);
    expect(rows.map((row) => row.split(/ +/)[0])).toEqual(
      Array.from({ length: 16 }, (_, i) => String(i + 1)),
    );
    // Step 1 before the DNAT, step 2 after; the VXLAN legs carry their outer header; step 15 is un-DNATed.
    expect(rows[0]).toMatch(
      /formation-worker +veth[0-9a-f]{8} +P .* 10\.244\.1\.5\.\d+ +10\.96\.40\.12\.80$/,
    );
    expect(rows[1]).toMatch(/formation-worker +cni0 +In .* 10\.244\.1\.5\.\d+ +10\.244\.2\.7\.8000$/);
    expect(rows[3]).toMatch(/eth0 +Out .* 10\.244\.2\.7\.8000 +172\.18\.0\.3\.\d+ > 172\.18\.0\.4\.8472$/);
    expect(rows[11]).toMatch(/formation-worker2 +eth0 +Out .* 172\.18\.0\.4\.\d+ > 172\.18\.0\.3\.8472$/);
    expect(rows[14]).toMatch(/formation-worker +cni0 +Out .* 10\.96\.40\.12\.80 +10\.244\.1\.5\.\d+$/);
    expect(
      lines.some((line) => /^tcp .* src=10\.244\.1\.5 dst=10\.96\.40\.12 .* src=10\.244\.2\.7 /.test(line)),
    ).toBe(true);
  });

  it('exercise 2 shows the quota lost under Cluster, then the clients kept by Local and by PROXY v2', () => {
    // nc prints the answer as it came, CRLF line ends included.
    const lines = transcript(run(2)).map((line) => line.replace(/\r$/, ''));
    expect(lines).toContain('HTTP/1.0 429 Too Many Requests');
    expect(lines.some((line) => /^quota exceeded for (172\.18\.0\.\d|10\.244\.\d\.[01])$/.test(line))).toBe(
      true,
    );
    expect(lines.filter((line) => /^203\.0\.113\.1[0-2] - - /.test(line))).toHaveLength(18);
    expect(lines).toContain('HTTP/1.1 400 Bad Request');
    expect(lines).toContain('curl: (52) Empty reply from server');
    expect(lines).toContain('curl: (28) Connection timed out after 2000 milliseconds');
  });

  it('exercise 3 shows big frames leaving formation-worker2 and never reaching formation-worker, no ICMP', () => {
    const lines = transcript(run(3));
    const captures = (node: string) => {
      const start = lines.indexOf(`$ docker exec ${node} tcpdump -e -ni eth0 'udp port 8472 or icmp'`);
      const end = lines.findIndex((line, i) => i > start && line.endsWith('packets dropped by kernel'));
      return lines.slice(start, end);
    };
    const big = (list: string[]) => list.filter((line) => line.includes('length 1514: 172.18.0.4.')).length;
    expect(big(captures('formation-worker2'))).toBeGreaterThanOrEqual(10);
    expect(big(captures('formation-worker'))).toBe(0);
    expect(lines.filter((line) => !line.startsWith('# ') && line.includes('ICMP'))).toEqual([]);
    expect(lines).toContain('curl: (28) Operation timed out after 5000 milliseconds with 0 bytes received');
  });

  it("exercise 4 runs the checks in order and shows formation-worker3's health answer", () => {
    const text = transcript(run(4)).join('\n');
    const order = [
      '$ kubectl get pods -o wide -l app=signalements',
      '$ kubectl get endpointslices -l kubernetes.io/service-name=signalements -o yaml',
      '$ kubectl get svc signalements -o yaml',
      'http://172.18.0.5:3',
      'health check HTTP GET /healthz on port 10256',
    ].map((needle) => text.indexOf(needle));
    expect(order.every((at, i) => at > 0 && (i === 0 || at > order[i - 1]!))).toBe(true);
    expect(text).toMatch(/"localEndpoints": 0,\n\t"serviceProxyHealthy": true\n\} 503/);
  });

  it('is the same story for a seed', () => {
    expect(transcript(exerciseStory(1))).toEqual(transcript(run(1)));
    expect(transcript(exerciseStory(4))).toEqual(transcript(run(4)));
    expect(transcript(exerciseStory(1, 'other'))).not.toEqual(transcript(run(1)));
  });

  it('the scenario table runs an exercise from its arguments and refuses others', () => {
    const entry = SCENARIOS.find((scenario) => scenario.name === 'exercise')!;
    const result = entry.run({ seed: undefined, args: ['4'] });
    if ('usage' in result) throw new Error(result.usage);
    expect(result.scenario).toBe('exercise 4');
    expect(result.ok).toBe(true);
    expect(entry.run({ seed: undefined, args: ['5'] })).toHaveProperty('usage');
    expect(entry.run({ seed: undefined, args: ['1', '2'] })).toHaveProperty('usage');
  });
});
