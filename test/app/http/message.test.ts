import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ByteQueue,
  ChunkedDecoder,
  fieldHasToken,
  fieldValue,
  headEnd,
  isToken,
  latin1,
  latin1Bytes,
  parseContentLength,
  splitHead,
} from '../../../src/app/http/message.ts';

describe('ByteQueue', () => {
  it('appends, consumes and grows past its first buffer without losing bytes', () => {
    const queue = new ByteQueue();
    queue.append(latin1Bytes('abc'));
    queue.consume(1);
    const big = new Uint8Array(10_000).fill(0x78);
    queue.append(big);
    expect(queue.length).toBe(10_002);
    expect(latin1(queue.bytes().subarray(0, 4))).toBe('bcxx');
    queue.consume(10_002);
    expect(queue.length).toBe(0);
  });

  it('compacts in place when there is room behind the consumed bytes', () => {
    const queue = new ByteQueue();
    queue.append(new Uint8Array(4000).fill(1));
    queue.consume(3990);
    queue.append(new Uint8Array(100).fill(2));
    expect(queue.length).toBe(110);
    expect(queue.bytes()[9]).toBe(1);
    expect(queue.bytes()[10]).toBe(2);
  });
});

describe('message heads', () => {
  it('finds the end of a head with CRLF or bare LF line ends, or none yet', () => {
    expect(headEnd(latin1Bytes('GET / HTTP/1.1\r\nHost: x\r\n\r\nbody'))).toBe(27);
    expect(headEnd(latin1Bytes('GET / HTTP/1.1\nHost: x\n\nbody'))).toBe(24);
    expect(headEnd(latin1Bytes('GET / HTTP/1.1\r\nHost: x\r\n'))).toBe(-1);
  });

  it('splits the start line and trimmed fields', () => {
    const head = splitHead('HTTP/1.1 200 OK\r\nContent-Length:  3 \r\nConnection: keep-alive, Close\r\n\r\n');
    expect(head).toEqual({
      ok: true,
      startLine: 'HTTP/1.1 200 OK',
      fields: [
        { name: 'Content-Length', value: '3' },
        { name: 'Connection', value: 'keep-alive, Close' },
      ],
    });
    if (!head.ok) return;
    expect(fieldValue(head.fields, 'content-length')).toBe('3');
    expect(fieldHasToken(head.fields, 'connection', 'close')).toBe(true);
    expect(fieldValue(head.fields, 'Date')).toBeUndefined();
  });

  it('refuses a field line without a colon, with an empty name, or a name with a space', () => {
    for (const line of ['nonsense', ': value', 'Bad Name: x'])
      expect(splitHead(`GET / HTTP/1.1\r\n${line}\r\n\r\n`)).toEqual({
        ok: false,
        error: 'malformed-header-line',
      });
  });

  it('knows tokens and Content-Length digits', () => {
    expect(isToken('GET')).toBe(true);
    expect(isToken('G(T')).toBe(false);
    expect(isToken('')).toBe(false);
    expect(parseContentLength('200000')).toBe(200_000);
    expect(parseContentLength('-1')).toBeUndefined();
    expect(parseContentLength('1 2')).toBeUndefined();
  });

  it('splits any text without throwing', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        splitHead(text);
      }),
    );
  });
});

function decode(...pieces: string[]) {
  const data: string[] = [];
  const decoder = new ChunkedDecoder((bytes) => data.push(latin1(bytes)));
  const steps = pieces.map((piece) => decoder.feed(latin1Bytes(piece)));
  return { data: data.join(''), steps };
}

describe('ChunkedDecoder', () => {
  it('decodes chunks, extensions and trailers, and stops after the final empty line', () => {
    const { data, steps } = decode('3;name=v\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: x\r\n\r\nNEXT');
    expect(data).toBe('abcde');
    expect(steps).toEqual([{ kind: 'done', consumed: 39 }]);
  });

  it('decodes a body split anywhere', () => {
    const whole = 'a\r\n0123456789\r\n0\r\n\r\n';
    for (let cut = 1; cut < whole.length; cut++) {
      const { data, steps } = decode(whole.slice(0, cut), whole.slice(cut));
      expect(data).toBe('0123456789');
      expect(steps[1]!.kind).toBe('done');
    }
  });

  it('refuses a size that is not hexadecimal', () => {
    expect(decode('zz\r\nabc\r\n').steps).toEqual([{ kind: 'error', error: 'bad-size' }]);
  });

  it('reads an empty size line as the last chunk, as Go 1.19 does', () => {
    expect(decode('\r\nT: 1\r\n\r\n').steps).toEqual([{ kind: 'done', consumed: 10 }]);
  });

  it('refuses data not followed by CRLF, once both bytes are there (Go reads them together)', () => {
    expect(decode('3\r\nabcX').steps).toEqual([{ kind: 'more', consumed: 7 }]);
    expect(decode('3\r\nabcX\n').steps).toEqual([{ kind: 'error', error: 'bad-crlf' }]);
  });

  it('refuses a size line longer than 4096 bytes', () => {
    expect(decode('1'.repeat(5000)).steps).toEqual([{ kind: 'error', error: 'line-too-long' }]);
  });

  it('never throws on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        new ChunkedDecoder(() => {}).feed(bytes);
      }),
    );
  });
});
