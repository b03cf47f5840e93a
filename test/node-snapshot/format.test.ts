// The snapshot reader: a real node's snapshot (test/fixtures/node-snapshot/node.snapshot, written by the script on
// Linux 6.18) read section by section, and each kind of unreadable line named by its number.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readSnapshot } from '../../src/node-snapshot/format.ts';
import { SNAPSHOT_COMMANDS, snapshotScript } from '../../src/node-snapshot/script.ts';

const FIXTURE = readFileSync('test/fixtures/node-snapshot/node.snapshot', 'utf8');

/** A snapshot from lines, with the header and the end line around them. */
const file = (...lines: string[]): string => ['packetlab-snapshot 1', ...lines, 'end', ''].join('\n');

describe('the snapshot script', () => {
  it('runs every command in its own section, then reads the sysctls from /proc/sys', () => {
    const script = snapshotScript();
    expect(script.startsWith('#!/bin/sh\n')).toBe(true);
    for (const [name, command] of SNAPSHOT_COMMANDS)
      expect(script).toContain(`\nsection ${name} ${command}\n`);
    expect(script).toContain("printf 'section sysctl /proc/sys\\n'");
    expect(script).toContain('net.ipv4.ip_forward net.ipv4.ip_local_port_range');
    expect(script).toContain('for key in forwarding rp_filter route_localnet');
    expect(script.trimEnd().endsWith("printf 'end\\n'")).toBe(true);
  });
});

describe('reading a snapshot', () => {
  it("reads every section of a real node's snapshot, with each output line's number", () => {
    const snapshot = readSnapshot(FIXTURE);
    expect(snapshot.problems).toEqual([]);
    expect(snapshot.version).toBe(1);
    expect([...snapshot.sections.keys()]).toEqual([...SNAPSHOT_COMMANDS.map(([name]) => name), 'sysctl']);
    const nft = snapshot.sections.get('nft')!;
    expect(nft.command).toBe('nft list ruleset');
    expect(nft.status).toBe(0);
    expect(nft.stdout.split('\n')[0]).toBe('table ip mangle {');
    expect(nft.stderr).toContain('# Warning: table ip nat is managed by iptables-nft, do not touch!\n');
    // The section's first output line is the line after its header.
    expect(nft.stdoutLines[0]).toBe(nft.line + 1);
    expect(FIXTURE.split('\n')[nft.stdoutLines[0]! - 1]).toBe('|table ip mangle {');
    expect(snapshot.sections.get('uname')!.stdout).toBe('vm 6.18.44-fc-v669\n');
  });

  it('keeps empty output lines, a missing tool and CRLF line ends', () => {
    const snapshot = readSnapshot(
      file(
        'section nft nft list ruleset',
        '|table ip t {',
        '|',
        '|}',
        'status 0',
        'section ipset ipset save',
        '!ipset: not found',
        'status 127',
      ).replaceAll('\n', '\r\n'),
    );
    expect(snapshot.problems).toEqual([]);
    expect(snapshot.sections.get('nft')!.stdout).toBe('table ip t {\n\n}\n');
    expect(snapshot.sections.get('ipset')).toMatchObject({
      status: 127,
      stdout: '',
      stderr: 'ipset: not found\n',
    });
  });

  it.each([
    [
      'a file that is not a snapshot',
      'hello\n',
      [
        { line: 1, message: 'not a packetlab snapshot: no packetlab-snapshot line' },
        { line: 1, message: "expected section, status, end or an output line (| or !), got 'hello'" },
        { line: 2, message: 'the snapshot stops before its end line (cut short?)' },
      ],
    ],
    [
      'another version',
      'packetlab-snapshot 2\nend\n',
      [{ line: 1, message: 'snapshot format version 2: this packetlab reads version 1' }],
    ],
    [
      'a version that is no number',
      'packetlab-snapshot one\nend\n',
      [{ line: 1, message: "expected a version number after packetlab-snapshot, got 'one'" }],
    ],
    [
      'an output line outside a section',
      file('|oops'),
      [{ line: 2, message: "an output line outside any section: '|oops'" }],
    ],
    [
      'a section without a status',
      file('section ip-rule ip -j rule', '|[]', 'section ip-neigh ip -j neigh', '|[]', 'status 0'),
      [{ line: 4, message: 'section ip-rule (line 2) has no status line' }],
    ],
    [
      'a status that is no number',
      file('section ip-rule ip -j rule', 'status x'),
      [
        { line: 3, message: "expected an exit status (0-255) after status, got 'x'" },
        { line: 3, message: 'section ip-rule (line 2) has no status line' },
      ],
    ],
    [
      'a status outside a section',
      file('status 0'),
      [{ line: 2, message: 'a status line outside any section' }],
    ],
    [
      'a section twice',
      file('section ip-rule ip -j rule', 'status 0', 'section ip-rule ip -j rule', 'status 0'),
      [{ line: 4, message: 'section ip-rule appears twice (the first is kept)' }],
    ],
    [
      'a section with a bad name',
      file('section IP! x', '|1', 'status 0'),
      [{ line: 2, message: "expected a section name after section, got 'IP!'" }],
    ],
    [
      'an unknown keyword',
      file('sektion ip-rule'),
      [
        {
          line: 2,
          message: "expected section, status, end or an output line (| or !), got 'sektion ip-rule'",
        },
      ],
    ],
    [
      'a second header',
      file('packetlab-snapshot 1'),
      [{ line: 2, message: 'a second packetlab-snapshot line' }],
    ],
    ['text after the end', `${file()}more\n`, [{ line: 3, message: 'text after the end line' }]],
    [
      'words after end',
      'packetlab-snapshot 1\nend now\n',
      [{ line: 2, message: "unexpected words after end: 'now'" }],
    ],
    [
      'a file cut short',
      'packetlab-snapshot 1\nsection ip-rule ip -j rule\n|[',
      [
        { line: 4, message: 'section ip-rule (line 2) has no status line' },
        { line: 4, message: 'the snapshot stops before its end line (cut short?)' },
      ],
    ],
  ])('names the line of %s', (_name, text, problems) => {
    expect(readSnapshot(text).problems).toEqual(problems);
  });

  it('a section with a bad name keeps its lines out of the others', () => {
    const snapshot = readSnapshot(
      file('section ip-rule ip -j rule', 'status 0', 'section IP! x', '|1', 'status 0'),
    );
    expect([...snapshot.sections.keys()]).toEqual(['ip-rule']);
    expect(snapshot.sections.get('ip-rule')!.stdout).toBe('');
  });
});
