import { type TSchema, Type } from 'typebox';

/** The error body of every endpoint: `{error, code[, details]}` (see http/error-handler.ts). */
export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'Human-readable message for the caller' }),
    code: Type.Optional(Type.String({ description: 'Machine-readable code, e.g. product_not_found' })),
    details: Type.Optional(
      Type.Array(
        Type.Object({
          path: Type.String(),
          message: Type.String(),
          expected: Type.Optional(Type.String({ description: 'What the field should have been, e.g. the right check digit' })),
          product_id: Type.Optional(Type.Integer({ description: 'The other product a conflicting value belongs to' })),
          product_name: Type.Optional(Type.String({ description: 'That product’s name' })),
          customer_id: Type.Optional(Type.Integer({ description: 'The other customer a document belongs to' })),
          customer_name: Type.Optional(Type.String({ description: 'That customer’s name' })),
          found: Type.Optional(Type.String({ description: 'What a refused file turned out to be (xlsx, pdf, an encoding)' })),
          line: Type.Optional(Type.Integer({ description: 'The first bad line of a refused file' })),
          reason: Type.Optional(Type.String({ description: 'Why, as a machine word, e.g. certificate_expired' })),
        }),
      ),
    ),
  },
  { description: 'Error' },
);

/** Response schemas for error statuses, each with the description OpenAPI shows for it. */
export function errorResponses(described: Record<number, string>): Record<number, TSchema> {
  const result: Record<number, TSchema> = {};
  for (const [status, description] of Object.entries(described)) {
    result[Number(status)] = { ...ErrorBody, description };
  }
  return result;
}
