import { AppError } from '../../lib/errors.ts';

/** How far back a register's own time is taken: its offline queue holds at most a week. */
export const MAX_CLIENT_AGE_MS = 7 * 24 * 3600 * 1000;

/**
 * When the register says it did something (a sale, a shift opened or closed offline): a time ahead
 * of the server is taken as now (a register whose clock runs ahead still works), one more than
 * 7 days ago is refused naming the field (`/sold_at`…).
 */
export function clientTime(value: string | undefined, now: Date, name: string): Date {
  if (value === undefined) return now;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) {
    throw new AppError('validation_failed', `${name} must be a date-time`, {
      details: [{ path: `/${name}`, message: 'must be a date-time' }],
    });
  }
  if (at.getTime() > now.getTime()) return now;
  if (at.getTime() < now.getTime() - MAX_CLIENT_AGE_MS) {
    throw new AppError('validation_failed', `${name} "${value}" is more than 7 days ago`, {
      details: [{ path: `/${name}`, message: 'is more than 7 days ago' }],
    });
  }
  return at;
}

/**
 * The catalogue a register priced a sale with (the newest `updated_at` it had): a product changed
 * after it may keep the price the register showed. A register offline for longer than its queue
 * holds (7 days) does not sell, so an older `catalog_at` (the year 0001) is read as 7 days ago:
 * otherwise it would excuse any price of any product.
 */
export function catalogTime(value: string | undefined, now: Date): Date | null {
  if (value === undefined) return null;
  return new Date(Math.max(Date.parse(value), now.getTime() - MAX_CLIENT_AGE_MS));
}
