// A cursor over nft tokens with bison-style syntax errors (`syntax error, unexpected X, expecting Y`). A syntax
// error ends the parse at once (it is thrown as a ParseFailure and caught by parse()); evaluation errors, which
// nft reports only when the whole input parsed, are collected and parsing goes on.

import { describeToken, KEYWORDS, type Token } from './lexer.ts';
import { type ErrorRecord, errorAt, type Location } from './location.ts';

/** Carries a syntax error from deep in the descent to parse(); never escapes the parser. */
export class ParseFailure {
  constructor(
    readonly error: ErrorRecord,
    /** At the end of input bison cannot recover: the parse stops. */
    readonly atEnd = false,
  ) {}
}

export class TokenStream {
  private pos = 0;
  /** Evaluation errors in input order; the first is reported if the input has no syntax error. */
  readonly evalErrors: ErrorRecord[] = [];

  constructor(private readonly tokens: readonly Token[]) {}

  peek(offset = 0): Token {
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)]!;
  }

  next(): Token {
    const token = this.peek();
    if (this.pos < this.tokens.length - 1) this.pos++;
    return token;
  }

  /** The last token consumed. */
  previous(): Token {
    return this.tokens[Math.max(0, this.pos - 1)]!;
  }

  isWord(text: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === 'word' && token.text === text;
  }

  isPunct(text: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === 'punct' && token.text === text;
  }

  acceptWord(text: string): Token | undefined {
    return this.isWord(text) ? this.next() : undefined;
  }

  acceptPunct(text: string): Token | undefined {
    return this.isPunct(text) ? this.next() : undefined;
  }

  /** True at a newline, a semicolon or the end of input. */
  atEnd(): boolean {
    const kind = this.peek().kind;
    return kind === 'newline' || kind === 'semicolon' || kind === 'eof';
  }

  skipNewlines(): void {
    while (this.peek().kind === 'newline' || this.peek().kind === 'semicolon') this.next();
  }

  /** Throws the syntax error for `token`. */
  fail(token: Token, expecting?: string, suffix = ''): never {
    const expected = expecting === undefined ? '' : `, expecting ${expecting}`;
    throw new ParseFailure(
      errorAt(token.loc, `syntax error, unexpected ${describeToken(token)}${expected}${suffix}`),
      token.kind === 'eof',
    );
  }

  failAt(loc: Location, message: string): never {
    throw new ParseFailure(errorAt(loc, message));
  }

  expectWord(text: string, expecting = text): Token {
    if (!this.isWord(text)) this.fail(this.peek(), expecting);
    return this.next();
  }

  expectPunct(text: string, expecting: string): Token {
    if (!this.isPunct(text)) this.fail(this.peek(), expecting);
    return this.next();
  }

  /** A table, chain or set name: a non-keyword word or a quoted string. */
  name(): { name: string; loc: Location } {
    const token = this.peek();
    if ((token.kind === 'word' && !KEYWORDS.has(token.text)) || token.kind === 'quoted') {
      this.next();
      return { name: token.text, loc: token.loc };
    }
    return this.fail(token, 'string');
  }

  number(): Token {
    const token = this.peek();
    if (token.kind !== 'number') this.fail(token, 'number');
    return this.next();
  }

  report(error: ErrorRecord): void {
    this.evalErrors.push(error);
  }
}
