// The Go library behaviour the node and pod commands mirror, checked against Go itself on this machine: text/tabwriter
// (kubectl's and crictl's tables) and encoding/json's MarshalIndent of a map (kubectl -o json, crictl inspect), over
// random inputs. Skipped when no Go toolchain is installed.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Json } from '../../../src/k8s/commands/go-json.ts';
import { printJson } from '../../../src/k8s/commands/kubectl/api-json.ts';
import { CRICTL_TABLE, formatTable, KUBECTL_TABLE } from '../../../src/k8s/commands/table.ts';
import { hasTool } from '../../support/tools.ts';

const PROGRAM = `package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
)

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<22), 1<<22)
	for sc.Scan() {
		var in struct {
			Mode     string          \`json:"mode"\`
			MinWidth int             \`json:"minWidth"\`
			Padding  int             \`json:"padding"\`
			Rows     [][]string      \`json:"rows"\`
			Value    json.RawMessage \`json:"value"\`
		}
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			panic(err)
		}
		var b strings.Builder
		if in.Mode == "table" {
			w := tabwriter.NewWriter(&b, in.MinWidth, 4, in.Padding, ' ', 0)
			for _, r := range in.Rows {
				fmt.Fprintln(w, strings.Join(r, "\\t"))
			}
			w.Flush()
		} else {
			var v any
			dec := json.NewDecoder(strings.NewReader(string(in.Value)))
			dec.UseNumber()
			if err := dec.Decode(&v); err != nil {
				panic(err)
			}
			out, _ := json.MarshalIndent(v, "", "    ")
			b.Write(out)
			b.WriteString("\\n")
		}
		out, _ := json.Marshal(b.String())
		fmt.Println(string(out))
	}
}
`;

const dir = mkdtempSync(join(tmpdir(), 'plab-go-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs every request through one Go process; returns its answers in order. */
function go(requests: readonly unknown[]): string[] {
  writeFileSync(join(dir, 'main.go'), PROGRAM);
  const result = spawnSync('go', ['run', join(dir, 'main.go')], {
    input: `${requests.map((r) => JSON.stringify(r)).join('\n')}\n`,
    encoding: 'utf8',
    env: { ...process.env, GOCACHE: join(dir, 'cache'), GOFLAGS: '', GO111MODULE: 'off' },
    maxBuffer: 1 << 26,
  });
  if (result.status !== 0) throw new Error(result.stderr);
  return result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as string);
}

const cell = fc.stringMatching(/^[A-Za-z0-9./:<>() -]{0,24}$/);

describe.skipIf(!hasTool('go'))('against Go on this machine', () => {
  it('text/tabwriter: kubectl’s and crictl’s table layouts', () => {
    const tables = fc.sample(
      fc.integer({ min: 1, max: 9 }).chain((columns) =>
        fc.array(fc.array(cell, { minLength: columns, maxLength: columns }), {
          minLength: 1,
          maxLength: 6,
        }),
      ),
      { numRuns: 60, seed: 10 },
    );
    const styles = [KUBECTL_TABLE, CRICTL_TABLE];
    const requests = tables.flatMap((rows) => styles.map((style) => ({ mode: 'table', ...style, rows })));
    const answers = go(requests);
    requests.forEach((request, i) => {
      expect(formatTable(request.rows, request)).toBe(answers[i]);
    });
  });

  it('encoding/json MarshalIndent of a map: sorted keys, four spaces, HTML escaping', () => {
    const json: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constant(null),
        fc.boolean(),
        fc.integer({ min: -1e9, max: 1e9 }),
        fc.string({
          maxLength: 12,
          unit: fc.oneof(
            fc.constantFrom('<', '>', '&', '"', '\\', '\n', '\b', '\f', '\u0001', '\u2028', 'é'),
            fc.string({ minLength: 1, maxLength: 1 }),
          ),
        }),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    const values = fc.sample(json, { numRuns: 80, seed: 11 });
    const answers = go(values.map((value) => ({ mode: 'json', value })));
    values.forEach((value, i) => {
      expect(printJson(value)).toBe(answers[i]);
    });
  });
});
