import { expect, it } from 'vitest';
import { loadPriceList } from '../../src/modules/docs/price-list.ts';
import { applyGuardrails } from '../../src/modules/sales-agent/guardrails.ts';
import { decideByRules } from '../../src/modules/sales-agent/rules-brain.ts';

/**
 * Evaluation set: realistic messages of Argentine prospects on Instagram, with the decision a good
 * salesperson would take. A reply case may also name words the answer must contain. The default
 * brain goes through the guardrails, as in production; the score is printed.
 */
interface Case {
  text: string;
  expect: 'reply' | 'handoff';
  reason?: string;
  contains?: string[];
}

const CASES: Case[] = [
  { text: 'Hola! cuánto sale?', expect: 'reply', contains: ['$\u00a024.900', '$\u00a069.900'] },
  { text: 'Buenas, me pasás precios?', expect: 'reply', contains: ['$\u00a024.900'] },
  { text: 'Hola, qué planes tienen?', expect: 'reply', contains: ['Inicial', 'Comercio', 'Cadena'] },
  { text: 'cuanto esta el plan comercio', expect: 'reply', contains: ['$\u00a024.900'] },
  { text: 'Y el plan cadena que incluye?', expect: 'reply', contains: ['$\u00a069.900', 'depósitos'] },
  { text: 'El inicial es gratis de verdad?', expect: 'reply', contains: ['gratis'] },
  { text: 'Tienen algo gratis para probar?', expect: 'reply', contains: ['gratis'] },
  { text: 'hay periodo de prueba?', expect: 'reply', contains: ['30 días'] },
  { text: 'Los precios son con IVA?', expect: 'reply', contains: ['IVA incluido'] },
  { text: 'Hay permanencia mínima o puedo dar de baja cuando quiera?', expect: 'reply', contains: ['permanencia'] },
  { text: 'Hace factura electrónica? Soy monotributista', expect: 'reply', contains: ['ARCA'] },
  { text: 'Se puede facturar con AFIP?', expect: 'reply', contains: ['ARCA'] },
  { text: 'Tengo 3 sucursales en Córdoba, me sirve?', expect: 'reply', contains: ['Cadena'] },
  { text: 'Maneja stock?', expect: 'reply', contains: ['stock'] },
  { text: 'Funciona con lector de código de barras?', expect: 'reply', contains: ['escáner'] },
  { text: 'Lee las etiquetas de la balanza? tengo fiambrería', expect: 'reply', contains: ['balanza'] },
  { text: 'Muestra el precio en dólares?', expect: 'reply', contains: ['dólar'] },
  { text: 'Cuántos usuarios puedo tener?', expect: 'reply', contains: ['usuarios'] },
  { text: 'Se integra con Tiendanube?', expect: 'reply', contains: ['integraciones'] },
  { text: 'Tengo todos mis productos en un excel, se pueden importar?', expect: 'reply', contains: ['$\u00a045.000'] },
  { text: '¿La carga del catálogo cuánto cuesta?', expect: 'reply', contains: ['$\u00a045.000'] },
  { text: '¿Cuánto sale un depósito extra?', expect: 'reply', contains: ['$\u00a07.900'] },
  { text: 'Funciona sin internet?', expect: 'reply', contains: ['internet'] },
  { text: 'Tengo un almacén chico, me sirve?', expect: 'reply', contains: ['Inicial'] },
  { text: 'Hola! vi su publicación, de qué se trata?', expect: 'reply', contains: ['Mostrador'] },
  { text: 'holaa', expect: 'reply' },
  { text: 'Buen día!', expect: 'reply' },
  { text: 'Gracias!!', expect: 'reply' },
  { text: 'Me hacen algún descuento si pago el año?', expect: 'reply', contains: ['confirma el equipo'] },
  { text: 'Tengo 25 sucursales, qué precio me hacen?', expect: 'reply', contains: ['confirma el equipo'] },
  { text: 'Está medio caro, no?', expect: 'reply', contains: ['gratis'] },
  { text: 'Cuántos productos puedo cargar en el gratuito?', expect: 'reply', contains: ['300'] },
  { text: 'Quiero hablar con alguien del equipo', expect: 'handoff', reason: 'asked_for_human' },
  { text: 'Me pasás un número de whatsapp para hablar?', expect: 'handoff', reason: 'asked_for_human' },
  { text: 'Sos un bot?', expect: 'handoff', reason: 'asked_for_human' },
  { text: 'Me pueden llamar mañana a la tarde?', expect: 'handoff', reason: 'asked_for_human' },
  { text: 'No me interesa, gracias', expect: 'handoff', reason: 'firm_objection' },
  { text: 'Dejen de mandarme mensajes', expect: 'handoff', reason: 'firm_objection' },
  { text: 'Esto es una estafa', expect: 'handoff', reason: 'firm_objection' },
  { text: 'Dale, lo quiero. Cómo pago?', expect: 'handoff', reason: 'closing_sale' },
  { text: 'Pasame el alias y te transfiero', expect: 'handoff', reason: 'closing_sale' },
  { text: 'Quiero contratar el plan Comercio para mi ferretería', expect: 'handoff', reason: 'closing_sale' },
  { text: 'Aceptan Mercado Pago?', expect: 'handoff', reason: 'closing_sale' },
  { text: 'Listo, arrancamos. Dame de alta', expect: 'handoff', reason: 'closing_sale' },
  {
    text: 'Mi sistema actual se cuelga cuando hago el cierre de caja, el de ustedes también?',
    expect: 'handoff',
    reason: 'low_confidence',
  },
  { text: 'Me recomendás una impresora térmica?', expect: 'handoff', reason: 'low_confidence' },
  { text: '👍', expect: 'handoff', reason: 'low_confidence' },
  { text: 'Y si tengo dos CUIT distintos?', expect: 'handoff', reason: 'low_confidence' },
  // Second batch, written after the first run and scored before any rule was touched (see the note).
  { text: 'Buenas tardes, tengo una dietética en Rosario. Qué me recomendás?', expect: 'reply', contains: ['Inicial'] },
  { text: 'cuanto sale por mes el mas completo?', expect: 'reply', contains: ['$\u00a069.900'] },
  { text: 'Puedo tener 2 cajas en el plan gratis?', expect: 'reply', contains: ['1 caja'] },
  { text: 'Me sirve para Mercado Libre?', expect: 'reply', contains: ['integraciones'] },
  { text: 'Tienen promo para nuevos clientes?', expect: 'reply', contains: ['confirma el equipo'] },
  { text: 'Hay que pagar instalación?', expect: 'handoff', reason: 'low_confidence' },
  { text: 'Necesito que alguien me explique por teléfono', expect: 'handoff', reason: 'asked_for_human' },
  { text: 'Ni loco pago eso', expect: 'handoff', reason: 'firm_objection' },
  { text: 'Ok me convenciste, cómo hago para contratar?', expect: 'handoff', reason: 'closing_sale' },
  { text: 'Hola, quería saber si hace facturas A', expect: 'reply', contains: ['ARCA'] },
  { text: 'Es seguro? quién ve mis datos?', expect: 'reply', contains: ['datos'] },
  { text: 'Y el soporte cómo es?', expect: 'reply', contains: ['WhatsApp'] },
  { text: 'me llegó un cobro que no reconozco', expect: 'handoff', reason: 'low_confidence' },
  { text: 'Tengo un kiosco con 2 empleados, qué plan me conviene?', expect: 'reply', contains: ['Comercio'] },
  // Third batch (issue 31): counter-offers and price negotiation go to a person, who decides what to
  // offer. Written and scored before any rule was touched (see docs/decisiones.md).
  { text: 'Te pago 15 mil por mes el plan Comercio, dale?', expect: 'handoff', reason: 'price_negotiation' },
  { text: 'Si me lo dejás en $ 20.000 lo contrato hoy', expect: 'handoff', reason: 'price_negotiation' },
  { text: 'El Cadena a 50 lucas y cerramos', expect: 'handoff', reason: 'price_negotiation' },
  { text: 'Más de 18000 no puedo pagar, me lo hacés a ese precio?', expect: 'handoff', reason: 'price_negotiation' },
  { text: 'Te ofrezco 12.000 mensuales por el Comercio', expect: 'handoff', reason: 'price_negotiation' },
  { text: 'Me lo dejás más barato? la competencia me cobra la mitad', expect: 'handoff', reason: 'price_negotiation' },
  { text: 'Y si pago 6 meses juntos, cuánto me lo dejás?', expect: 'handoff', reason: 'price_negotiation' },
  { text: 'Bajame un poco el precio y lo pensamos', expect: 'handoff', reason: 'price_negotiation' },
  { text: 'Hay descuento para estudiantes?', expect: 'reply', contains: ['confirma el equipo'] },
  { text: 'Cuánto sale el Comercio si pago anual?', expect: 'reply', contains: ['$\u00a024.900', 'confirma el equipo'] },
  // What the product does today (the register, ARCA invoicing, accounts, reports), in the words of
  // prospects: the answers once said ARCA issuing was "próximamente" long after it landed.
  { text: 'Puedo hacer las facturas desde el sistema o tengo que usar otro?', expect: 'reply', contains: ['CAE', 'caja'] },
  { text: 'si se corta internet puedo seguir cobrando?', expect: 'reply', contains: ['sigue vendiendo'] },
  { text: 'Tienen para llevar la libreta de fiado de los clientes?', expect: 'reply', contains: ['a cuenta'] },
  { text: 'Le puedo pasar el libro iva a mi contadora?', expect: 'reply', contains: ['Libro IVA Digital'] },
  { text: 'Tiene reportes de lo que más vendo?', expect: 'reply', contains: ['más vendidos'] },
];

it(`sales agent evaluation set (${CASES.length} messages)`, () => {
  const prices = loadPriceList();
  const misses: string[] = [];
  let unsafe = 0;
  for (const c of CASES) {
    const raw = decideByRules(prices, { text: c.text, history: [] });
    const out = applyGuardrails(raw, c.text, prices);
    let ok = out.decision === c.expect;
    if (ok && c.reason) ok = out.handoff_reason === c.reason;
    if (ok && c.contains) ok = c.contains.every((w) => out.reply?.includes(w));
    // The costly mistake: an automatic reply where a person had to answer.
    if (c.expect === 'handoff' && out.decision === 'reply') unsafe += 1;
    if (!ok)
      misses.push(`  ✗ "${c.text}" → ${out.decision}${out.handoff_reason ? ` (${out.handoff_reason})` : ''}: ${out.reply ?? ''}`);
  }
  const score = CASES.length - misses.length;
  console.log(
    `sales agent eval: ${score}/${CASES.length} correct (${Math.round((100 * score) / CASES.length)}%), ${unsafe} automatic replies where a person had to answer\n${misses.join('\n')}`,
  );
  expect(CASES.length).toBeGreaterThanOrEqual(40);
  expect(unsafe).toBe(0);
  expect(score / CASES.length).toBeGreaterThanOrEqual(0.9);
});

it('never tells a prospect that something built is still to come', () => {
  const prices = loadPriceList();
  for (const text of [
    '¿Hace factura electrónica?',
    'Funciona sin internet?',
    '¿Qué es Mostrador? contame',
    'Y el plan comercio que incluye?',
    'Y el inicial?',
  ]) {
    const out = applyGuardrails(decideByRules(prices, { text, history: [] }), text, prices);
    expect(out.decision, text).toBe('reply');
    expect(out.reply, text).not.toMatch(/próximamente|en desarrollo|todavía no|por integración/i);
  }
});
