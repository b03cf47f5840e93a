// Splits an iptables-restore line into words as xshared.c: add_param_to_argv does: double quotes group (and end
// a word), a backslash escapes the next character inside quotes only, spaces, tabs and newlines separate; a quote
// still open at the end of the line keeps what it read, the line's newline included (restore passes it).

/** MAX_ARGC and the 1024-byte parameter buffer of iptables-restore. */
export const MAX_WORDS = 255;
export const MAX_WORD_LENGTH = 1023;

export function tokenizeRestoreLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let quoteOpen = false;
  let escaped = false;
  let started = false;
  for (const c of line) {
    if (quoteOpen) {
      if (escaped) {
        word += c;
        escaped = false;
        continue;
      }
      if (c === '\\') {
        escaped = true;
        continue;
      }
      if (c !== '"') {
        word += c;
        continue;
      }
      quoteOpen = false;
    } else if (c === '"') {
      quoteOpen = true;
      started = true;
      continue;
    }
    if (c === '"' || c === ' ' || c === '\t' || c === '\n') {
      if (word.length === 0 && !(c === '"' && started)) {
        started = false;
        continue;
      }
      words.push(word);
      word = '';
      started = false;
      continue;
    }
    word += c;
    started = true;
  }
  if (word.length > 0) words.push(word);
  return words;
}
