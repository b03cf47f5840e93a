// YAML as kubectl's YAMLPrinter writes it (sigs.k8s.io/yaml: JSON through gopkg.in/yaml.v2): sorted keys, two-space
// indents, a sequence under a key at the key's indentation, scalars quoted only when yaml.v2 would quote them.
// No multi-line strings (none of packetlab's objects has one), no anchors.

import { type Json, sortedJson } from '../go-json.ts';

/** What yaml.v2's resolve() reads as something other than a string: such strings are double-quoted. */
function resolvesToNonString(s: string): boolean {
  if (s === '' || s === '~' || /^(null|Null|NULL)$/.test(s)) return true;
  if (/^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/.test(s))
    return true;
  if (/^[-+]?(0|[1-9][0-9_]*)$/.test(s) || /^[-+]?0x[0-9a-fA-F_]+$/.test(s) || /^[-+]?0[0-7_]+$/.test(s))
    return true;
  if (/^[-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?$/.test(s)) return true;
  if (/^[-+]?\.(inf|Inf|INF)$/.test(s) || /^\.(nan|NaN|NAN)$/.test(s)) return true;
  // Timestamps (yaml.v2 parseTimestamp's formats).
  if (/^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ].*)?$/.test(s)) return true;
  return false;
}

/** yaml_emitter_analyze_scalar's test for a block plain scalar. */
function plainAllowed(s: string): boolean {
  if (s.startsWith(' ') || s.endsWith(' ')) return false;
  const first = s[0]!;
  const followedBySpace = (i: number) => i + 1 >= s.length || s[i + 1] === ' ';
  if ('#,[]{}&*!|>\'"%@`'.includes(first)) return false;
  if ((first === '?' || first === ':' || first === '-') && followedBySpace(0)) return false;
  for (let i = 1; i < s.length; i++) {
    if (s[i] === ':' && followedBySpace(i)) return false;
    if (s[i] === '#' && s[i - 1] === ' ') return false;
  }
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return false;
  }
  return true;
}

function scalar(value: Json): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (typeof value !== 'string') throw new Error('not a scalar');
  if (resolvesToNonString(value)) return JSON.stringify(value);
  if (plainAllowed(value)) return value;
  return `'${value.replaceAll("'", "''")}'`;
}

function isCollection(value: Json): value is Json[] | { [key: string]: Json } {
  return (
    value !== null &&
    typeof value === 'object' &&
    (Array.isArray(value) ? value.length > 0 : Object.keys(value).length > 0)
  );
}

function flowEmpty(value: Json): string {
  return Array.isArray(value) ? '[]' : '{}';
}

function emit(value: Json, indent: string, lines: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) {
      if (isCollection(item)) {
        const inner: string[] = [];
        emit(item, `${indent}  `, inner);
        lines.push(`${indent}- ${inner[0]!.slice(indent.length + 2)}`, ...inner.slice(1));
      } else {
        lines.push(
          `${indent}- ${typeof item === 'object' && item !== null ? flowEmpty(item) : scalar(item)}`,
        );
      }
    }
    return;
  }
  if (value === null || typeof value !== 'object') {
    lines.push(`${indent}${scalar(value)}`);
    return;
  }
  for (const key of Object.keys(value).sort()) {
    const item = value[key]!;
    if (isCollection(item)) {
      lines.push(`${indent}${scalar(key)}:`);
      emit(item, Array.isArray(item) ? indent : `${indent}  `, lines);
    } else {
      lines.push(
        `${indent}${scalar(key)}: ${typeof item === 'object' && item !== null ? flowEmpty(item) : scalar(item)}`,
      );
    }
  }
}

/** The document kubectl prints for `-o yaml`. */
export function printYaml(value: Json): string {
  const lines: string[] = [];
  emit(sortedJson(value), '', lines);
  return `${lines.join('\n')}\n`;
}
