// One flat copy of each word a compiled rule keeps (iptables-save's words, comments, nft span texts), shared by every
// rule that holds the same word: words are built by concatenation (`10.96.0.10/32`, `"default/svc:http"`), and a
// V8 cons string keeps both halves and its own header alive for as long as the rule lives. Does not intern words of
// rules that fail to compile; the table starts over past a bound, as the restore line cache does.

const MAX_WORDS = 1 << 18;
const words = new Map<string, string>();

/** A sequential string with the same characters: no cons or sliced string, nothing of the input behind it. */
function flatCopy(word: string): string {
  const codes = new Array<number>(word.length);
  for (let i = 0; i < word.length; i++) codes[i] = word.charCodeAt(i);
  return String.fromCharCode(...codes);
}

/** The process's one copy of `word`. */
export function internWord(word: string): string {
  const known = words.get(word);
  if (known !== undefined) return known;
  if (words.size >= MAX_WORDS) words.clear();
  const flat = flatCopy(word);
  words.set(flat, flat);
  return flat;
}
