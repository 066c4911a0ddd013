import { customType } from 'drizzle-orm/pg-core';
import { dbDate } from '../dates.ts';

/**
 * A `timestamp with time zone` column read as a Date, right for every year the API accepts (1 to
 * 9999). Drizzle's own timestamp column reads PostgreSQL's text with `new Date(text)`, which takes
 * years 0-99 as 1900-1999 or Invalid Date (src/db/dates.ts).
 */
export const tstz = customType<{ data: Date; driverData: string | Date }>({
  dataType: () => 'timestamp with time zone',
  fromDriver: dbDate,
  toDriver: (value) => value.toISOString(),
});
