/** Small I/O seam for CLI commands so tests can run them in-process and read what they print. */
import { parseArgs, type ParseArgsConfig } from 'node:util';

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

/** The options a command accepts: long names only, each a flag (boolean) or taking one value (string). */
export type OptionSpec = Record<string, { type: 'boolean' | 'string' }>;

export interface ParsedOptions<S extends OptionSpec> {
  values: { [K in keyof S]?: S[K]['type'] extends 'string' ? string : boolean };
  positionals: string[];
}

/**
 * Parses a command's arguments with node:util's parseArgs (strict: an unknown option, a flag given
 * a value or an option missing its value is a UsageError, so exit 2). `--name value`, `--name=value`
 * and `--` (everything after it positional) work as parseArgs defines them. The usage message names
 * the offending argument in our words instead of parseArgs' (which differs between Node versions).
 */
export function parseOptions<S extends OptionSpec>(argv: string[], options: S): ParsedOptions<S> {
  const config = { args: argv, options: options as ParseArgsConfig['options'], allowPositionals: true };
  try {
    const { values, positionals } = parseArgs({ ...config, strict: true });
    return { values: values as ParsedOptions<S>['values'], positionals };
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS_')) throw e;
    throw new UsageError(usageProblem(argv, options) ?? (e as Error).message.replace(/\s*\n\s*/g, ' '));
  }
}

/** What strict parsing objects to, found in the lenient parse's tokens. */
function usageProblem(argv: string[], options: OptionSpec): string | undefined {
  const { tokens } = parseArgs({ args: argv, options: options as ParseArgsConfig['options'], allowPositionals: true, strict: false, tokens: true });
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    const spec = options[t.name];
    if (!spec) return `unknown option ${t.rawName}`;
    if (spec.type === 'boolean' && t.value !== undefined) return `option ${t.rawName} takes no value`;
    if (spec.type === 'string' && t.value === undefined) return `option ${t.rawName} needs a value`;
    if (spec.type === 'string' && !t.inlineValue && t.value?.startsWith('-')) {
      return `option ${t.rawName} needs a value, not the option ${t.value} (a value that starts with '-' is written ${t.rawName}=${t.value})`;
    }
  }
  return undefined;
}
