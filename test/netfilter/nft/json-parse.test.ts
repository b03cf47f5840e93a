// `nft -j -f FILE` as nft 1.0.6 reads a JSON listing (outputs and errors pinned from the real tool): the objects
// of `nft -j list ruleset` added back in one transaction (set comments dropped, as parser_json.c 1.0.6 drops them),
// a map element jumping to a chain listed after it refused, unknown objects named by their index.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec } from '../../../src/tools/exec.ts';

const here = dirname(fileURLToPath(import.meta.url));
const fixture = (name: string): string => readFileSync(join(here, 'fixtures', name), 'utf8');

function node(files: Record<string, string>) {
  const sim = new Simulation({ seed: 'nft-json-input' });
  for (const [path, text] of Object.entries(files)) sim.files.set(path, new TextEncoder().encode(text));
  return sim.addNamespace('n');
}

describe('nft -j -f', () => {
  it('loads a JSON listing back into the ruleset it lists', () => {
    // Without the element that jumps to chain x, which the listing declares after the map.
    const listing = fixture('json.list').replace(', [80, {"jump": {"target": "x"}}]', '');
    const ns = node({ '/in.json': listing, '/in.nft': fixture('json.nft') });
    expect(exec(ns, 'nft -j -f /in.json')).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    // Added in the listing's order, the sets take the table's first handles (the real nft numbers them so too).
    expect(exec(ns, 'nft -j list ruleset').stdout).toContain(
      '{"set": {"family": "ip", "name": "s", "table": "t", "type": "ipv4_addr", "handle": 1, "flags": ["interval"]',
    );
    const text = exec(ns, 'nft list ruleset').stdout;
    expect(text).toContain('\t\ttcp dport 22 ip saddr 10.0.0.0/8 accept comment "ssh"\n');
    expect(text).not.toContain('comment "sc"');
  });

  it("loads kube-proxy's JSON listing once its chains come before its maps", () => {
    const listing = JSON.parse(fixture('kube-proxy.json.list')) as { nftables: object[] };
    const rank = (item: object) =>
      'metainfo' in item ? 0 : 'table' in item ? 1 : 'chain' in item ? 2 : 'rule' in item ? 4 : 3;
    const reordered = { nftables: [...listing.nftables].sort((a, b) => rank(a) - rank(b)) };
    const ns = node({ '/kp.json': JSON.stringify(reordered), '/kp.nft': fixture('kube-proxy.nft') });
    expect(exec(ns, 'nft -j -f /kp.json').stderr).toBe('');
    const loaded = exec(ns, 'nft list ruleset').stdout;
    expect(exec(ns, 'nft flush ruleset').exitCode).toBe(0);
    expect(exec(ns, 'nft -f /kp.nft').exitCode).toBe(0);
    // The same rules and elements; the order of the chains (and so the handles) differ from the text load, and the
    // sets' comments are gone (parser_json.c 1.0.6 reads none).
    const lines = (text: string) =>
      text
        .split('\n')
        .filter((line) => line.startsWith('\t\t') && !line.startsWith('\t\tcomment'))
        .sort();
    expect(lines(loaded)).toEqual(lines(exec(ns, 'nft list ruleset').stdout));
  });

  it('refuses a map element that jumps to a chain not yet added, and changes nothing', () => {
    const ns = node({ '/in.json': fixture('json.list') });
    expect(exec(ns, 'nft -j -f /in.json')).toEqual({
      stdout: '',
      stderr: 'internal:0:0-0: Error: Could not process rule: No such file or directory\n\n',
      exitCode: 1,
    });
    expect(exec(ns, 'nft list ruleset').stdout).toBe('');
  });

  it('names an unknown object by its index, and a missing file as nft does', () => {
    const ns = node({
      '/bad.json': '{"nftables": [{"table": {"family": "ip", "name": "z"}}, {"frob": {}}]}\n',
    });
    expect(exec(ns, 'nft -j -f /bad.json').stderr).toBe(
      'internal:0:0-0: Error: Unknown object passed to add command.\n\n' +
        'internal:0:0-0: Error: Parsing command array at index 1 failed.\n\n',
    );
    expect(exec(ns, 'nft -j -f /none.json').stderr).toBe(
      'internal:0:0-0: Error: Could not open file "/none.json": No such file or directory\n\n\n',
    );
  });
});
