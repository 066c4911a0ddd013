/**
 * One OpenAPI document is generated from the routes' schemas (@fastify/swagger); it is served as two:
 * `/openapi.json`, the contract's public, documentation and integration endpoints, and
 * `/docs/openapi-comercio.json`, the merchant API (/api/v1) with named component schemas.
 */

type Json = Record<string, unknown>;
const MERCHANT_PREFIX = '/api/v1/';

const MERCHANT_TAGS = [
  {
    name: 'Cuenta y tokens',
    description: 'Con qué empresa y qué acceso entrás (/api/v1/me) y los tokens de API de la empresa (guía: /docs/api-comercio)',
  },
  { name: 'Catálogo', description: 'Productos, categorías, cambio de precios, importación y exportación' },
  { name: 'Stock', description: 'Stock por depósito y movimientos (el libro de stock)' },
  { name: 'Depósitos y cajas', description: 'Depósitos y cajas de la empresa' },
  {
    name: 'Clientes',
    description:
      'Clientes de la empresa (CRM): datos fiscales, contacto, cuenta corriente; importación y exportación (guía: /docs/clientes)',
  },
  { name: 'Caja y ventas', description: 'Turnos de caja, ventas, cobros, anulaciones y resúmenes' },
  {
    name: 'Facturación',
    description:
      'Facturación electrónica con ARCA: datos fiscales, facturas A, B y C con CAE, notas de crédito (guía: /docs/facturacion)',
  },
  {
    name: 'Cuenta corriente',
    description:
      'Ventas a cuenta, pagos a cuenta, saldos, estados de cuenta y antigüedad de deuda (guía: /docs/cuenta-corriente)',
  },
  {
    name: 'Reportes',
    description:
      'Reportes de ventas y stock, su CSV, los números de Inicio y el Libro IVA Digital de ventas (guías: /docs/reportes, /docs/libro-iva)',
  },
];

function isMerchant(path: string): boolean {
  return path.startsWith(MERCHANT_PREFIX);
}

const generatedSchemas = (full: Json) => ((full['components'] as Json | undefined)?.['schemas'] as Json | undefined) ?? {};

/** The generated component schemas (def-N) that `node` refers to, directly or through each other. */
function referenced(node: unknown, all: Json, found = new Set<string>()): Set<string> {
  const text = JSON.stringify(node);
  for (const match of text.matchAll(/#\/components\/schemas\/([A-Za-z0-9_.-]+)/g)) {
    const name = match[1]!;
    if (found.has(name) || !(name in all)) continue;
    found.add(name);
    referenced(all[name], all, found);
  }
  return found;
}

/** The contract's document: everything but the merchant API, and only the schemas it uses. */
export function contractDocument(full: Json): Json {
  const paths = Object.fromEntries(Object.entries((full['paths'] as Json) ?? {}).filter(([path]) => !isMerchant(path)));
  const all = generatedSchemas(full);
  const used = referenced(paths, all);
  const components = {
    ...((full['components'] as Json) ?? {}),
    schemas: Object.fromEntries([...used].map((name) => [name, all[name]])),
  };
  return { ...full, paths, components };
}

/** Generated names (def-0…) become the schemas' own names (Product, Sale…). */
function renameGenerated(node: unknown, names: Map<string, string>): unknown {
  let text = JSON.stringify(node);
  text = text.replace(/#\/components\/schemas\/([A-Za-z0-9_.-]+)/g, (ref, name: string) =>
    names.has(name) ? `#/components/schemas/${names.get(name)}` : ref,
  );
  return JSON.parse(text);
}

/** The shape of the error body (every route's `{error, code[, details]}`), named Error in the merchant document. */
function isErrorBody(value: Json): boolean {
  const properties = value['properties'] as Json | undefined;
  return (
    value['type'] === 'object' &&
    !!properties &&
    'error' in properties &&
    'code' in properties &&
    Object.keys(properties).length <= 3
  );
}

/** Moves every schema with a `$id` (and the error body) into components and points to it. */
function nameSchemas(node: unknown, schemas: Json): unknown {
  if (Array.isArray(node)) return node.map((item) => nameSchemas(item, schemas));
  if (!node || typeof node !== 'object') return node;
  const object = node as Json;
  const id = typeof object['$id'] === 'string' ? (object['$id'] as string) : isErrorBody(object) ? 'Error' : null;
  const walked: Json = {};
  for (const [key, value] of Object.entries(object)) {
    if (key === '$id') continue;
    walked[key] = nameSchemas(value, schemas);
  }
  if (!id) return walked;
  const { description, ...schema } = walked;
  schemas[id] ??= id === 'Error' ? { ...schema, description: 'Error: {error, code[, details]}' } : walked;
  return id === 'Error' && description
    ? { $ref: `#/components/schemas/${id}`, description }
    : { $ref: `#/components/schemas/${id}` };
}

/** The merchant API document: /api/v1 only, token or session security, named component schemas. */
export function merchantDocument(full: Json): Json {
  const all = generatedSchemas(full);
  const names = new Map<string, string>();
  for (const [name, schema] of Object.entries(all)) {
    const title = (schema as Json)['title'];
    names.set(
      name,
      typeof title === 'string' && !Object.values(all).some((o) => o !== schema && (o as Json)['title'] === title) ? title : name,
    );
  }
  const merchantPaths = Object.fromEntries(Object.entries((full['paths'] as Json) ?? {}).filter(([path]) => isMerchant(path)));
  const schemas: Json = {};
  for (const name of referenced(merchantPaths, all)) {
    const { title: _title, ...schema } = renameGenerated(all[name], names) as Json;
    schemas[names.get(name)!] = nameSchemas(schema, schemas);
  }
  const paths = Object.fromEntries(
    Object.entries(renameGenerated(merchantPaths, names) as Json).map(([path, item]) => [path, nameSchemas(item, schemas)]),
  );
  return {
    openapi: full['openapi'] ?? '3.1.0',
    info: {
      title: 'Mostrador: API del comercio',
      version: '1.0.0',
      description:
        'Catálogo, stock, depósitos, cajas, ventas y facturación de tu empresa (/api/v1). Autenticación: un token de API de la empresa (Authorization: Bearer mos_api_…) o la sesión del navegador. Guía: /docs/api-comercio.',
    },
    servers: full['servers'] ?? [],
    tags: MERCHANT_TAGS,
    security: [{ apiToken: [] }, { session: [] }],
    components: {
      securitySchemes: {
        apiToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Token de API de la empresa (Configuración → Tokens de API, o `npm run cli -- token create`): Authorization: Bearer mos_api_…',
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'mostrador_session',
          description: 'La sesión del navegador (escrituras desde el mismo origen)',
        },
      },
      schemas,
    },
    paths,
  };
}
