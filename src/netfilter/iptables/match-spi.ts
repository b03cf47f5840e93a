// The ah and esp matches (libipt_ah.c, libxt_esp.c): `[!] --ahspi`/`--espspi SPI[:SPI]` on an AH or ESP header;
// nft lists their xlate (`ah spi 100-200`, `esp spi 5`). Each needs `-p ah` / `-p esp` (the kernel's proto check).

import type { RangeTest } from '../xt/ext-options.ts';
import { type IptError, param } from './errors.ts';
import type { Compiled, MatchModule, OptionDef, ParseContext, Usage, XtMatch } from './extension.ts';
import { parseUnsigned } from './names.ts';

const FULL = 0xffff_ffff;

export class SpiMatch implements XtMatch {
  readonly kind = 'match';
  readonly options: readonly OptionDef[];
  spi: RangeTest = { low: 0, high: FULL, invert: false };

  constructor(readonly name: 'ah' | 'esp') {
    this.options = [{ name: `${name}spi`, arg: true, invert: true }];
  }

  /** XTTYPE_UINT32RC: `A`, `A:B`, `:B`, `A:`. */
  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const text = args[0]!;
    const bad = (near: string) =>
      param(
        `${this.name}: bad value for option "--${option}" near "${near}", or out of range (0-4294967295).\n`,
      );
    if (text.split(':').length > 2)
      return param(`${this.name}: Too many components for option "--${option}" (max: 2)\n`);
    const colon = text.indexOf(':');
    const lowText = colon < 0 ? text : text.slice(0, colon);
    const low = lowText === '' ? 0 : parseUnsigned(lowText);
    if (low === undefined) return bad(lowText);
    let high = low;
    if (colon >= 0) {
      const highText = text.slice(colon + 1);
      const parsed = highText === '' ? FULL : parseUnsigned(highText);
      if (parsed === undefined) return bad(highText);
      high = parsed;
    }
    this.spi = { low, high, invert };
    return undefined;
  }

  finish(): IptError | undefined {
    return undefined;
  }

  private isDefault(): boolean {
    return this.spi.low === 0 && this.spi.high === FULL && !this.spi.invert;
  }

  private range(sep: string): string {
    return this.spi.low === this.spi.high ? `${this.spi.low}` : `${this.spi.low}${sep}${this.spi.high}`;
  }

  save(): string[] {
    if (this.isDefault()) return [];
    return [...(this.spi.invert ? ['!'] : []), `--${this.name}spi`, this.range(':')];
  }

  /** ah_print prints ` ah ` then the SPIs, esp_print ` esp` then ` spi...`. */
  print(): string {
    const single = this.spi.low === this.spi.high;
    const spis = this.isDefault()
      ? ''
      : `${single ? 'spi' : 'spis'}:${this.spi.invert ? '!' : ''}${this.range(':')}`;
    return this.name === 'ah' ? ` ah ${spis}` : ` esp${spis === '' ? '' : ` ${spis}`}`;
  }

  compile(): Compiled {
    const xlate = this.isDefault()
      ? ''
      : `${this.name} spi ${this.spi.invert ? '!= ' : ''}${this.range('-')}`;
    return {
      exprs: [{ kind: 'match', name: this.name, options: { name: this.name, spi: this.spi } }],
      xlate,
    };
  }

  usage(ctx: ParseContext): Usage | undefined {
    const proto = this.name === 'ah' ? 51 : 50;
    return ctx.proto !== proto || ctx.protoInvert ? { never: true } : undefined;
  }
}

export const ahMatch: MatchModule = { name: 'ah', create: () => new SpiMatch('ah') };
export const espMatch: MatchModule = { name: 'esp', create: () => new SpiMatch('esp') };
