// The lesson's six cases on a real cluster (scenarios/lesson-cluster.ts): every case, for both CNIs and both
// kube-proxy modes, passes every check it declares; the scenario table runs a case from its arguments.

import { describe, expect, it } from 'vitest';
import { FORMATION_CNIS, FORMATION_PROXIES } from '../../scenarios/formation-cluster.ts';
import { SCENARIOS } from '../../scenarios/index.ts';
import { LESSON_CASES, lessonCaseStory } from '../../scenarios/lesson-cluster.ts';
import { transcript } from '../../src/story/story.ts';

const matrix = LESSON_CASES.flatMap((which) =>
  FORMATION_CNIS.flatMap((cni) => FORMATION_PROXIES.map((kubeProxy) => [which, cni, kubeProxy] as const)),
);

describe('the lesson on the cluster formation', () => {
  it.each(matrix)('case %i with %s and kube-proxy %s passes every check', (which, cni, kubeProxy) => {
    const result = lessonCaseStory(which, { cni, kubeProxy });
    expect(result.checks.length).toBeGreaterThanOrEqual(5);
    expect(result.checks.filter((check) => !check.pass)).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it('runs the commands of the lesson on the nodes, as a terminal shows them', () => {
    const lines = transcript(lessonCaseStory(6, { cni: 'flannel-vxlan', kubeProxy: 'nftables' }));
    expect(lines).toContain('$ docker exec formation-worker2 crictl ps --name signalements');
    const inspect = lines.find((line) => line.includes('crictl inspect --output go-template'));
    expect(inspect).toMatch(/--template '\{\{\.info\.pid\}\}' [0-9a-f]{13}$/);
    expect(
      lines.some((line) => /^\$ docker exec formation-worker2 nsenter -t \d+ -n ip addr$/.test(line)),
    ).toBe(true);
    expect(lines.some((line) => /^ {4}inet 10\.244\.2\.7\/24 .*scope global eth0$/.test(line))).toBe(true);
  });

  it('is the same story for a seed, and another seed changes what is random', () => {
    const a = transcript(lessonCaseStory(3, { seed: 's1' }));
    expect(transcript(lessonCaseStory(3, { seed: 's1' }))).toEqual(a);
    expect(transcript(lessonCaseStory(3, { seed: 's2' }))).not.toEqual(a);
  });

  it('the scenario table runs a case from its arguments and refuses unknown ones', () => {
    const entry = SCENARIOS.find((scenario) => scenario.name === 'lesson-case')!;
    const result = entry.run({ seed: undefined, args: ['2', 'flannel-vxlan', 'nftables'] });
    if ('usage' in result) throw new Error(result.usage);
    expect(result.scenario).toBe('lesson-case 2');
    expect(result.ok).toBe(true);
    expect(result.steps.some((step) => step.kind === 'say' && step.text.includes('flannel-vxlan'))).toBe(
      true,
    );
    expect(entry.run({ seed: undefined, args: ['7'] })).toHaveProperty('usage');
    expect(entry.run({ seed: undefined, args: ['1', 'cilium'] })).toHaveProperty('usage');
  });

  it('tells a case in French with --lang fr, every sentence translated, the same checks', () => {
    const entry = SCENARIOS.find((scenario) => scenario.name === 'lesson-case')!;
    const en = entry.run({ seed: undefined, args: ['1', 'kindnet'] });
    const fr = entry.run({ seed: undefined, args: ['1', 'kindnet'], lang: 'fr' });
    if ('usage' in en || 'usage' in fr) throw new Error('usage');
    const says = (result: typeof en) =>
      result.steps.flatMap((step) => (step.kind === 'say' ? [step.text] : []));
    expect(says(fr)).toContain(
      'pas de pont : le nœud route par adresse IP, vers la veth de chaque pod (kindnet, ptp)',
    );
    expect(says(fr).filter((text, index) => text === says(en)[index])).toEqual([]);
    expect(fr.checks).toEqual(en.checks);
  });
});
