import type { PriceList } from '../docs/price-list.ts';
import type { Brain, BrainAnswer, BrainInput } from './brain.ts';
import { normalize, pesos } from './text.ts';

/**
 * The default brain: fixed es-AR (voseo) rules over the published price list and a short FAQ
 * drawn from the public docs (docs/precios.md, docs/preguntas-frecuentes.md). It never invents:
 * every amount it writes comes from the price list, and anything it does not recognise goes to
 * a person (low confidence). The order of the checks is the order of priority.
 */

// Handoff triggers (contract rule 6; price negotiation added by issue 31). Matched against the normalized text (no accents, lowercase).
const ASKS_HUMAN =
  /\b(hablar|comunicarme|charlar) con (alguien|una persona|un humano|un asesor|un vendedor|una vendedora|el due|la due|un representante|el equipo|ventas)|\b(persona real|ser humano|un humano|una persona de verdad|atencion al cliente|un asesor|una asesora|un vendedor|un operador|un representante)\b|\b(me (llaman|llamas|llamen|podes llamar|pueden llamar)|llamame|llamenme|te llamo|los llamo|numero de (telefono|celular|whatsapp)|tu (telefono|celular|whatsapp)|un (telefono|celular) para|pasame (un|tu) (whatsapp|numero|cel))|\bsos (un |una )?(bot|robot|maquina|ia|persona|humano|contestador)\b|\b(hablando|chateando) con (un|una) (bot|robot|maquina|ia|persona)\b|\b(es|esto es) (una )?respuesta automatica\b|\bme atiende (alguien|una persona)\b|\balguien (que )?(me|nos) (explique|expliquen|llame|atienda|conteste|responda|ayude)\b|\b(explique|expliquen|expliques|explicas|explican|hablar|hablemos|hablamos|charlar|charlemos|atiendan|contactarme|contactarnos) por (telefono|llamada|celular|videollamada|zoom|meet)\b/;
const FIRM_OBJECTION =
  /\b(no me interesa|no nos interesa|no estoy interesad|no estamos interesad|no quiero nada|no gracias|no, gracias|dejen de (escribir|mandar|molestar)|deja de (escribir|mandar|molestar)|no me (escriban|escribas|molesten|molestes|manden)|no molesten|basta\b|spam|los voy a denunciar|denuncia|estafa|chant|truchos?\b|borrame|borrenme|sacame de|no vuelvan a|ni loco|ni en pedo|olvidate)/;
const CLOSING =
  /\b(lo quiero|lo queremos|quiero (contratar|contratarlo|el plan|suscribirme|darme de alta|pagar|comprar|el comercio|el cadena|el inicial)|queremos contratar|lo contrato|lo contratamos|contratalo|me (sumo|anoto|suscribo|lo llevo|quedo con)|nos quedamos con|como (pago|te pago|les pago|abono|lo pago|contrato|lo contrato|me suscribo|me doy de alta|hago para (contratar|pagar|darme de alta|suscribirme))|donde (pago|abono)|pasame (el |tu |un )?(cbu|cvu|alias|link de pago|link para pagar|datos para (pagar|transferir))|te (transfiero|paso la plata|pago ahora)|arrancamos|cerramos|cerrado\b|dame de alta|dennos de alta|ya quiero (empezar|arrancar|pagar)|(aceptan|aceptas|se puede pagar con|puedo pagar con|medios de pago|formas? de pago|pagar con) ?(tarjeta|mercado ?pago|transferencia|efectivo|debito|credito)?)/;

// Counter-offers and price negotiation (issue 31): the person names their own amount or bargains.
// A person answers: only the team decides what to offer, so no reply restates the list price.
const NEGOTIATION = new RegExp(
  [
    String.raw`\b(te|les|le) (ofrezco|pago|doy|propongo|abono)\b[^?.!]*\d`,
    String.raw`\b(ofrezco|propongo|ofrecemos|pagaria|pagariamos|puedo pagar|podemos pagar) (hasta |como mucho |maximo )?(\$ ?|ars ?)?\d`,
    String.raw`\b(me|nos) (lo|la) (dejas|dejan|deja|haces|hacen|hace|podes dejar|pueden dejar|dejarias|dejarian|harias|harian|bajas|bajan)\b`,
    String.raw`\bcuanto (me|nos) (lo|la) (dejas|dejan|haces|hacen|dejarias|harias)`,
    String.raw`\b(bajame|bajanos|bajenme|bajennos|rebajame|mejorame|mejoranos|mejorenme)\b`,
    String.raw`\b(bajar|bajas|bajan|bajarme|mejorar|mejoras|mejoran|mejorarme) (un poco |algo )?(el|ese|tu|su) precio`,
    String.raw`\bregate`,
    String.raw`\bnegoci(ar|emos|able|amos|ando)`,
    String.raw`\bultima oferta`,
    String.raw`\ba ese precio\b`,
    String.raw`\bla competencia (me |nos )?(cobra|sale|cuesta|deja)`,
    String.raw`\bmas de (\$ ?)?\d[\d.,]*( mil| lucas| pesos)? no (puedo|podemos|pago|pagamos|llego|llegamos)`,
    String.raw`\ba (\$ ?)?\d[\d.,]*( mil| lucas| pesos)? (y|asi) (cerramos|lo contrato|lo cerramos|arrancamos|trato hecho|dale)`,
  ].join('|'),
);

// Problems, complaints and troubleshooting: never answered by rules (a person knows the context).
const PROBLEM =
  /\b(se (cuelga|colgo|traba|trabo|tilda|tildo|rompio|borro)|no (anda|me anda|funciona|me funciona|carga|abre|imprime)|error|falla|fallo|problema|bug|reclamo|queja|me cobraron|no me llego)\b/;

// Custom discounts and unpublished quotes: the reply says the team confirms them (rule 7).
const DISCOUNT =
  /\b(descuento|rebaja|bonific|promo|oferta|precio especial|mejor precio|me (lo )?(dejas|haces) (a|en|mas barato)|me haces (un )?precio|mas barato|pago anual|plan anual|por ano|anual\b|presupuesto|a medida|personalizad|precio por volumen|(1[1-9]|[2-9]\d|\d{3}) (sucursales|locales|depositos|cajas))/;

interface Topic {
  /** Plan topics: when one matches, the general price list is left out (the answer stays short). */
  plan?: boolean;
  general?: boolean;
  /** Left out when an earlier part of the answer already says this word (a plan's own list). */
  covered?: string;
  match: RegExp;
  answer: (p: PriceList) => string;
}

const plan = (p: PriceList, id: string) => p.plans.find((x) => x.id === id);
const planLine = (p: PriceList) =>
  p.plans.map((x) => `${x.name}: ${x.monthly_price === 0 ? 'gratis' : `${pesos(x.monthly_price)} por mes`}`).join('; ');
const extra = (p: PriceList, id: string) => p.extras.find((x) => x.id === id);

function planDetail(p: PriceList, id: string): string {
  const x = plan(p, id);
  if (!x) return '';
  const price = x.monthly_price === 0 ? 'es gratis' : `sale ${pesos(x.monthly_price)} por mes con IVA incluido`;
  return `El plan ${x.name} ${price}. Es para ${lowerFirst(x.for)} Incluye: ${x.includes.map(lowerFirst).join('; ')}.`;
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

/** The short FAQ, each answer built from the price list or the public docs. */
const TOPICS: Topic[] = [
  {
    match: /\b(plan )?inicial\b/,
    plan: true,
    answer: (p) => planDetail(p, 'inicial'),
  },
  {
    match: /\b(plan comercio|el comercio\b)/,
    plan: true,
    answer: (p) => planDetail(p, 'comercio'),
  },
  {
    match: /\b(plan cadena|el cadena\b)/,
    plan: true,
    answer: (p) => planDetail(p, 'cadena'),
  },
  {
    general: true,
    match:
      /\b(precio|precios|cuanto (sale|cuesta|es|cobran|cobras|vale|salen|cuestan|seria|saldria)|cuanto me (sale|cuesta|saldria)|valor|valores|tarifa|costo|costos|planes|abono|mensualidad|cuota|que sale|lista de precios|cuanto esta)/,
    answer: (p) => `Tenemos tres planes, con IVA incluido: ${planLine(p)}. Se paga por mes adelantado y no hay permanencia.`,
  },
  {
    match: /\b(caro|carisimo|sale mucho|es mucho|muy costoso|no me alcanza|no tengo presupuesto)\b/,
    answer: (p) =>
      `Te entiendo. Si recién arrancás, el plan ${plan(p, 'inicial')?.name ?? 'Inicial'} es gratis (un local, una caja, hasta 300 productos), y los pagos no tienen permanencia: das de baja cuando quieras.`,
  },
  {
    match: /\b(gratis|gratuito|sin cargo|sin costo|free)\b/,
    answer: (p) =>
      `Sí: el plan ${plan(p, 'inicial')?.name ?? 'Inicial'} es gratis, para un local con una caja y hasta 300 productos. Los planes pagos tienen ${p.trial_days} días de prueba.`,
  },
  {
    match: /\b(prueba|probar|probarlo|demo|testear|periodo de prueba)\b/,
    answer: (p) =>
      `Los planes pagos tienen ${p.trial_days} días de prueba, y el plan Inicial es gratis sin límite de tiempo, así que podés probarlo tranquilo.`,
  },
  {
    match: /\b(permanencia|contrato minimo|dar de baja|darme de baja|cancelar|me puedo ir|cuando quiera|atado)\b/,
    answer: (p) => p.billing,
  },
  {
    match: /(?<!libro )\b(iva|impuesto|impuestos|precio final|mas iva)\b/,
    answer: () => 'Los precios son finales: tienen el IVA incluido.',
  },
  {
    covered: 'ARCA',
    match: /\b(factur|arca|afip|cae\b|comprobante|factura [abc]\b|monotribut|responsable inscripto)/,
    answer: (p) =>
      `La facturación electrónica con ARCA está en el plan Comercio (${pesos(plan(p, 'comercio')?.monthly_price ?? 0)} por mes) y en el Cadena: facturás A, B y C y notas de crédito con CAE desde la caja o desde Ventas, en ticket o A4 con el QR. Si ARCA o internet no responden, Mostrador factura con CAEA de contingencia.`,
  },
  {
    // The price of an extra deposit or branch (an extra of the list, not a plan).
    plan: true,
    match: /\b(depositos?|sucursal(es)?) (extras?|adicional(es)?|de mas|mas)\b|\bmas (depositos|sucursales)\b/,
    answer: (p) => {
      const add = extra(p, 'deposito-adicional');
      return add?.monthly_price !== undefined
        ? `Cada depósito o sucursal adicional del plan Cadena suma ${pesos(add.monthly_price)} por mes; el Cadena ya incluye hasta 10 depósitos.`
        : 'El plan Cadena incluye hasta 10 depósitos.';
    },
  },
  {
    covered: 'adicional',
    match:
      /\b(sucursal|sucursales|varios locales|dos locales|otro local|mas de un local|franquicia|transferir stock|transferencias)/,
    answer: (p) => {
      const add = extra(p, 'deposito-adicional');
      return `Para varias sucursales está el plan Cadena (${pesos(plan(p, 'cadena')?.monthly_price ?? 0)} por mes): usuarios y cajas ilimitados, hasta 10 depósitos y transferencias de stock entre ellos.${add?.monthly_price !== undefined ? ` Cada depósito o sucursal adicional suma ${pesos(add.monthly_price)} por mes.` : ''}`;
    },
  },
  {
    match: /\b(stock|inventario|deposito|depositos|mercaderia)\b/,
    answer: () =>
      'Sí, llevás el control de stock en todos los planes: el Inicial con 1 depósito, el Comercio con 2 y el Cadena con hasta 10, con transferencias entre depósitos.',
  },
  {
    covered: 'escáner',
    match:
      /\b(escaner|escanear|lector|codigo de barras?|codigos de barras?|balanza|etiqueta|etiquetas|verificador|consulta de precios)\b/,
    answer: () =>
      'Incluye un escáner de precios para el local (un kiosco donde el cliente escanea y ve nombre, foto y precio final). Desde el plan Comercio también lee las etiquetas de balanza.',
  },
  {
    match: /\b(dolar|dolares|cotizacion|usd)\b/,
    answer: () =>
      'Muestra la cotización del dólar (oficial de venta del Banco Nación) como referencia; los precios de tus productos siempre están en pesos.',
  },
  {
    covered: 'usuarios',
    match: /\b(usuario|usuarios|cajas?|cajero|cajeros|empleado|empleados|vendedores)\b/,
    answer: () =>
      'Depende del plan: el Inicial es para 1 usuario y 1 caja; el Comercio, hasta 5 usuarios y 3 cajas; el Cadena, usuarios y cajas ilimitados.',
  },
  {
    match:
      /\b(api|integra|integracion|integraciones|tienda online|tienda nube|tiendanube|mercado ?libre|erp|webhook|webhooks|woocommerce|shopify|sistema propio|conectar (mi|con))/,
    answer: () =>
      'Se conecta con tu tienda online o tu sistema por la API de integraciones (eventos de ventas, productos y stock), desde el plan Comercio. El Cadena suma webhooks salientes firmados hacia tus sistemas.',
  },
  {
    // An extra of the list with its own price: asked about, the plans' list is left out.
    plan: true,
    match:
      /\b(planilla|excel|migrar|migracion|importar|cargar (los |mis |todos los )?productos|carga inicial|carga del catalogo|cargar (el |mi )?catalogo|mis productos|pasar (los|mis) productos)/,
    answer: (p) => {
      const m = extra(p, 'migracion');
      return m?.one_time_price !== undefined
        ? `Podés cargar los productos vos, o te hacemos la carga inicial del catálogo desde una planilla por ${pesos(m.one_time_price)}, pago único.`
        : 'Podés cargar los productos vos desde la configuración.';
    },
  },
  {
    match: /\b(cuantos productos|limite de productos|productos ilimitados|articulos|cuantos articulos)/,
    answer: () => 'El plan Inicial llega hasta 300 productos; el Comercio y el Cadena tienen productos ilimitados.',
  },
  {
    match: /\b(internet|sin conexion|offline|se corta la luz|se cae)\b/,
    answer: () =>
      'Si se corta internet, la caja sigue vendiendo y manda las ventas cuando vuelve la conexión, cada una una sola vez. Para facturar mientras tanto, Mostrador usa el CAEA de contingencia de ARCA. Instalado en tu local con la base embebida, el resto no depende de internet.',
  },
  {
    match: /\b(fiado|fiar|fio|cuenta corriente|cuentas corrientes|a cuenta|libreta|deudores|me deben)\b/,
    answer: () =>
      'Sí: cargás a tus clientes (CUIT o DNI, condición frente al IVA) y les vendés a cuenta desde la caja. Registrás sus pagos, ves cuánto debe cada uno y le mandás el estado de cuenta por WhatsApp o email.',
  },
  {
    match: /\b(reporte|reportes|estadisticas|cuanto vendi|mas vendidos|margen|margenes|libro iva|contador|contadora)\b/,
    answer: () =>
      'Al entrar ves cómo viene el día comparado con la semana pasada, los más vendidos y lo que falta reponer; los reportes de ventas, márgenes y stock bajan a Excel, y el Libro IVA Digital del mes sale listo para tu contador.',
  },
  {
    match: /\b(soporte|ayuda tecnica|atencion|me ayudan|capacitacion)\b/,
    answer: () =>
      'Tenés la documentación completa en la web, y el plan Cadena suma soporte prioritario por WhatsApp en horario comercial.',
  },
  {
    match: /\b(mis datos|seguridad|seguro|privacidad)\b/,
    answer: () => 'Cada empresa ve y modifica solo lo suyo: tus datos no los ve ningún otro comercio.',
  },
  {
    match:
      /\b(que es|que hace|de que se trata|de que va|como funciona|para que sirve|mas info|informacion|info\b|me contas|contame|me explicas|quisiera saber|queria saber|consulta sobre|vi (su|tu|el) (publicacion|posteo|anuncio|reel|historia))/,
    answer: () =>
      'Mostrador es un sistema para comercios: caja en el navegador (sigue vendiendo sin conexión), control de stock, facturación electrónica con ARCA, clientes y cuenta corriente, reportes, escáner de precios para tus clientes, cotización del dólar e integraciones con tu tienda online.',
  },
  {
    match:
      /\b(kiosco|almacen|ferreteria|farmacia|verduleria|despensa|libreria|dietetica|ropa|carniceria|minimercado|autoservicio|polirrubro|pet ?shop|corralon|fiambreria|panaderia|comercio chico|negocio chico|mi negocio|mi local|mi comercio)\b/,
    answer: (p) =>
      `Sirve para cualquier comercio con mostrador. Si es un solo local que recién arranca, el plan Inicial es gratis; con facturación electrónica y varias cajas, el Comercio sale ${pesos(plan(p, 'comercio')?.monthly_price ?? 0)} por mes.`,
  },
];

const GREETING = /^(hola+|holis|buenas+|buen dia|buenos dias|buenas tardes|buenas noches|que tal|hey|ey|saludos)\b/;
const THANKS =
  /^(muchas gracias|mil gracias|gracias+|genial|perfecto|barbaro|joya|buenisimo|ok|oka|dale|listo|de una|re bien|ah buenisimo)[\s!.,]*(gracias)?[\s!.]*$/;
const DISCOUNT_LINE = 'Los descuentos y los precios especiales los confirma el equipo: te escribimos por acá con la respuesta.';

export function createRulesBrain(prices: PriceList): Brain {
  return {
    name: 'rules',
    async decide(input: BrainInput): Promise<BrainAnswer> {
      return decideByRules(prices, input);
    },
  };
}

export function decideByRules(prices: PriceList, input: BrainInput): BrainAnswer {
  const text = normalize(input.text);
  const handoff = (reason: string, confidence: number): BrainAnswer => ({
    decision: 'handoff',
    reply: null,
    handoff_reason: reason,
    confidence,
  });
  if (text === '') return handoff('low_confidence', 0);
  if (ASKS_HUMAN.test(text)) return handoff('asked_for_human', 0.95);
  if (FIRM_OBJECTION.test(text)) return handoff('firm_objection', 0.9);
  // Before closing: "si me lo dejás en 20.000 lo contrato" is a counter-offer, not a sale.
  if (NEGOTIATION.test(text)) return handoff('price_negotiation', 0.9);
  if (CLOSING.test(text)) return handoff('closing_sale', 0.9);
  if (PROBLEM.test(text)) return handoff('low_confidence', 0.4);

  const parts: string[] = [];
  const matched = TOPICS.filter((topic) => topic.match.test(text));
  const planNamed = matched.some((topic) => topic.plan);
  for (const topic of matched) {
    if (topic.general && planNamed) continue;
    if (topic.covered && parts.some((p) => p.includes(topic.covered!))) continue;
    const answer = topic.answer(prices);
    if (answer && !parts.includes(answer)) parts.push(answer);
    if (parts.length === 2) break;
  }
  const discount = DISCOUNT.test(text);
  if (discount) {
    if (!parts.some((p) => p.startsWith('Tenemos tres planes'))) {
      parts.unshift(`Los precios publicados, con IVA incluido, son: ${planLine(prices)}.`);
    }
    parts.push(DISCOUNT_LINE);
  }
  const greeted = GREETING.test(text);
  if (parts.length === 0) {
    if (THANKS.test(text)) {
      return { decision: 'reply', reply: '¡De nada! Cualquier otra consulta, escribime por acá.', confidence: 0.8 };
    }
    if (greeted && text.split(' ').length <= 4) {
      return {
        decision: 'reply',
        reply:
          '¡Hola! ¿Cómo andás? Contame qué tipo de comercio tenés y qué necesitás resolver (ventas, stock, facturación, precios) así te paso la info justa.',
        confidence: 0.8,
      };
    }
    // Nothing recognised: a person answers.
    return handoff('low_confidence', 0.3);
  }
  const opening = greeted ? '¡Hola! ' : '';
  const closing = discount ? '' : ' ¿Querés que te cuente algo más?';
  return { decision: 'reply', reply: `${opening}${parts.join(' ')}${closing}`, confidence: parts.length > 0 ? 0.85 : 0.5 };
}

export { ASKS_HUMAN, CLOSING, DISCOUNT, DISCOUNT_LINE, FIRM_OBJECTION, NEGOTIATION };
