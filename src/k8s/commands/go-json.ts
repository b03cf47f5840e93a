// Go's encoding/json as the node and pod commands' sources use it on decoded JSON (map[string]any): keys sorted at
// every depth, MarshalIndent's layout and its HTML-safe string escapes. Numbers are printed as JavaScript prints them
// (integers only in practice: Go's float formatting of 1e21 and beyond differs).

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Go's map[string]any marshalling: keys sorted at every depth. */
export function sortedJson(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortedJson);
  if (value === null || typeof value !== 'object') return value;
  const out: { [key: string]: Json } = {};
  for (const key of Object.keys(value).sort()) out[key] = sortedJson(value[key]!);
  return out;
}

/** encoding/json's MarshalIndent of decoded JSON (prefix, indent as Go takes them). */
export function marshalIndent(value: Json, prefix: string, indent: string): string {
  const write = (v: Json, depth: string): string => {
    if (v === null) return 'null';
    if (typeof v === 'boolean' || typeof v === 'number') return String(v);
    if (typeof v === 'string') return goString(v);
    const inner = depth + indent;
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      return `[\n${v.map((item) => `${prefix}${inner}${write(item, inner)}`).join(',\n')}\n${prefix}${depth}]`;
    }
    // Sorted here too: an object's integer-like keys enumerate numerically whatever their insertion order.
    const keys = Object.keys(v).sort();
    if (keys.length === 0) return '{}';
    return `{\n${keys.map((key) => `${prefix}${inner}${goString(key)}: ${write(v[key]!, inner)}`).join(',\n')}\n${prefix}${depth}}`;
  };
  return write(value, '');
}

/** encoding/json's appendString with HTML escaping: \n \r \t, other control characters and <, >, &, U+2028/9 as \uXXXX. */
function goString(s: string): string {
  let out = '"';
  for (const c of s) {
    const code = c.codePointAt(0)!;
    if (c === '"') out += '\\"';
    else if (c === '\\') out += '\\\\';
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (code < 0x20 || c === '<' || c === '>' || c === '&' || code === 0x2028 || code === 0x2029) {
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    } else out += c;
  }
  return `${out}"`;
}
