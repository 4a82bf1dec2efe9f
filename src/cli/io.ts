/** Small I/O seam for CLI commands so tests can run them in-process and read what they print. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
}

export const processIO: CliIO = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

/** Exit codes of every command (DESIGN.md): 0 success, 1 bad input, 2 usage. */
export const EXIT_OK = 0;
export const EXIT_BAD_INPUT = 1;
export const EXIT_USAGE = 2;

export class UsageError extends Error {}

/** A minimal long-option parser: `--name value`, `--name=value`, `--flag`; the rest positional. */
export function parseArgs(argv: string[], flags: readonly string[], options: readonly string[]) {
  const values: Record<string, string> = {};
  const set = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
      if (flags.includes(name)) {
        if (eq >= 0) throw new UsageError(`option --${name} takes no value`);
        set.add(name);
      } else if (options.includes(name)) {
        const v = eq >= 0 ? a.slice(eq + 1) : argv[++i];
        if (v === undefined) throw new UsageError(`option --${name} needs a value`);
        values[name] = v;
      } else {
        throw new UsageError(`unknown option ${a}`);
      }
    } else {
      positional.push(a);
    }
  }
  return { values, flags: set, positional };
}
