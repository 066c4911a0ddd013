/** The contract's event names; every one is emitted outbound (contract "Events"). */
export const OUTBOUND_EVENTS = [
  'sales.created',
  'sales.paid',
  'sales.cancelled',
  'invoice.issued',
  'movement.created',
  'product.upserted',
  'product.stock_updated',
] as const;
export type OutboundEvent = (typeof OUTBOUND_EVENTS)[number];

/** Sent only by "send a test event"; never produced by a domain change. */
export const TEST_EVENT = 'webhook.test';

export function isOutboundEvent(name: string): name is OutboundEvent {
  return (OUTBOUND_EVENTS as readonly string[]).includes(name);
}
