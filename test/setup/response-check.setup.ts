import { afterEach } from 'vitest';
import { takeViolations } from './response-check.ts';

/**
 * Fails a test when an answer it received is not what the OpenAPI documents say (undeclared status,
 * undeclared media type, JSON body invalid against the declared schema): see response-check.ts.
 */
afterEach(() => {
  const problems = takeViolations();
  if (problems.length > 0) {
    throw new Error(`answers the OpenAPI documents do not describe:\n- ${[...new Set(problems)].join('\n- ')}`);
  }
});
