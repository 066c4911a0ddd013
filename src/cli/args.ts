import { parseArgs } from 'node:util';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

type OptionSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

/** Parses `--flag value` options strictly: unknown flags and stray words are usage errors. */
export function parseOptions<T extends OptionSpec>(args: string[], options: T) {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: { ...options, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: true,
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    return values as {
      [K in keyof T]?: T[K]['type'] extends 'boolean' ? boolean : T[K]['multiple'] extends true ? string[] : string;
    } & {
      json?: boolean;
    };
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError((err as Error).message);
  }
}

export function requireOption(value: string | undefined, name: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function positiveInt(value: string | undefined, name: string): number {
  const text = requireOption(value, name);
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive integer (got "${text}")`);
  return n;
}
