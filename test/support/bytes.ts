// Test helpers for byte-level assertions: hex in and out, and buffers pre-filled with 0xa5.

/** Bytes from hex text; spaces, newlines and `#` comments are ignored. */
export function hex(text: string): Uint8Array {
  const digits = text.replace(/#[^\n]*/g, '').replace(/\s+/g, '');
  if (digits.length % 2 !== 0 || /[^0-9a-fA-F]/.test(digits)) throw new Error(`bad hex: ${text}`);
  const bytes = new Uint8Array(digits.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(digits.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** Lower-case hex of bytes, no separators. */
export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A buffer of `length` bytes all set to 0xa5, so a write test sees every byte it failed to write. */
export function poisoned(length: number): Uint8Array {
  return new Uint8Array(length).fill(0xa5);
}

/** The bytes behind a proxy that throws on any read outside them, to prove views stay in bounds. */
export function strict(bytes: Uint8Array): Uint8Array {
  return new Proxy(bytes, {
    get(target, prop) {
      if (
        typeof prop === 'string' &&
        /^-?\d+$/.test(prop) &&
        !(Number(prop) >= 0 && Number(prop) < target.length)
      ) {
        throw new RangeError(`read at ${prop} outside ${target.length} bytes`);
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
