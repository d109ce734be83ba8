// An output file of the evaluation command line, reserved before any work and written whole or not at all: a
// temporary file beside it is created at once (so a path that cannot be written fails before the run is read), and
// renamed over the target once the content is complete.
import { closeSync, existsSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { EvalInputError } from './trajectory';

/** An output file reserved by {@link reserveOutputFile}. @public */
export interface ReservedOutputFile {
  /** The target path (absolute). */
  path: string;
  /** Writes `text` to the temporary file and renames it over the target (the target is whole or unchanged). */
  commit: (text: string) => void;
  /** Removes the temporary file (nothing was written to the target). Safe to call after `commit`. */
  abort: () => void;
}

/**
 * Reserves an output file: checks the target is not a directory and creates a temporary file beside it (same
 * folder, so the final rename is atomic), before any work is done.
 * @param path - the target, absolute
 * @param option - how the command line names it, for the message (e.g. `--export-trajectory <file>`)
 * @param code - the error code (`EVAL_EXPORT_UNWRITABLE` for an export, `EVAL_OUT_UNWRITABLE` for `--out`)
 * @returns the reservation
 * @throws {@link EvalInputError} with `code` when the target is a directory or its folder cannot be written (the
 *   message names the path and the system's reason, e.g. `ENOENT`, `EACCES`, `EISDIR`)
 * @public
 */
export function reserveOutputFile(
  path: string,
  option: string,
  code: 'EVAL_EXPORT_UNWRITABLE' | 'EVAL_OUT_UNWRITABLE',
): ReservedOutputFile {
  const fail = (why: string) => new EvalInputError(code, `${option} ${path}: cannot be written (${why})`, { path });
  if (existsSync(path) && !statSync(path).isFile()) throw fail('EISDIR: not a regular file');
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now().toString(36)}.tmp`);
  let fd: number;
  try {
    fd = openSync(temp, 'wx', 0o644);
  } catch (error) {
    throw fail((error as NodeJS.ErrnoException).code ?? String(error));
  }
  closeSync(fd);
  let open = true;
  return {
    path,
    commit: (text) => {
      try {
        const out = openSync(temp, 'w');
        try {
          writeSync(out, text);
        } finally {
          closeSync(out);
        }
        renameSync(temp, path);
        open = false;
      } catch (error) {
        rmSync(temp, { force: true });
        open = false;
        throw fail((error as NodeJS.ErrnoException).code ?? String(error));
      }
    },
    abort: () => {
      if (open) rmSync(temp, { force: true });
      open = false;
    },
  };
}
