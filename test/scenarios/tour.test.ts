// The guided tour (npm start): the lesson's six cases on one cluster, in English and in French, every check passing,
// every hint said after its command, the narration translated and nothing else changed by the language.

import { describe, expect, it } from 'vitest';
import { TOUR_CASES, tourStory } from '../../scenarios/tour.ts';
import { checkLines, type StoryResult, transcript } from '../../src/story/story.ts';

const english = tourStory();
const french = tourStory({ lang: 'fr' });

function says(result: StoryResult): string[] {
  return result.steps.flatMap((step) => (step.kind === 'say' ? [step.text] : []));
}

describe('the guided tour (packetlab run tour)', () => {
  it('passes every check, in English and in French, with the same checks in both', () => {
    expect(checkLines(english).filter((line) => !line.startsWith('PASS '))).toEqual([]);
    expect(english.ok).toBe(true);
    expect(french.ok).toBe(true);
    expect(english.checks.length).toBeGreaterThan(35);
    expect(french.checks).toEqual(english.checks);
  });

  it('tells the six cases in order, each titled, and closes with the recap', () => {
    const lines = transcript(english);
    const titles = lines.filter((line) => line.startsWith('# ──── '));
    expect(titles).toEqual([
      '# ──── Case 1: two pods on the same node ────',
      '# ──── Case 2: two pods on different nodes ────',
      '# ──── Case 3: to a Service ────',
      '# ──── Case 4: the way back ────',
      '# ──── Case 5: a pod calls the Internet ────',
      '# ──── Case 6: from outside ────',
      '# ──── Recap ────',
    ]);
    // Each case runs its commands between its title and the next: the ping of case 2 after case 2's title.
    const case2 = lines.indexOf(titles[1]!);
    const case3 = lines.indexOf(titles[2]!);
    const ping = lines.indexOf('$ kubectl exec diag -- ping -c 1 10.244.2.7');
    expect(ping).toBeGreaterThan(case2);
    expect(ping).toBeLessThan(case3);
    // After each case, how its checks went: together they are every check but the cluster's own.
    const tallies = lines.flatMap((line) => {
      const match = /^# (\d+) checks for this case: all pass\.$/.exec(line);
      return match === null ? [] : [Number(match[1])];
    });
    expect(tallies).toHaveLength(6);
    expect(tallies.reduce((a, b) => a + b, 0)).toBe(english.checks.length - 1);
    expect(lines).toContain('$ docker exec formation-worker ip -d link show flannel.1');
    expect(lines.some((line) => / eth0 +Out +IP 172\.18\.0\.3\.\d+ > 172\.18\.0\.4\.8472: /.test(line))).toBe(
      true,
    );
  });

  it('says what to look at right after the command each hint names, every hint once', () => {
    const hints = TOUR_CASES.flatMap((tourCase) => tourCase.hints);
    const said = english.steps.filter((step) => step.kind === 'say' && step.text.startsWith('look at: '));
    expect(said).toHaveLength(hints.length);
    // A hint whose command is gone (a case changed its commands) is named here.
    const misplaced = hints.filter((hint) => {
      const index = english.steps.findIndex(
        (step) => step.kind === 'say' && step.text === `look at: ${hint.look.en}`,
      );
      const before = english.steps[index - 1];
      return index < 0 || before?.kind !== 'command' || !before.command.includes(hint.after);
    });
    expect(misplaced.map((hint) => hint.after)).toEqual([]);
  });

  it("narrates in French with the lesson's own words; the language changes the narration only", () => {
    const en = says(english);
    const fr = says(french);
    expect(fr).toHaveLength(en.length);
    // Every sentence is translated: none is left in English.
    expect(fr.filter((text, index) => text === en[index])).toEqual([]);
    const text = fr.join('\n');
    for (const words of [
      'la paire veth',
      'le pont',
      "l'encapsulation",
      'le masquerade',
      'conntrack retient la traduction',
      'épingle à cheveux',
      '──── Récapitulatif ────',
      'à observer : ',
    ])
      expect(text).toContain(words);
    expect(french.steps.filter((step) => step.kind === 'command')).toEqual(
      english.steps.filter((step) => step.kind === 'command'),
    );
    // Shown text (access logs) keeps its lines; only its title is translated.
    const shown = (result: StoryResult) =>
      result.steps.flatMap((step) => (step.kind === 'output' ? [step.text.split('\n').slice(1)] : []));
    expect(shown(french)).toEqual(shown(english));
    expect(transcript(french)).toContain("le journal d'accès de signalements-7d9f-b :");
  });

  it('is the same transcript twice for one seed', () => {
    expect(transcript(tourStory())).toEqual(transcript(english));
  });
});
