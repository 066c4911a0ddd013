import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadPriceList } from '../../src/modules/docs/price-list.ts';
import type { BrainAnswer } from '../../src/modules/sales-agent/brain.ts';
import { applyGuardrails, mentionsAutomation, quotedAmounts } from '../../src/modules/sales-agent/guardrails.ts';
import { createLlmBrain, DECISION_SCHEMA } from '../../src/modules/sales-agent/llm-brain.ts';
import { DISCOUNT_LINE, decideByRules } from '../../src/modules/sales-agent/rules-brain.ts';
import { createSalesAgentService } from '../../src/modules/sales-agent/sales-agent.service.ts';
import { type FakeLlm, startFakeLlm } from '../fakes/llm.fake.ts';

const prices = loadPriceList();
const reply = (text: string, confidence = 0.9): BrainAnswer => ({ decision: 'reply', reply: text, confidence });

describe('guardrails (after any brain)', () => {
  it.each([
    'Soy un asistente virtual de Mostrador, ¿en qué te ayudo?',
    'Hola! Te escribe el bot de Mostrador.',
    'Esta es una respuesta automática.',
    'Te respondo automáticamente en unos segundos.',
    'Como IA no puedo confirmarte eso.',
    'Como I.A. te digo que el plan Comercio es ideal.',
    'Soy una inteligencia artificial entrenada para ayudarte.',
    'Este mensaje fue generado por un sistema.',
    'Soy un chatbot 🤖',
    'Hola, soy ChatGPT.',
    'No soy una persona, pero te ayudo igual.',
    'Como modelo de lenguaje no tengo precios.',
    'Soy un asistente digital.',
    'Te contesta un robot amigable.',
    'I am an AI assistant.',
    'Mensaje automatizado: gracias por escribir.',
    'Soy un B0T de ventas',
    'Soy un agente virtual de Mostrador.',
    'Hola, te escribe Mostradorbot.',
    'Te responde un asistente de Mostrador.',
  ])('never says or implies automation: %s → handoff', (text) => {
    expect(mentionsAutomation(text)).toBe(true);
    expect(applyGuardrails(reply(text), 'hola', prices)).toMatchObject({
      decision: 'handoff',
      reply: null,
      handoff_reason: 'automation_disclosure',
    });
  });

  it.each([
    '¿Querés que te cuente qué incluye cada plan?',
    'Botones, cajas y balanzas: todo en un lugar.',
    'La cotización del dólar se actualiza sola.',
    'Es ideal para tu almacén.',
  ])('ordinary replies pass: %s', (text) => expect(mentionsAutomation(text)).toBe(false));

  it.each([
    'El plan Comercio sale $ 19.900 por mes.',
    'Te queda en $19900 mensuales.',
    'Son 25 mil pesos por mes.',
    'Sale 30000 por mes.',
    'El Cadena cuesta USD 60.',
    'Con 15 sucursales serían $ 109.400 por mes.',
    'El plan Comercio sale $ 24.900 y la carga inicial $ 40.000.',
  ])('an amount outside the published list → handoff: %s', (text) => {
    expect(applyGuardrails(reply(text), '¿precio?', prices)).toMatchObject({
      decision: 'handoff',
      handoff_reason: 'unpublished_amount',
    });
  });

  it('published amounts in any usual spelling pass', () => {
    const text =
      'Comercio: $ 24.900 por mes; Cadena: $69.900,00; el depósito adicional $ 7.900; la carga inicial 45.000 pesos. El Inicial es gratis, 30 días de prueba.';
    expect(quotedAmounts(text).map((a) => a.value)).toEqual(expect.arrayContaining([24900, 69900, 7900, 45000]));
    expect(applyGuardrails(reply(text), '¿precios?', prices)).toMatchObject({ decision: 'reply', reply: text, guardrails: [] });
  });

  it.each([
    ['Lo quiero, pasame el alias para pagar', 'closing_sale'],
    ['No me interesa, dejen de escribirme', 'firm_objection'],
    ['Quiero hablar con una persona', 'asked_for_human'],
    ['Si me lo dejás en 15 mil lo contrato', 'price_negotiation'],
  ])('rule 6 holds whatever the brain answered: "%s" → handoff %s', (input, reason) => {
    const out = applyGuardrails(reply('¡Claro! El plan Comercio sale $ 24.900 por mes.'), input, prices);
    expect(out).toMatchObject({ decision: 'handoff', reply: null, handoff_reason: reason });
  });

  it('a reply that carries a handoff reason is a handoff', () => {
    const out = applyGuardrails({ ...reply('Dale, te paso los datos.'), handoff_reason: 'closing_sale' }, 'hola', prices);
    expect(out).toMatchObject({ decision: 'handoff', reply: null, handoff_reason: 'closing_sale' });
    expect(out.guardrails).toEqual(['brain_handoff_reason']);
  });

  it.each([
    'El plan Comercio: 19.900 + IVA.',
    'El plan Comercio está 19.900.',
    'El plan Comercio son 19900.',
    'Comercio 24900.- y Cadena 19900.-',
    'El plan Comercio sale veinte mil pesos por mes.',
    'El plan Inicial sale $ 69.900 por mes.',
    'El Comercio sale $ 69.900 y el Cadena $ 24.900.',
    'El Comercio queda a $ 7.900 por mes.',
    'Sale $ 24.900 por mes; la prueba gratis es de 90 días.',
  ])('an amount or a figure the list does not say for it → handoff: %s', (text) => {
    expect(applyGuardrails(reply(text), '¿precio?', prices)).toMatchObject({ decision: 'handoff', reply: null });
  });

  it.each([
    'Hoy tenemos una oferta: el Comercio te queda a $ 24.900.',
    'Te lo dejamos en $ 24.900 si arrancás esta semana.',
    'Tenés dos meses sin cargo si arrancás hoy.',
    'Si contratás hoy te hacemos la mitad de precio.',
  ])('an offer is never made: "%s" goes, the team confirms', (text) => {
    const out = applyGuardrails(reply(`El plan Comercio sale $ 24.900 por mes. ${text}`), '¿cuánto sale?', prices);
    expect(out.decision).toBe('reply');
    expect(out.reply).toBe(`El plan Comercio sale $ 24.900 por mes. ${DISCOUNT_LINE}`);
  });

  it.each([
    'El Comercio sale $ 24.900 por mes y el Cadena $ 69.900; cada depósito adicional del Cadena, $ 7.900.',
    'Tenés 30 días de prueba, y el Inicial es gratis hasta 300 productos.',
    'La carga inicial del catálogo desde tu planilla sale $ 45.000, pago único.',
    'Facturás en ticket o A4, y el Comercio tiene hasta 5 usuarios y 3 cajas.',
  ])('replies that say only what the list says pass: %s', (text) => {
    expect(applyGuardrails(reply(text), '¿precios?', prices)).toMatchObject({ decision: 'reply', reply: text });
  });

  it('every answer of the rules brain passes the guardrails unchanged', () => {
    for (const text of [
      '¿Precios?',
      '¿Qué incluye el Cadena?',
      'Tengo un excel con productos',
      '¿Factura A?',
      'Tengo 3 locales',
    ]) {
      const answer = decideByRules(prices, { text, history: [] });
      if (answer.decision !== 'reply') continue;
      expect(applyGuardrails(answer, text, prices), text).toMatchObject({ decision: 'reply', reply: answer.reply });
    }
  });

  it('a promised discount is removed and the reply says the team confirms it', () => {
    const out = applyGuardrails(
      reply('El plan Comercio sale $ 24.900 por mes. Te hago un 20% de descuento si pagás hoy. ¿Arrancamos?'),
      '¿Me hacés precio?',
      prices,
    );
    expect(out.decision).toBe('reply');
    expect(out.reply).not.toMatch(/20 ?%|descuento si/);
    expect(out.reply).toContain('$ 24.900');
    expect(out.reply).toContain(DISCOUNT_LINE);
    expect(out.guardrails).toEqual(['discount_promise_removed', 'team_confirms_discount']);
  });

  it('a person asking for a custom quote always hears that the team confirms it', () => {
    const out = applyGuardrails(reply('El Cadena sale $ 69.900 por mes.'), '¿Qué precio me hacés para 25 sucursales?', prices);
    expect(out.reply).toBe(`El Cadena sale $ 69.900 por mes. ${DISCOUNT_LINE}`);
  });

  it('a counter-offer or a haggle goes to a person even when the brain wrote a polite reply (issue 31)', () => {
    const polite = reply('El plan Comercio sale $ 24.900 por mes con IVA incluido.');
    for (const input of [
      'Te pago 15 mil por mes el Comercio',
      'Me lo dejás más barato?',
      'Si me lo dejás en $ 20.000 lo contrato',
    ]) {
      expect(applyGuardrails(polite, input, prices)).toMatchObject({
        decision: 'handoff',
        reply: null,
        handoff_reason: 'price_negotiation',
        guardrails: ['price_negotiation'],
      });
    }
    // Asking whether there are discounts is not a counter-offer: the reply stays, the team confirms.
    expect(applyGuardrails(polite, '¿Tienen descuento si pago el año?', prices)).toMatchObject({ decision: 'reply' });
  });

  it('low confidence, empty or overlong replies → handoff', () => {
    expect(applyGuardrails(reply('Sí, claro.', 0.4), 'x', prices).handoff_reason).toBe('low_confidence');
    expect(applyGuardrails(reply('   '), 'x', prices).handoff_reason).toBe('empty_reply');
    expect(applyGuardrails(reply('a'.repeat(1001)), 'x', prices).handoff_reason).toBe('too_long');
  });

  it('each handoff trigger of the default brain', () => {
    const ask = (text: string) => decideByRules(prices, { text, history: [] });
    expect(ask('Quiero hablar con una persona')).toMatchObject({ decision: 'handoff', handoff_reason: 'asked_for_human' });
    expect(ask('¿Sos un bot?')).toMatchObject({ decision: 'handoff', handoff_reason: 'asked_for_human' });
    expect(ask('No me interesa, dejen de escribirme')).toMatchObject({ decision: 'handoff', handoff_reason: 'firm_objection' });
    expect(ask('Dale, lo quiero. ¿Cómo pago?')).toMatchObject({ decision: 'handoff', handoff_reason: 'closing_sale' });
    expect(ask('¿Me recomendás una marca de impresora fiscal?')).toMatchObject({
      decision: 'handoff',
      handoff_reason: 'low_confidence',
    });
  });
});

describe('OpenAI-compatible brain against the fake LLM server', () => {
  let llm: FakeLlm;
  const instagramStub = { sendEnabled: () => true } as never;
  const agent = () =>
    createSalesAgentService({
      db: null as never,
      config: { enabled: true, accountId: '1', senderIds: ['2'], whatsappNumberId: null, whatsappSenderIds: [], llm: null },
      clock: { now: () => new Date() },
      logger: { warn() {}, info() {}, error() {} } as never,
      instagram: instagramStub,
      whatsapp: instagramStub,
      brain: createLlmBrain(prices, { baseUrl: llm.url, apiKey: llm.apiKey, model: 'gpt-test-mini', timeoutMs: 500 }),
      prices,
    });

  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(async () => llm.close());
  beforeEach(() => {
    llm.requests.length = 0;
    llm.delayMs = 0;
    llm.status = 200;
  });

  it('asks with the real wire format: model, system price list, thread turns, strict json_schema, Bearer key', async () => {
    llm.answer = () => ({
      decision: 'reply',
      reply: 'El plan Comercio sale $ 24.900 por mes, con IVA incluido.',
      handoff_reason: null,
      confidence: 0.9,
    });
    const out = await agent().decide({
      text: '¿y el comercio?',
      history: [
        { from: 'customer', text: 'hola' },
        { from: 'us', text: '¡Hola! ¿Qué necesitás?' },
      ],
    });
    expect(out).toMatchObject({
      decision: 'reply',
      reply: 'El plan Comercio sale $ 24.900 por mes, con IVA incluido.',
      brain: 'llm:gpt-test-mini',
    });
    const sent = llm.requests[0]!;
    expect(sent.authorization).toBe(`Bearer ${llm.apiKey}`);
    expect(sent.body['model']).toBe('gpt-test-mini');
    const messages = sent.body['messages'] as { role: string; content: string }[];
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(messages[0]!.content).toContain('$\u00a024.900,00');
    expect(sent.body['response_format']).toEqual({
      type: 'json_schema',
      json_schema: { name: 'sales_reply_decision', strict: true, schema: DECISION_SCHEMA },
    });
  });

  it('"Soy un asistente virtual…" from the model → handoff, nothing to send', async () => {
    llm.answer = () => ({
      decision: 'reply',
      reply: 'Soy un asistente virtual de Mostrador. El plan Inicial es gratis.',
      handoff_reason: null,
      confidence: 0.95,
    });
    expect(await agent().decide({ text: 'hola', history: [] })).toMatchObject({
      decision: 'handoff',
      reply: null,
      handoff_reason: 'automation_disclosure',
    });
  });

  it('an invented price from the model → handoff', async () => {
    llm.answer = () => ({
      decision: 'reply',
      reply: 'El plan Comercio te sale $ 18.500 por mes.',
      handoff_reason: null,
      confidence: 0.95,
    });
    expect(await agent().decide({ text: '¿precio?', history: [] })).toMatchObject({
      decision: 'handoff',
      handoff_reason: 'unpublished_amount',
    });
  });

  it('a promised discount from the model → the promise goes, the team confirms', async () => {
    llm.answer = () => ({
      decision: 'reply',
      reply: 'El plan Cadena sale $ 69.900 por mes. Como sos nuevo te dejo el primer mes gratis y un 15% de descuento.',
      handoff_reason: null,
      confidence: 0.9,
    });
    const out = await agent().decide({ text: '¿cuánto el cadena?', history: [] });
    expect(out.decision).toBe('reply');
    expect(out.reply).toBe(`El plan Cadena sale $ 69.900 por mes. ${DISCOUNT_LINE}`);
  });

  it('the model handing off is kept; timeouts, HTTP errors and malformed JSON fall back to handoff', async () => {
    llm.answer = () => ({ decision: 'handoff', reply: null, handoff_reason: 'closing_sale', confidence: 0.9 });
    expect(await agent().decide({ text: 'lo quiero', history: [] })).toMatchObject({
      decision: 'handoff',
      handoff_reason: 'closing_sale',
    });
    llm.answer = () => 'no soy json';
    expect(await agent().decide({ text: 'hola', history: [] })).toMatchObject({ decision: 'handoff', confidence: 0 });
    llm.answer = () => ({ decision: 'reply', reply: 'El Comercio sale $ 24.900 por mes.', handoff_reason: null, confidence: 7 });
    expect(await agent().decide({ text: '¿precio?', history: [] })).toMatchObject({
      decision: 'handoff',
      handoff_reason: 'brain_error: confidence is outside 0 to 1',
    });
    llm.answer = () => ({ decision: 'reply', reply: 'Dale, arrancamos.', handoff_reason: 'closing_sale', confidence: 0.9 });
    expect(await agent().decide({ text: 'hola', history: [] })).toMatchObject({
      decision: 'handoff',
      handoff_reason: 'closing_sale',
    });
    llm.status = 500;
    expect((await agent().decide({ text: 'hola', history: [] })).handoff_reason).toMatch(/^brain_error: HTTP 500/);
    llm.status = 200;
    llm.delayMs = 1500;
    const started = Date.now();
    expect((await agent().decide({ text: 'hola', history: [] })).handoff_reason).toBe('brain_error: timeout');
    expect(Date.now() - started).toBeLessThan(1400);
  });
});
