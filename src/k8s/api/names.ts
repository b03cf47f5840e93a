// Object names as the API server checks and generates them: DNS-1035 labels (Services), DNS-1123 subdomains (pods,
// workloads) and labels (port names), IANA_SVC_NAME port names, generateName's 5-character suffix and the
// pod-template-hash encoding. No IPv6, no custom name generators.
//
// mirrors k8s.io/apimachinery/pkg/util/validation/validation.go (IsDNS1035Label, IsDNS1123Subdomain, IsDNS1123Label,
// IsValidPortName, IsValidPortNum, RegexError, MaxLenError), apiserver's storage/names/generate.go
// (SimpleNameGenerator) and k8s.io/apimachinery/pkg/util/rand (String, SafeEncodeString).

import type { Rng } from '../../core/rng.ts';

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1035_LABEL = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);

/** validation.MaxLenError */
function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** validation.RegexError: the message, then the examples and the regex as Go writes them (note the double space). */
function regexError(message: string, format: string, examples: readonly string[]): string {
  let text = message;
  if (examples.length > 0) {
    text += ' (e.g. ';
    examples.forEach((example, i) => {
      if (i > 0) text += ' or ';
      text += `'${example}', `;
    });
    text += `regex used for validation is '${format}')`;
  }
  return text;
}

/** IsDNS1035Label: the messages for a Service name; empty when valid. */
export function dns1035LabelErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 63) errors.push(maxLenError(63));
  if (!DNS1035_LABEL.test(value)) {
    errors.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL_FMT,
        ['my-name', 'abc-123'],
      ),
    );
  }
  return errors;
}

/** IsDNS1123Label: the messages for a port name; empty when valid. */
export function dns1123LabelErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 63) errors.push(maxLenError(63));
  if (!DNS1123_LABEL.test(value)) {
    errors.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL_FMT,
        ['my-name', '123-abc'],
      ),
    );
  }
  return errors;
}

/** IsDNS1123Subdomain: the messages for a pod, Node, Deployment or DaemonSet name; empty when valid. */
export function dns1123SubdomainErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 253) errors.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN.test(value)) {
    errors.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        ['example.com'],
      ),
    );
  }
  return errors;
}

/** IsValidPortName (IANA_SVC_NAME): the messages for a named targetPort or container port; empty when valid. */
export function portNameErrors(port: string): string[] {
  const errors: string[] = [];
  if (port.length > 15) errors.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port))
    errors.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errors.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errors.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) {
    errors.push('must not begin or end with a hyphen');
  }
  return errors;
}

/** IsValidPortNum */
export function portNumErrors(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535
    ? []
    : ['must be between 1 and 65535, inclusive'];
}

/** utilrand's alphabet: no vowels (no words), no 0/1/3 (no confusion with letters). */
export const SAFE_ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** utilrand.String(n), drawing from the simulation's rng instead of Go's math/rand. */
export function randomSuffix(rng: Rng, length = 5): string {
  let text = '';
  for (let i = 0; i < length; i++) text += SAFE_ALPHANUMS[rng.int(SAFE_ALPHANUMS.length)];
  return text;
}

/** SimpleNameGenerator.GenerateName: the base cut to 58 characters, then 5 random ones. */
export function generateName(rng: Rng, base: string): string {
  return `${base.slice(0, 63 - 5)}${randomSuffix(rng)}`;
}

/** utilrand.SafeEncodeString: each character mapped into the safe alphabet by its code modulo 27. */
export function safeEncodeString(text: string): string {
  let out = '';
  for (const char of text) out += SAFE_ALPHANUMS[char.codePointAt(0)! % SAFE_ALPHANUMS.length];
  return out;
}

/** FNV-1a, 32 bits (Go's hash/fnv New32a), over the UTF-16 code units of an ASCII text. */
export function fnv32a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i) & 0xff;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}
