import { Type } from 'typebox';
import { MONEY_DECIMALS, MONEY_MAX, PRECISION } from '../../lib/precision.ts';
import { importReportFields } from '../../http/spreadsheet-body.ts';

const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
const NullableText = (maxLength: number, description?: string) =>
  Type.Union([Type.String({ maxLength }), Type.Null()], description ? { description } : {});

const DocumentTypeSchema = Type.Union(
  [Type.Literal('cuit'), Type.Literal('cuil'), Type.Literal('dni'), Type.Literal('pasaporte')],
  { description: 'cuit, cuil, dni or pasaporte; null together with document' },
);
const IVA_CONDITION_DESCRIPTION =
  "ARCA's receiver IVA condition (CondicionIVAReceptorId): 1 Responsable Inscripto, 4 Exento, 5 Consumidor Final, 6 Responsable Monotributo, 7 Sujeto No Categorizado, 8 Proveedor del Exterior, 9 Cliente del Exterior, 10 IVA Liberado Ley 19.640, 13 Monotributista Social, 15 IVA No Alcanzado, 16 Monotributo Trabajador Independiente Promovido. 1, 4, 6, 13 and 16 need a CUIT.";

const Address = Type.Object(
  {
    street: Type.Union([Type.String(), Type.Null()]),
    city: Type.Union([Type.String(), Type.Null()]),
    province: Type.Union([Type.String(), Type.Null()]),
    postal_code: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'CustomerAddress' },
);

export const Customer = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    document_type: Type.Union([DocumentTypeSchema, Type.Null()]),
    document: Type.Union([Type.String(), Type.Null()], {
      description: 'The bare number: digits (CUIT, CUIL, DNI), letters and digits in upper case (passport)',
    }),
    iva_condition: Type.Union([Type.Integer(), Type.Null()], { description: IVA_CONDITION_DESCRIPTION }),
    address: Address,
    email: Type.Union([Type.String(), Type.Null()]),
    phone: Type.Union([Type.String(), Type.Null()], { description: 'E.164, the form WhatsApp takes: +5491143215678' }),
    notes: Type.Union([Type.String(), Type.Null()]),
    account_enabled: Type.Boolean({ description: 'The shop sells to this customer on account (cuenta corriente)' }),
    credit_limit: Type.Union([Type.Number(), Type.Null()], { description: 'Most the customer may owe; null: no limit' }),
    enabled: Type.Boolean({ description: 'Disabled customers are kept (never deleted) and left out of pickers' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Customer' },
);

const AddressInput = Type.Object(
  {
    street: Type.Optional(NullableText(200)),
    city: Type.Optional(NullableText(120)),
    province: Type.Optional(NullableText(120)),
    postal_code: Type.Optional(NullableText(20)),
  },
  { additionalProperties: false },
);

const customerFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  document_type: Type.Optional(Type.Union([DocumentTypeSchema, Type.Null()])),
  document: Type.Optional(
    NullableText(40, 'CUIT/CUIL with or without dashes ("20-12345678-6"), DNI with or without dots, passport'),
  ),
  iva_condition: Type.Optional(Type.Integer({ minimum: 1, maximum: 99, description: IVA_CONDITION_DESCRIPTION })),
  address: Type.Optional(AddressInput),
  email: Type.Optional(NullableText(254)),
  phone: Type.Optional(
    NullableText(40, 'As people write it ("011 15 4321-5678", "11 4321 5678", "+54 9 11 4321-5678"); stored in E.164'),
  ),
  notes: Type.Optional(NullableText(2000)),
  account_enabled: Type.Optional(Type.Boolean()),
  // Null first: with coerceTypes a number branch would turn null into 0.
  credit_limit: Type.Optional(
    Type.Union([Type.Null(), Type.Number({ minimum: 0, maximum: MONEY_MAX, [PRECISION]: MONEY_DECIMALS })]),
  ),
  enabled: Type.Optional(Type.Boolean()),
};

export const CustomerCreate = Type.Object(customerFields, {
  additionalProperties: false,
  description: 'A new customer: name required, everything else optional (IVA condition 5, Consumidor Final, when absent)',
});

export const CustomerPatch = Type.Object(
  { ...customerFields, name: Type.Optional(customerFields.name) },
  { additionalProperties: false, minProperties: 1 },
);

export const CustomerListQuery = Type.Object(
  {
    q: Type.Optional(
      Type.String({ maxLength: 200, description: 'Words of the name (accents and case ignored), document, phone or email' }),
    ),
    enabled: Type.Optional(Type.Boolean()),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 400 })),
  },
  { additionalProperties: false },
);

export const CustomerList = Type.Object({
  customers: Type.Array(Customer, { description: 'By name (case ignored), then id' }),
  meta: Type.Object({ next_cursor: Type.Union([Type.String(), Type.Null()]) }),
});
export const CustomerResponse = Type.Object({ customer: Customer });
export const CustomerParams = Type.Object({ id: Id });

export const CustomerImportResult = Type.Object(importReportFields, { $id: 'CustomerImportResult' });
