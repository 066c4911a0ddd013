import { AppError } from '../lib/errors.ts';

interface PgErrorFields {
  code: string;
  constraint?: string;
  hint?: string;
}

/** The PostgreSQL error itself (node-postgres and PGlite both expose `code`), looking through `cause`. */
function pgErrorOf(err: unknown): PgErrorFields | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return current as PgErrorFields;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The SQLSTATE of a PostgreSQL error, looking through `cause`. */
export function pgErrorCode(err: unknown): string | undefined {
  return pgErrorOf(err)?.code;
}

/** Whether the error is the unique violation of that index or constraint. */
export const violates = (err: unknown, constraint: string) => {
  const pgError = pgErrorOf(err);
  return pgError?.code === '23505' && pgError.constraint === constraint;
};

/** The code a database function raised with (RAISE … USING HINT = code, SQLSTATE P0001), if it did. */
export function raisedCode(err: unknown): string | undefined {
  const pgError = pgErrorOf(err);
  return pgError?.code === 'P0001' ? pgError.hint : undefined;
}

export const isUniqueViolation = (err: unknown) => pgErrorCode(err) === '23505';
export const isSerializationFailure = (err: unknown) => ['40001', '40P01'].includes(pgErrorCode(err) ?? '');

/** Maps constraint and data errors to AppErrors; anything else is returned unchanged. */
export function mapPgError(err: unknown): unknown {
  switch (pgErrorCode(err)) {
    case '23505':
      return new AppError('conflict', 'a record with the same key already exists', { cause: err });
    case '23503':
      return new AppError('invalid_reference', 'a referenced record does not exist', { cause: err });
    case '22001':
    case '22P02':
    case '22003':
    case '23514':
    // A date or time that does not exist (2025-02-30), and text PostgreSQL cannot store (NUL): the
    // input guard refuses these first; this is the net under any path it does not see.
    case '22007':
    case '22008':
    case '22021':
      return new AppError('validation_failed', 'a value is out of range or has the wrong format', { cause: err });
    default:
      return err;
  }
}
