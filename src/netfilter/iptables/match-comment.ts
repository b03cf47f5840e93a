// The comment match (libxt_comment.c): `-m comment --comment TEXT`, at most 255 bytes; it always matches, and
// nft prints it as nothing (its translation only fills the rule's comment, which nft does not show).

import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  type MatchModule,
  mustBeSpecified,
  type OptionDef,
  saveString,
  type Usage,
  type XtMatch,
} from './extension.ts';

/** XT_MAX_COMMENT_LEN - 1. */
const MAX_COMMENT = 255;

/** Bytes of `text` in UTF-8. */
function utf8Length(text: string): number {
  let length = 0;
  for (const c of text) {
    const code = c.codePointAt(0)!;
    length += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return length;
}

export class CommentMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'comment';
  readonly options: readonly OptionDef[] = [{ name: 'comment', arg: true, invert: false }];
  comment: string | undefined;

  parse(_option: string, args: readonly string[]): IptError | undefined {
    // xtopt_parse_string: a longer comment is cut to fit XT_MAX_COMMENT_LEN with its terminating NUL.
    let text = args[0]!;
    while (utf8Length(text) > MAX_COMMENT) text = text.slice(0, -1);
    this.comment = text;
    return undefined;
  }

  finish(): IptError | undefined {
    return this.comment === undefined ? param(mustBeSpecified('comment', 'comment')) : undefined;
  }

  save(): string[] {
    return ['--comment', saveString(this.comment ?? '')];
  }

  print(): string {
    return ` /* ${this.comment ?? ''} */`;
  }

  compile(): Compiled {
    return {
      exprs: [{ kind: 'match', name: 'comment', options: { name: 'comment', comment: this.comment ?? '' } }],
      xlate: '',
    };
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const commentMatch: MatchModule = { name: 'comment', create: () => new CommentMatch() };
