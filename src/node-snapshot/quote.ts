// One word quoted for a POSIX shell as the rebuild's listing shows its commands: bare when it is safe, else in
// single quotes (a quote inside as '\''). Not a general shell quoter: no $'...' forms.

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

export function quoteWord(word: string): string {
  if (SAFE.test(word)) return word;
  return `'${word.replaceAll("'", "'\\''")}'`;
}
