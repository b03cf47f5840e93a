// The subset of Go's text/template that `crictl inspect --output go-template --template` users write: literal text
// and field chains `{{.info.pid}}` over decoded JSON, with missingkey=error. No pipelines, functions, range or if.

export type TemplateResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly message: string };

const ACTION = /\{\{-?\s*(\.[A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*-?\}\}/g;

/**
 * Runs `template` over `data` (mirrors crictl templates.go tmplExecuteRawJSON: json.Decoder.UseNumber, so numbers
 * print exactly; maps print as Go's fmt does `map[k:v]`). `name` is the template's name in error messages.
 */
export function executeTemplate(template: string, data: unknown, name: string): TemplateResult {
  const opens = template.split('{{').length - 1;
  const actions = [...template.matchAll(ACTION)];
  if (actions.length !== opens) return { ok: false, message: 'unsupported' };
  let text = '';
  let last = 0;
  for (const action of actions) {
    text += template.slice(last, action.index);
    last = action.index + action[0].length;
    const chain = action[1]!;
    let value: unknown = data;
    for (const key of chain.split('.').slice(1)) {
      if (key === '') continue;
      if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, key)) {
        const pos = action.index + action[0].indexOf('.');
        const line = template.slice(0, pos).split('\n').length;
        const col = pos - (template.lastIndexOf('\n', pos - 1) + 1);
        return {
          ok: false,
          message: `template: ${name}:${line}:${col}: executing "${name}" at <${chain}>: map has no entry for key "${key}"`,
        };
      }
      value = (value as Record<string, unknown>)[key];
    }
    text += goPrint(value);
  }
  return { ok: true, text: text + template.slice(last) };
}

/** fmt's %v of a decoded JSON value. */
function goPrint(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goPrint).join(' ')}]`;
  if (typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${key}:${goPrint((value as Record<string, unknown>)[key])}`);
    return `map[${entries.join(' ')}]`;
  }
  return String(value);
}
