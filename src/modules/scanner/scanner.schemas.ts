import { type Static, Type } from 'typebox';
import { errorResponses } from '../../http/error-body.schema.ts';

// Type arrays (not anyOf) for nullable fields and enums (not unions of consts): the same JSON
// Schema for validation and OpenAPI 3.1, and much faster for the response serializer.
const NullableString = (description: string) => Type.Unsafe<string | null>({ type: ['string', 'null'], description });
const NullableNumber = (description?: string) =>
  Type.Unsafe<number | null>({ type: ['number', 'null'], ...(description ? { description } : {}) });
const OneOf = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

export const MAX_QUERY_LENGTH = 200;

export const ScannerQuery = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: 'Token del escáner de la empresa' }),
  query: Type.String({ minLength: 1, maxLength: MAX_QUERY_LENGTH, description: 'Código de barras o nombre del producto' }),
  companyId: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Empresa; si se indica, debe ser la del token (si no, 401)' }),
  ),
});
export type ScannerQuery = Static<typeof ScannerQuery>;

export const ScannerProduct = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Type.String(),
    BC: NullableString('Código de barras'),
    base_price: Type.Number({ description: 'Precio final en pesos' }),
    photo: NullableString('URL de la foto'),
    mark: NullableString('Marca'),
    category_id: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
    enable: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type ScannerProduct = Static<typeof ScannerProduct>;

export const ScaleLabelBody = Type.Object(
  {
    code: Type.String({ description: 'El código leído' }),
    plu: Type.String({ description: 'PLU impreso por la balanza (con sus ceros)' }),
    value: OneOf(['price', 'weight'] as const, 'price: la etiqueta trae el precio; weight: el peso'),
    price: NullableNumber('Precio impreso en la etiqueta (etiquetas de precio)'),
    weight: NullableNumber('Peso en kg (etiquetas de peso)'),
    amount: Type.Number({ description: 'Importe de la etiqueta: el precio impreso, o precio por kg × peso' }),
  },
  { additionalProperties: false, description: 'Lo que trae una etiqueta de balanza (prefijos 20–29)' },
);
export type ScaleLabelBody = Static<typeof ScaleLabelBody>;

export const ScannerResult = Type.Object(
  {
    product: ScannerProduct,
    matchType: OneOf(['barcode', 'name'] as const, 'Cómo se encontró: por código o por nombre'),
    alternatives: Type.Array(ScannerProduct, { maxItems: 5, description: 'Otros productos parecidos (búsqueda por nombre)' }),
    label: Type.Optional(ScaleLabelBody),
  },
  { additionalProperties: false },
);
export type ScannerResult = Static<typeof ScannerResult>;

export const scannerResponses = {
  200: { ...ScannerResult, description: 'Producto encontrado' },
  ...errorResponses({
    400: 'Falta un parámetro obligatorio (token o query) o tiene un formato inválido',
    401: 'Token inválido, o companyId distinto de la empresa del token',
    404: 'Ningún producto habilitado coincide (code product_not_found)',
    429: 'Demasiadas consultas con este token desde esta dirección; ver Retry-After',
    500: 'Error interno',
  }),
};
