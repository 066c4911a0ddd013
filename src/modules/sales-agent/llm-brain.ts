import type { PriceList } from '../docs/price-list.ts';
import { renderPriceList } from '../docs/price-list.ts';
import type { Brain, BrainAnswer, BrainInput } from './brain.ts';

export interface LlmOptions {
  baseUrl: string;
  apiKey: string | null;
  model: string;
  timeoutMs: number;
}

/** The structured answer asked of the model (OpenAI `response_format: json_schema`, strict). */
export const DECISION_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['decision', 'reply', 'handoff_reason', 'confidence'],
  properties: {
    decision: { type: 'string', enum: ['reply', 'handoff'] },
    reply: { type: ['string', 'null'] },
    handoff_reason: {
      type: ['string', 'null'],
      enum: ['asked_for_human', 'firm_objection', 'closing_sale', 'price_negotiation', 'low_confidence', null],
    },
    confidence: { type: 'number' },
  },
} as const;

export function systemPrompt(prices: PriceList): string {
  return [
    'Atendés los mensajes directos de Instagram y WhatsApp de Mostrador, un sistema para comercios: caja en el navegador que sigue vendiendo sin conexión, stock por depósito, facturación electrónica con ARCA (facturas A, B y C y notas de crédito con CAE, contingencia CAEA), clientes y cuenta corriente, reportes y Libro IVA Digital, escáner de precios, cotización del dólar e integraciones.',
    'Quien escribe es alguien interesado en contratar el servicio. Escribí en español de Argentina, con voseo, cálido y breve (2 a 4 oraciones), sin emojis en exceso.',
    'Reglas:',
    '- Usá solo los precios de la lista publicada de abajo; no calcules ni inventes otros montos.',
    '- Nunca prometas descuentos, promociones ni precios especiales: decí que el equipo lo confirma.',
    '- No digas que sos una persona ni hables de cómo se generan tus respuestas.',
    '- Elegí "handoff" (sin respuesta) si pide hablar con una persona, rechaza con firmeza, quiere cerrar la compra (pagar, contratar, dar de alta), regatea o propone su propio precio (price_negotiation) o no estás seguro de la respuesta.',
    '- confidence: de 0 a 1, cuán seguro estás de que la respuesta es correcta y completa.',
    'Respondé solo con el JSON pedido: {"decision","reply","handoff_reason","confidence"}.',
    '',
    `Lista de precios publicada (ARS, IVA ${prices.vat_included ? 'incluido' : 'no incluido'}, actualizada ${prices.updated}):`,
    renderPriceList(prices),
    `Prueba: ${prices.trial_days} días en los planes pagos.`,
  ].join('\n');
}

/**
 * A brain over any OpenAI-compatible `POST {base}/chat/completions`: the price list in the system
 * message, the thread as user/assistant turns, a strict JSON schema for the answer. A timeout, an
 * HTTP error, a refusal or an answer of the wrong shape is a handoff with confidence 0.
 */
export function createLlmBrain(prices: PriceList, options: LlmOptions, fetchImpl: typeof fetch = fetch): Brain {
  const system = systemPrompt(prices);
  return {
    name: `llm:${options.model}`,
    async decide(input: BrainInput): Promise<BrainAnswer> {
      const messages = [
        { role: 'system', content: system },
        ...input.history.map((h) => ({ role: h.from === 'customer' ? 'user' : 'assistant', content: h.text })),
        { role: 'user', content: input.text },
      ];
      try {
        const res = await fetchImpl(`${options.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
          },
          body: JSON.stringify({
            model: options.model,
            messages,
            temperature: 0.2,
            max_tokens: 400,
            response_format: {
              type: 'json_schema',
              json_schema: { name: 'sales_reply_decision', strict: true, schema: DECISION_SCHEMA },
            },
          }),
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        if (!res.ok) {
          await res.body?.cancel();
          return failed(`HTTP ${res.status}`);
        }
        const body = (await res.json()) as {
          choices?: { message?: { content?: string | null; refusal?: string | null }; finish_reason?: string }[];
        };
        const choice = body.choices?.[0];
        if (!choice?.message || choice.message.refusal) return failed('refusal');
        if (choice.finish_reason && choice.finish_reason !== 'stop') return failed(`finish_reason ${choice.finish_reason}`);
        return parseDecision(choice.message.content ?? '');
      } catch (err) {
        const name = (err as Error).name;
        return failed(name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : (err as Error).message);
      }
    },
  };
}

function failed(detail: string): BrainAnswer {
  return { decision: 'handoff', reply: null, handoff_reason: `brain_error: ${detail}`.slice(0, 200), confidence: 0 };
}

/** The model's JSON, checked field by field; anything else is a failure. */
export function parseDecision(content: string): BrainAnswer {
  let data: unknown;
  try {
    data = JSON.parse(content.trim().replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    return failed('the answer is not JSON');
  }
  const d = data as Record<string, unknown>;
  if (!d || typeof d !== 'object') return failed('the answer is not an object');
  if (d['decision'] !== 'reply' && d['decision'] !== 'handoff') return failed('decision is not reply or handoff');
  const confidence = d['confidence'];
  if (typeof confidence !== 'number' || !Number.isFinite(confidence)) return failed('confidence is not a number');
  if (confidence < 0 || confidence > 1) return failed('confidence is outside 0 to 1');
  const reply = typeof d['reply'] === 'string' ? d['reply'] : null;
  if (d['decision'] === 'reply' && !reply) return failed('a reply without text');
  return {
    decision: d['decision'],
    reply,
    handoff_reason: typeof d['handoff_reason'] === 'string' ? d['handoff_reason'] : null,
    confidence,
  };
}
