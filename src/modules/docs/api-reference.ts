/** Just the parts of an OpenAPI 3.1 document the reference page reads. */
interface OpenApiDocument {
  info?: { title?: string; version?: string };
  tags?: { name: string; description?: string }[];
  paths?: Record<string, Record<string, Operation>>;
  components?: { securitySchemes?: Record<string, { type?: string; scheme?: string; description?: string }> };
}

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: Record<string, unknown> }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'options', 'head'];
const cell = (text: string | undefined) => (text ?? '').replace(/\|/g, '\\|').replace(/\n+/g, ' ');

function schemaType(schema: Record<string, unknown> | undefined): string {
  if (!schema) return '';
  if (typeof schema['type'] === 'string')
    return schema['format'] ? `${schema['type']} (${schema['format']})` : (schema['type'] as string);
  if (Array.isArray(schema['anyOf'])) return (schema['anyOf'] as Record<string, unknown>[]).map(schemaType).join(' \\| ');
  return 'object';
}

function renderParameters(operation: Operation): string[] {
  if (!operation.parameters?.length) return [];
  const lines = ['Parámetros:', '', '| Nombre | En | Tipo | Obligatorio | Descripción |', '|---|---|---|---|---|'];
  for (const p of operation.parameters) {
    lines.push(
      `| \`${p.name}\` | ${p.in} | ${schemaType(p.schema)} | ${p.required ? 'sí' : 'no'} | ${cell(p.description ?? (p.schema?.['description'] as string))} |`,
    );
  }
  return [...lines, ''];
}

type JsonSchema = Record<string, unknown>;

/** One row per field, nested objects and arrays of objects flattened as `a.b` and `a[].b`. */
function schemaRows(schema: JsonSchema, prefix: string, depth: number): string[] {
  const properties = schema['properties'] as Record<string, JsonSchema> | undefined;
  if (!properties || depth > 3) return [];
  const required = new Set((schema['required'] as string[] | undefined) ?? []);
  return Object.entries(properties).flatMap(([name, field]) => {
    const path = `${prefix}${name}`;
    const items = field['items'] as JsonSchema | undefined;
    const type = field['type'] === 'array' && items ? `array of ${schemaType(items)}` : schemaType(field);
    const row = `| \`${path}\` | ${type} | ${required.has(name) ? 'sí' : 'no'} | ${cell(field['description'] as string | undefined)} |`;
    const nested = items ? schemaRows(items, `${path}[].`, depth + 1) : schemaRows(field, `${path}.`, depth + 1);
    return [row, ...nested];
  });
}

function renderSchemaBlock(title: string, content: Record<string, { schema?: unknown }> | undefined): string[] {
  const [type, media] = Object.entries(content ?? {})[0] ?? [];
  if (!type || !media?.schema) return [];
  const schema = media.schema as JsonSchema;
  if (schema['type'] === 'string') return [`${title}: \`${type}\` (texto).`, ''];
  const rows = schemaRows(schema, '', 0);
  if (rows.length === 0) return [`${title}: \`${type}\`.`, ''];
  return [`${title} (\`${type}\`):`, '', '| Campo | Tipo | Siempre | Descripción |', '|---|---|---|---|', ...rows, ''];
}

function renderOperation(method: string, path: string, operation: Operation, doc: OpenApiDocument): string[] {
  const lines = [`### ${method.toUpperCase()} ${path}`, ''];
  if (operation.summary) lines.push(`**${operation.summary}**`, '');
  if (operation.description) lines.push(operation.description, '');
  const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
  if (schemes.length > 0) {
    const described = schemes.map((name) => {
      const scheme = doc.components?.securitySchemes?.[name];
      return `\`${name}\` (${scheme?.scheme ?? scheme?.type ?? 'ver el esquema'})`;
    });
    lines.push(`Autenticación: ${described.join(', ')}.`, '');
  }
  lines.push(...renderParameters(operation));
  lines.push(...renderSchemaBlock('Cuerpo del pedido', operation.requestBody?.content));
  const responses = Object.entries(operation.responses ?? {});
  if (responses.length > 0) {
    lines.push('Respuestas:', '', '| Código | Descripción | Tipo |', '|---|---|---|');
    for (const [status, response] of responses) {
      lines.push(`| ${status} | ${cell(response.description)} | ${Object.keys(response.content ?? {}).join(', ')} |`);
    }
    lines.push('');
    const ok = responses.find(([status]) => status.startsWith('2'));
    if (ok) lines.push(...renderSchemaBlock(`Respuesta ${ok[0]}`, ok[1].content));
  }
  return lines;
}

/**
 * The API reference page, written from the OpenAPI document the server publishes (so it always
 * matches the schemas that validate requests). Grouped by tag, in the document's tag order.
 */
export function renderApiReference(doc: OpenApiDocument): string {
  const lines = [
    `Esta página se genera a partir de [openapi.json](/openapi.json) (OpenAPI 3.1, versión ${doc.info?.version ?? ''} de la API).`,
    'Los errores siempre tienen la forma `{"error": "mensaje", "code": "codigo"}`.',
    '',
  ];
  const operations: { tag: string; method: string; path: string; operation: Operation }[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) operations.push({ tag: operation.tags?.[0] ?? 'Otros', method, path, operation });
    }
  }
  const tags = [...(doc.tags ?? []).map((t) => t.name), ...new Set(operations.map((o) => o.tag))].filter(
    (t, i, all) => all.indexOf(t) === i,
  );
  for (const tag of tags) {
    const group = operations.filter((o) => o.tag === tag);
    if (group.length === 0) continue;
    const description = doc.tags?.find((t) => t.name === tag)?.description;
    lines.push(`## ${tag}${description ? ` (${description})` : ''}`, '');
    for (const { method, path, operation } of group) lines.push(...renderOperation(method, path, operation, doc));
  }
  return lines.join('\n');
}
