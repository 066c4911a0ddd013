import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import type { App } from '../../src/http/app.types.ts';
import { contractDocument, merchantDocument } from '../../src/modules/docs/openapi-split.ts';
import { truthfulDocument } from '../../src/modules/docs/openapi-truth.ts';

/**
 * Issue 26's response-schema replay: every answer the HTTP suite receives is held against the
 * document that describes its operation (`/openapi.json` or `/docs/openapi-comercio.json`): the
 * status must be declared, the media type must be one the status declares, and a JSON body must be
 * valid against the declared schema. The test app (test/app.ts) checks every response it sends; a
 * mismatch fails the test that produced it (test/setup/response-check.setup.ts).
 */
type Json = Record<string, unknown>;

// ajv-formats is CommonJS with a default export; under NodeNext its callable is `.default`.
const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;

export interface ResponseFacts {
  method: string;
  /** The route as the server registered it (`/api/v1/products/:id`), or the path as documented. */
  route: string;
  status: number;
  contentType: string;
  body: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** `/api/v1/products/:id` → `/api/v1/products/{id}` (how @fastify/swagger writes a route's path). */
export function documentedPath(route: string): string {
  return route.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, '{*}');
}

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 3)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? ''}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`)
    .join('; ');
}

export interface ResponseChecker {
  /** null when the answer is what the document says; otherwise what is wrong with it. */
  check(facts: ResponseFacts): string | null;
}

/** A checker over the given documents (each operation found in the first document that has it). */
export function responseChecker(documents: Json[]): ResponseChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false, validateFormats: true });
  addFormats(ajv);
  const operations = new Map<string, { doc: number; path: string; method: string; operation: Json }>();
  documents.forEach((doc, index) => {
    ajv.addSchema(doc, `doc${index}`);
    for (const [path, item] of Object.entries((doc['paths'] as Json | undefined) ?? {})) {
      for (const method of METHODS) {
        const operation = (item as Json)[method] as Json | undefined;
        const key = `${method} ${path}`;
        if (operation && !operations.has(key)) operations.set(key, { doc: index, path, method, operation });
      }
    }
  });
  const compiled = new Map<string, ValidateFunction>();

  return {
    check({ method, route, status, contentType, body }) {
      const found = operations.get(`${method.toLowerCase()} ${documentedPath(route)}`);
      if (!found) return null; // not a documented operation (hidden routes, HEAD, unknown paths)
      const where = `${method.toUpperCase()} ${found.path} → ${status}`;
      const responses = (found.operation['responses'] as Json | undefined) ?? {};
      const statusKey = [String(status), `${String(status)[0]}XX`, 'default'].find((key) => key in responses);
      // A 304 answers a conditional GET (If-None-Match) with no body: HTTP's, not the operation's.
      if (status === 304 && body.length === 0) return null;
      if (!statusKey)
        return `${where}: status not declared (declared: ${Object.keys(responses).join(', ')}) body ${body.slice(0, 200)}`;
      if (body.length === 0) return null;
      const content = ((responses[statusKey] as Json)['content'] as Json | undefined) ?? {};
      const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
      const declared = Object.keys(content);
      if (declared.length === 0) return `${where}: a ${mediaType || 'body'} answer where the document declares no body`;
      const match = declared.find(
        (type) => type === mediaType || type === '*/*' || (type.endsWith('/*') && mediaType.startsWith(type.slice(0, -1))),
      );
      if (!match) return `${where}: answered ${mediaType}, the document declares ${declared.join(', ')}`;
      if (!/[/+]json$/.test(mediaType) || !(content[match] as Json)['schema']) return null;
      const pointer = `doc${found.doc}#/paths/${escapePointer(found.path)}/${found.method}/responses/${statusKey}/content/${escapePointer(match)}/schema`;
      let validate = compiled.get(pointer);
      if (!validate) {
        validate = ajv.compile({ $ref: pointer });
        compiled.set(pointer, validate);
      }
      let value: unknown;
      try {
        value = JSON.parse(body);
      } catch {
        return `${where}: ${mediaType} answer that is not JSON`;
      }
      if (validate(value)) return null;
      return `${where}: body does not match the documented schema: ${describeErrors(validate.errors)} body ${body.slice(0, 300)}`;
    },
  };
}

// ---- The test app's hook and the per-test verdict ------------------------------------------------

const violations: string[] = [];

/** The mismatches seen since the last call (the setup file's afterEach fails the test with them). */
export function takeViolations(): string[] {
  return violations.splice(0, violations.length);
}

/** Checks every answer of `app` against both documents (call before app.ready()). */
export function checkResponses(app: App): void {
  let checker: ResponseChecker | null = null;
  app.addHook('onSend', (request, reply, payload, done) => {
    try {
      const route = request.routeOptions.url;
      if (route && (typeof payload === 'string' || Buffer.isBuffer(payload) || payload == null)) {
        checker ??= responseChecker([
          truthfulDocument(merchantDocument(app.swagger() as never)),
          truthfulDocument(contractDocument(app.swagger() as never)),
        ]);
        const problem = checker.check({
          method: request.method,
          route,
          status: reply.statusCode,
          contentType: String(reply.getHeader('content-type') ?? ''),
          body: payload == null ? '' : String(payload),
        });
        if (problem) violations.push(problem);
      }
    } catch (err) {
      violations.push(`response check failed: ${(err as Error).message}`);
    }
    done(null, payload);
  });
}
