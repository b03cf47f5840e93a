// Each rule as real nft 1.0.6 printed it after `nft add rule` (fixtures/rules.json): packetlab parses it into the
// IR and prints it back byte for byte, or fails with the same first error line.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runNft } from '../../../src/netfilter/nft/index.ts';
import { RulesetStore } from '../../../src/netfilter/ruleset.ts';

const here = dirname(fileURLToPath(import.meta.url));
const rows: { family: string; rule: string; printed: string }[] = JSON.parse(
  readFileSync(join(here, 'fixtures', 'rules.json'), 'utf8'),
);

function prelude(family: string): string {
  return [
    `add table ${family} t`,
    `add chain ${family} t c`,
    `add chain ${family} t x`,
    `add chain ${family} t y`,
    `add map ${family} t m1 { type ipv4_addr . inet_proto . inet_service : verdict; }`,
    `add map ${family} t m2 { type inet_proto . inet_service : verdict ; }`,
    `add set ${family} t s1 { type ipv4_addr; }`,
    `add set ${family} t s2 { type ipv4_addr . inet_proto . inet_service; }`,
  ].join('; ');
}

describe('nft rules print as nft 1.0.6 prints them', () => {
  it.each(rows.map((row) => [`${row.family}: ${row.rule}`, row] as const))('%s', (_name, row) => {
    const netfilter = { store: new RulesetStore() };
    const added = runNft(netfilter, `${prelude(row.family)}; add rule ${row.family} t c ${row.rule}`);
    if (row.printed.startsWith('ERROR ')) {
      expect(added.exitCode).toBe(1);
      expect(`ERROR ${added.stderr.split('\n')[0]}`).toBe(row.printed);
      return;
    }
    expect(added.stderr).toBe('');
    const listed = runNft(netfilter, `list chain ${row.family} t c`);
    expect(listed.stdout.split('\n')[2]).toBe(`\t\t${row.printed}`);
  });
});
