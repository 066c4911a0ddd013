import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deliveryBody, isMostradorInbound, signatureHeader } from './delivery-runner.ts';

describe('delivery body and signature', () => {
  const payload = {
    event: 'sales.paid',
    data: { sale: { id: 9, company_id: 3, total: 1500.5, status: 'paid' } },
  };

  it('sends the envelope with event first, exactly as stored', () => {
    expect(deliveryBody(payload)).toBe(
      '{"event":"sales.paid","data":{"sale":{"id":9,"company_id":3,"total":1500.5,"status":"paid"}}}',
    );
  });

  it('leaves company_id out for a Mostrador inbound endpoint, whose key decides the company', () => {
    expect(deliveryBody(payload, { omitCompanyId: true })).toBe(
      '{"event":"sales.paid","data":{"sale":{"id":9,"total":1500.5,"status":"paid"}}}',
    );
    expect(isMostradorInbound('https://central.example.com/api/integration/in')).toBe(true);
    expect(isMostradorInbound('http://127.0.0.1:3000/api/integration/in/')).toBe(true);
    expect(isMostradorInbound('https://erp.example.com/api/integration/in/orders')).toBe(false);
    expect(isMostradorInbound('https://erp.example.com/hooks')).toBe(false);
  });

  it('signs with every valid secret, current first, as lowercase hex joined by commas', () => {
    const body = deliveryBody(payload);
    const hex = (secret: string) => createHmac('sha256', secret).update(body).digest('hex');
    expect(signatureHeader(body, ['new-secret'])).toBe(hex('new-secret'));
    expect(signatureHeader(body, ['new-secret', 'old-secret'])).toBe(`${hex('new-secret')},${hex('old-secret')}`);
    // The GitHub known-answer vector: the same scheme.
    expect(signatureHeader('Hello, World!', ["It's a Secret to Everybody"])).toBe(
      '757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    );
  });
});
