// Field errors as apimachinery's validation/field package prints them (`spec.ports[0].port: Invalid value: 0: must
// be between 1 and 65535, inclusive`); only the error types the API server's Service, Pod and workload checks use.
//
// mirrors k8s.io/apimachinery/pkg/util/validation/field/errors.go: Error.Error() is `FIELD: BODY`, ErrorBody() is the
// type, then `: VALUE` for Invalid/Duplicate/NotSupported (strings quoted as Go's %q, numbers bare, other values as
// Go's %#v, which the caller renders), then `: DETAIL` when there is one. Required and Forbidden print no value.

/** A value as Go's ErrorBody prints it: a JS string is quoted (%q), a number is bare (%v), a GoValue is taken as is. */
export type FieldValue = string | number | boolean | GoValue;

/** A value already rendered as Go's %#v (`[]string{"10.96.40.12"}`, `core.ServicePort{...}`). */
export interface GoValue {
  readonly go: string;
}

/** One field error: `field` is the path (`spec.ports[0].nodePort`), `body` what follows `FIELD: `. */
export interface FieldError {
  readonly field: string;
  readonly body: string;
}

function render(value: FieldValue): string {
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'object') return value.go;
  return String(value);
}

/** Go's %q for the printable ASCII strings object fields hold. */
export function goQuote(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Go's %#v of a []string. */
export function goStrings(values: readonly string[]): GoValue {
  return { go: `[]string{${values.map(goQuote).join(', ')}}` };
}

function withDetail(body: string, detail: string): string {
  return detail === '' ? body : `${body}: ${detail}`;
}

/** field.Invalid */
export function invalidValue(field: string, value: FieldValue, detail: string): FieldError {
  return { field, body: withDetail(`Invalid value: ${render(value)}`, detail) };
}

/** field.Required */
export function required(field: string, detail = ''): FieldError {
  return { field, body: withDetail('Required value', detail) };
}

/** field.Duplicate */
export function duplicate(field: string, value: FieldValue): FieldError {
  return { field, body: `Duplicate value: ${render(value)}` };
}

/** field.Forbidden */
export function forbidden(field: string, detail: string): FieldError {
  return { field, body: withDetail('Forbidden', detail) };
}

/** field.NotSupported: `Unsupported value: "X": supported values: "A", "B"` (the list as the caller orders it). */
export function notSupported(field: string, value: FieldValue, supported: readonly string[]): FieldError {
  return {
    field,
    body: withDetail(
      `Unsupported value: ${render(value)}`,
      supported.length === 0 ? '' : `supported values: ${supported.map(goQuote).join(', ')}`,
    ),
  };
}

/** `FIELD: BODY`, as field.Error.Error() prints it (what the Store's invalid() takes). */
export function causeText(error: FieldError): string {
  return `${error.field}: ${error.body}`;
}
