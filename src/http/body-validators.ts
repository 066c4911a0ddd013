import { AjvCompiler, type BuildCompilerFromPool } from '@fastify/ajv-compiler';

const pool = AjvCompiler();

/**
 * The route validators: the query string, the path and the headers are text, so their scalars are
 * coerced as the server's Ajv options say (`?limit=5` is the number 5); a JSON body already says
 * its types, so it is checked as sent, never coerced. With coercion a body's `"base_price": null`
 * was stored as 0, `"enable": null` as false and `"cost": null` as 0 instead of null: now each is a
 * 422 naming the field, and a nullable field keeps its null.
 */
export const bodyValidators: BuildCompilerFromPool = (externalSchemas, options) => {
  const coercing = pool(externalSchemas, options);
  const customOptions = { ...(options?.customOptions as object | undefined), coerceTypes: false };
  const asSent = pool(externalSchemas, { ...options, customOptions } as typeof options);
  // Fastify calls the validator with the route's part ({schema, httpPart, …}); the package's types
  // still describe an older call with the schema alone.
  const byPart = (route: { httpPart?: string }) => (route.httpPart === 'body' ? asSent : coercing)(route as never);
  return byPart as unknown as ReturnType<BuildCompilerFromPool>;
};
