import { type Static, Type } from 'typebox';
import { errorResponses } from '../../http/error-body.schema.ts';

const NullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

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
    category_id: Type.Union([Type.Integer(), Type.Null()]),
    enable: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type ScannerProduct = Static<typeof ScannerProduct>;

export const ScaleLabelBody = Type.Object(
  {
    code: Type.String({ description: 'El código leído' }),
    plu: Type.String({ description: 'PLU impreso por la balanza (con sus ceros)' }),
    value: Type.Union([Type.Literal('price'), Type.Literal('weight')]),
    price: Type.Union([Type.Number(), Type.Null()], { description: 'Precio impreso en la etiqueta (etiquetas de precio)' }),
    weight: Type.Union([Type.Number(), Type.Null()], { description: 'Peso en kg (etiquetas de peso)' }),
    amount: Type.Number({ description: 'Importe de la etiqueta: el precio impreso, o precio por kg × peso' }),
  },
  { additionalProperties: false, description: 'Lo que trae una etiqueta de balanza (prefijos 20–29)' },
);
export type ScaleLabelBody = Static<typeof ScaleLabelBody>;

export const ScannerResult = Type.Object(
  {
    product: ScannerProduct,
    matchType: Type.Union([Type.Literal('barcode'), Type.Literal('name')]),
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
