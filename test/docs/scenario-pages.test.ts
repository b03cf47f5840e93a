// docs/scenarios/: every committed page is what running its scenario prints today, and every scenario has one.
// When this fails after a change to a scenario (or a new one), run `npm run docs:scenarios` and commit the pages.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../scenarios/index.ts';
import { PAGES_DIR, scenarioPages } from '../../scripts/scenario-pages.ts';

const pages = scenarioPages();

describe('the generated scenario pages (npm run docs:scenarios)', () => {
  it('has one page per scenario, an index, and no page of a scenario that is gone', () => {
    const committed = readdirSync(PAGES_DIR).filter((file) => file.endsWith('.md'));
    expect(committed.sort()).toEqual([...pages.keys()].sort());
    expect([...pages.keys()]).toEqual(['README.md', ...SCENARIOS.map((entry) => `${entry.name}.md`)]);
  });

  it.each([...pages.keys()])('%s is up to date (else: npm run docs:scenarios)', (file) => {
    expect(readFileSync(join(PAGES_DIR, file), 'utf8')).toBe(pages.get(file));
  });

  it("holds the scenario's transcript, its checks and its diagram", () => {
    const veth = pages.get('veth.md')!;
    expect(veth).toContain('## `packetlab run veth`\n');
    expect(veth).toContain('$ ip netns exec a ping -c 2 10.0.0.2\n');
    expect(veth).toContain('PASS both echo requests are answered\n');
    expect(veth).toContain('```mermaid\nsequenceDiagram\n');
    const tour = pages.get('tour.md')!;
    expect(tour).toContain('## `packetlab run tour --lang fr`\n');
    expect(tour).toContain('# ──── Cas 1 : deux pods sur le même nœud ────\n');
    expect(tour).toContain('The same as the run above.');
  });
});
