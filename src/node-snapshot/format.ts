// Reads a snapshot file (the text script.ts's script writes; docs/snapshot.md): `packetlab-snapshot 1`, then
// sections (`section NAME COMMAND`, output lines after `|`, error lines after `!`, `status N`) and `end`.
// Every line it cannot read is a problem naming its line number; it never throws. It does not interpret the
// sections' contents (sections.ts does).

/** One command's output as the snapshot recorded it. */
export interface SnapshotSection {
  readonly name: string;
  /** The command the node ran (`ip -d -j addr`). */
  readonly command: string;
  /** Its standard output, one line per `|` line, each ended by a newline. */
  readonly stdout: string;
  /** Its standard error, one line per `!` line. */
  readonly stderr: string;
  /** Its exit status (127: the tool was missing); undefined when the section has no status line. */
  readonly status: number | undefined;
  /** The snapshot's line number of the `section` line. */
  readonly line: number;
  /** The snapshot's line number of each stdout line, so a tool's `line N` maps back to the file. */
  readonly stdoutLines: readonly number[];
}

/** A line of the snapshot that could not be read, or a part of it that is missing. */
export interface SnapshotProblem {
  readonly line: number;
  readonly message: string;
}

export interface SnapshotFile {
  readonly version: number | undefined;
  readonly sections: ReadonlyMap<string, SnapshotSection>;
  readonly problems: readonly SnapshotProblem[];
}

/** The format version this reader knows. */
export const SNAPSHOT_VERSION = 1;

interface OpenSection {
  name: string;
  command: string;
  stdout: string[];
  stderr: string[];
  stdoutLines: number[];
  line: number;
}

const SECTION_NAME = /^[a-z][a-z0-9-]*$/;

/** Reads the whole file; every unreadable line is in `problems`, the sections read so far are kept. */
export function readSnapshot(text: string): SnapshotFile {
  const lines = text.split('\n');
  // A final newline ends the last line; it does not start an empty one.
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const problems: SnapshotProblem[] = [];
  const sections = new Map<string, SnapshotSection>();
  let version: number | undefined;
  let open: OpenSection | undefined;
  let ended = false;
  let sawHeader = false;

  const close = (status: number | undefined, line: number): void => {
    if (open === undefined) return;
    if (status === undefined)
      problems.push({ line, message: `section ${open.name} (line ${open.line}) has no status line` });
    if (sections.has(open.name))
      problems.push({ line: open.line, message: `section ${open.name} appears twice (the first is kept)` });
    else
      sections.set(open.name, {
        name: open.name,
        command: open.command,
        stdout: open.stdout.map((entry) => `${entry}\n`).join(''),
        stderr: open.stderr.map((entry) => `${entry}\n`).join(''),
        status,
        line: open.line,
        stdoutLines: open.stdoutLines,
      });
    open = undefined;
  };

  for (let index = 0; index < lines.length; index++) {
    const raw = lines[index]!;
    const number = index + 1;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (ended) {
      if (line.trim() !== '') problems.push({ line: number, message: 'text after the end line' });
      continue;
    }
    const first = line.charAt(0);
    if (first === '|' || first === '!') {
      if (open === undefined) {
        problems.push({ line: number, message: `an output line outside any section: ${clip(line)}` });
        continue;
      }
      if (first === '|') {
        open.stdout.push(line.slice(1));
        open.stdoutLines.push(number);
      } else open.stderr.push(line.slice(1));
      continue;
    }
    if (first === '#' || line.trim() === '') continue;
    const [keyword = '', ...rest] = line.split(' ');
    switch (keyword) {
      case 'packetlab-snapshot': {
        if (sawHeader || open !== undefined || sections.size > 0) {
          problems.push({ line: number, message: 'a second packetlab-snapshot line' });
          break;
        }
        sawHeader = true;
        const value = rest.join(' ');
        if (!/^[0-9]+$/.test(value)) {
          problems.push({
            line: number,
            message: `expected a version number after packetlab-snapshot, got ${clip(value)}`,
          });
          break;
        }
        version = Number(value);
        if (version !== SNAPSHOT_VERSION)
          problems.push({
            line: number,
            message: `snapshot format version ${version}: this packetlab reads version ${SNAPSHOT_VERSION}`,
          });
        break;
      }
      case 'section': {
        if (open !== undefined) close(undefined, number);
        const name = rest[0] ?? '';
        if (!SECTION_NAME.test(name)) {
          problems.push({
            line: number,
            message: `expected a section name after section, got ${clip(name)}`,
          });
          // Its lines still belong somewhere: an unnamed section keeps them out of the previous one.
        }
        open = {
          name,
          command: rest.slice(1).join(' '),
          stdout: [],
          stderr: [],
          stdoutLines: [],
          line: number,
        };
        break;
      }
      case 'status': {
        const value = rest.join(' ');
        if (open === undefined) {
          problems.push({ line: number, message: 'a status line outside any section' });
          break;
        }
        if (!/^[0-9]{1,3}$/.test(value)) {
          problems.push({
            line: number,
            message: `expected an exit status (0-255) after status, got ${clip(value)}`,
          });
          close(undefined, number);
          break;
        }
        close(Number(value), number);
        break;
      }
      case 'end':
        if (rest.length > 0)
          problems.push({ line: number, message: `unexpected words after end: ${clip(rest.join(' '))}` });
        if (open !== undefined) close(undefined, number);
        ended = true;
        break;
      default:
        problems.push({
          line: number,
          message: `expected section, status, end or an output line (| or !), got ${clip(line)}`,
        });
    }
  }
  const last = lines.length + 1;
  if (open !== undefined) close(undefined, last);
  if (!sawHeader)
    problems.unshift({ line: 1, message: 'not a packetlab snapshot: no packetlab-snapshot line' });
  if (!ended) problems.push({ line: last, message: 'the snapshot stops before its end line (cut short?)' });
  // Sections with an invalid name were kept for their lines only.
  sections.delete('');
  for (const name of [...sections.keys()]) if (!SECTION_NAME.test(name)) sections.delete(name);
  return { version, sections, problems };
}

/** At most 60 characters of a line, for a message. */
function clip(text: string): string {
  const shown = text.length > 60 ? `${text.slice(0, 57)}...` : text;
  return `'${shown}'`;
}
