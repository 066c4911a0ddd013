import { Type } from 'typebox';

/** The error body of every API error: `{error, code[, details]}`. */
export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'Human-readable message' }),
    code: Type.String({ description: 'Machine-readable code' }),
    details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  },
  { description: 'Error' },
);

export const SECURITY = [{ integrationKey: [] }];

export const IngestHeaders = Type.Object({
  'x-idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Unique per event; a repeated key (same event) is not applied again',
    }),
  ),
  'x-sent-at': Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'When the request was sent (RFC 3339 with offset); must be within ±5 minutes',
    }),
  ),
  'x-signature': Type.Optional(
    Type.String({
      pattern: '^[0-9a-f]{64}$',
      description: 'Lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the integration key',
    }),
  ),
});

export const IngestOk = Type.Object({
  status: Type.Literal('ok'),
  idempotent: Type.Optional(Type.Literal(true, { description: 'Present on a repeated idempotency key: nothing was applied' })),
});

export const PollQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, description: 'Events per page: default 50; above 200 it is clamped to 200' })),
  since: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'Only events received after this instant (exclusive); pass meta.next_since of the previous page',
    }),
  ),
});

export const StoredEvent = Type.Object({
  id: Type.String({ format: 'uuid' }),
  received_at: Type.String({ format: 'date-time', description: 'UTC, microseconds' }),
  event: Type.String(),
  idempotency_key: Type.String({ description: 'The x-idempotency-key sent, or the event id when none was sent' }),
  // No declared properties: the serializer then writes the envelope's keys in their stored order.
  payload: Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    additionalProperties: true,
    description: 'The envelope exactly as received: {event, data}',
  }),
  signature_valid: Type.Boolean({ description: 'True when the request carried a valid x-signature' }),
});

export const PollResponse = Type.Object({
  events: Type.Array(StoredEvent),
  meta: Type.Object({
    limit: Type.Integer({ description: 'The page size applied' }),
    since: Type.Union([Type.String(), Type.Null()]),
    has_more: Type.Boolean({ description: 'More events are ready: ask again at once with next_since' }),
    next_since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'The since of the next request (exact, microseconds)',
    }),
  }),
});
