import { Type } from 'typebox';
import { MONEY_DECIMALS, PRECISION } from '../../lib/precision.ts';

// Invoicing's wire schemas (merchant API, /api/v1). Named ones ($id) become OpenAPI components.

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });
const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'yyyy-mm-dd' });

export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });

const Message = Type.Object({
  code: Type.Integer({ description: "ARCA's code" }),
  message: Type.String({ description: "ARCA's text" }),
  hint: Type.String({ description: 'What it means and what to fix, in Spanish' }),
});
const PlainMessage = Type.Object({ code: Type.Integer(), message: Type.String() });

export const BuyerInput = Type.Object(
  {
    doc_type: Type.Optional(Type.Union([Type.Literal('cuit'), Type.Literal('cuil'), Type.Literal('dni')])),
    doc_number: Type.Optional(Type.String({ maxLength: 20 })),
    iva_condition: Type.Optional(
      Type.Integer({
        description:
          "ARCA's receiver IVA condition (CondicionIVAReceptorId): 1 Responsable Inscripto, 4 Exento, 5 Consumidor Final (default), 6 Monotributo, 7 No Categorizado, 8 Proveedor del Exterior, 9 Cliente del Exterior, 10 Liberado Ley 19.640, 13 Monotributista Social, 15 IVA No Alcanzado, 16 Monotributo Trabajador Independiente Promovido",
      }),
    ),
    name: Type.Optional(Type.String({ maxLength: 200 })),
  },
  {
    additionalProperties: false,
    $id: 'InvoiceBuyer',
    description: 'Who the receipt is for; none: a final consumer without identification',
  },
);

export const IssueBody = Type.Object(
  {
    buyer: Type.Optional(BuyerInput),
    customer_id: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2_147_483_647,
        description:
          'A customer of the company (instead of buyer): its CUIT/CUIL/DNI, IVA condition, name and address fill the receipt; class A when it has a CUIT and condition 1, 6, 13 or 16',
      }),
    ),
    point_of_sale: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 99998, description: "One of the company's; default: its default" }),
    ),
  },
  { additionalProperties: false },
);

export const Invoice = Type.Object(
  {
    id: Type.Integer(),
    company_id: Type.Integer(),
    sale_id: Type.Integer(),
    type: Type.String({ description: 'A, B, C; NC A, NC B, NC C for credit notes' }),
    point_of_sale: Type.Integer(),
    number: Type.Integer(),
    cae: Type.String(),
    cae_expiration: DateTime,
    total: Type.Number(),
    issued_at: DateTime,
    source: Type.Union([Type.Literal('arca'), Type.Literal('integration')], {
      description: 'arca: authorised here; integration: received already issued',
    }),
    kind: Type.Union([Type.Literal('invoice'), Type.Literal('credit_note')]),
    receipt: Type.String({ description: 'As printed: "B 0001-00000042"' }),
    receipt_code: Nullable(Type.Integer({ description: "ARCA's CbteTipo" })),
    issue_date: Nullable(Day),
    environment: Nullable(Type.String()),
    issuer_cuit: Nullable(Type.String()),
    buyer: Nullable(
      Type.Object({
        doc_type: Type.Integer(),
        doc_type_name: Type.String(),
        doc_number: Nullable(Type.String()),
        iva_condition: Nullable(Type.Integer()),
        iva_condition_name: Nullable(Type.String()),
        name: Nullable(Type.String()),
        address: Nullable(Type.String({ description: "The customer's address as printed" })),
      }),
    ),
    customer_id: Nullable(Type.Integer({ description: 'The customer the receipt was issued to' })),
    net: Nullable(Type.Number()),
    iva: Nullable(Type.Number()),
    exempt: Nullable(Type.Number()),
    iva_lines: Type.Array(Type.Object({ id: Type.Integer(), rate: Type.String(), base: Type.Number(), amount: Type.Number() })),
    associated_invoice_id: Nullable(Type.Integer({ description: 'The invoice a credit note cancels' })),
    observations: Type.Array(PlainMessage),
    emission: Type.Optional(
      Type.Union([Type.Literal('cae'), Type.Literal('caea')], {
        description:
          'cae: authorised by ARCA on request; caea: issued in contingency under the fortnight CAEA (cae holds the CAEA)',
      }),
    ),
    caea: Type.Optional(
      Nullable(
        Type.Object({
          code: Type.String({ description: 'The 14-digit CAEA' }),
          valid_to: Day,
          generated_at: Nullable(Type.String({ description: 'CbteFchHsGen, yyyymmddhhmiss (Argentina)' })),
          inform_by: Nullable(Day),
          inform_status: Nullable(Type.Union([Type.Literal('pending'), Type.Literal('informed'), Type.Literal('rejected')])),
          informed_at: Nullable(DateTime),
        }),
      ),
    ),
    qr_url: Nullable(Type.String({ description: 'The RG 4892 QR link' })),
    print_url: Type.String({ description: 'The printout (A4; ?formato=ticket for 80 mm)' }),
  },
  { $id: 'Invoice', description: 'A fiscal receipt' },
);

export const InvoiceResponse = Type.Object({ invoice: Invoice });

export const Attempt = Type.Object(
  {
    id: Type.Integer(),
    sale_id: Type.Integer(),
    kind: Type.Union([Type.Literal('invoice'), Type.Literal('credit_note')]),
    receipt: Type.String(),
    point_of_sale: Type.Integer(),
    number: Type.Integer(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected')]),
    errors: Type.Array(Message),
    observations: Type.Array(Message),
    tries: Type.Integer(),
    last_error: Nullable(Type.String()),
    invoice_id: Nullable(Type.Integer()),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'InvoiceAttempt', description: 'One authorisation attempt: the number reserved, what ARCA answered' },
);

export const SaleInvoices = Type.Object({ invoices: Type.Array(Invoice), attempts: Type.Array(Attempt) });
export const InvoiceList = Type.Object({
  invoices: Type.Array(Invoice),
  meta: Type.Object({ next_cursor: Nullable(Type.String()) }),
});
export const ListQuery = Type.Object(
  {
    customer_id: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2_147_483_647,
        description: "The customer's receipts: issued to the customer, or of the customer's sales",
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 40 })),
  },
  { additionalProperties: false },
);

const IvaConditionSchema = Type.Union(
  [Type.Literal('responsable_inscripto'), Type.Literal('monotributo'), Type.Literal('exento')],
  { description: "The company's IVA condition" },
);

export const FiscalUpdateBody = Type.Object(
  {
    cuit: Type.Optional(Type.String({ maxLength: 13 })),
    iva_condition: Type.Optional(IvaConditionSchema),
    legal_name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    address: Type.Optional(Nullable(Type.String({ maxLength: 300 }))),
    gross_income: Type.Optional(Nullable(Type.String({ maxLength: 40, description: 'Ingresos Brutos number' }))),
    activity_start: Type.Optional(Nullable(Type.String({ maxLength: 10, description: 'yyyy-mm-dd' }))),
    auth_mode: Type.Optional(Type.Union([Type.Literal('delegation'), Type.Literal('own_certificate')])),
    environment: Type.Optional(Type.Union([Type.Literal('homologacion'), Type.Literal('produccion')])),
    points_of_sale: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 99998 }), { maxItems: 50 })),
    default_point_of_sale: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 99998 }))),
    caea_enabled: Type.Optional(Type.Boolean({ description: 'Issue under CAEA when ARCA cannot give a CAE' })),
    caea_point_of_sale: Type.Optional(
      Nullable(Type.Integer({ minimum: 1, maximum: 99998, description: 'The point of sale of type CAEA (not a CAE one)' })),
    ),
    caea_register_point_of_sale: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 1,
          maximum: 99998,
          description:
            "A second point of sale of type CAEA for the register boxes' offline blocks, so that the numbers a box holds never stand between the receipts the server issues in contingency. Null: the blocks come from caea_point_of_sale",
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

const Check = Type.Object({
  ok: Type.Boolean(),
  steps: Type.Array(Type.Object({ step: Type.String(), ok: Type.Boolean(), message: Type.String() })),
});

export const FiscalSetup = Type.Object(
  {
    company_name: Type.String(),
    cuit: Nullable(Type.String()),
    iva_condition: Nullable(IvaConditionSchema),
    legal_name: Nullable(Type.String()),
    address: Nullable(Type.String()),
    gross_income: Nullable(Type.String()),
    activity_start: Nullable(Type.String()),
    auth_mode: Type.Union([Type.Literal('delegation'), Type.Literal('own_certificate')]),
    environment: Type.Union([Type.Literal('homologacion'), Type.Literal('produccion')]),
    points_of_sale: Type.Array(
      Type.Object({ number: Type.Integer(), emission_type: Nullable(Type.String()), blocked: Type.Boolean() }),
    ),
    default_point_of_sale: Nullable(Type.Integer()),
    caea_enabled: Type.Boolean(),
    caea_point_of_sale: Nullable(Type.Integer()),
    caea_register_point_of_sale: Nullable(Type.Integer()),
    certificate: Nullable(
      Type.Object({
        subject: Type.String(),
        cuit: Nullable(Type.String()),
        not_before: DateTime,
        not_after: DateTime,
        fingerprint: Type.String(),
      }),
    ),
    pending_csr: Nullable(Type.String({ description: 'The CSR generated here, waiting for its certificate' })),
    service_cuit: Nullable(Type.String({ description: 'The CUIT to delegate to (delegation mode)' })),
    last_check: Nullable(Check),
    last_check_at: Nullable(DateTime),
    ready: Type.Boolean({ description: 'True when the company can invoice' }),
    missing: Type.Array(Type.String(), { description: 'What is missing, in Spanish' }),
  },
  { $id: 'FiscalSetup', description: "The company's fiscal setup (never the private key)" },
);

export const CertificateBody = Type.Object(
  {
    certificate: Type.String({ maxLength: 20000, description: 'PEM certificate ARCA issued' }),
    private_key: Type.Optional(
      Type.String({ maxLength: 20000, description: 'PEM private key; omit it when the CSR was generated here' }),
    ),
  },
  { additionalProperties: false },
);

export const CsrBody = Type.Object(
  {
    organization: Type.Optional(Type.String({ maxLength: 100 })),
    common_name: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

export { Check as FiscalCheck };

const CaeaOfFortnight = Type.Object({
  period: Type.Integer({ description: 'YYYYMM' }),
  fortnight: Type.Integer({ description: '1: days 1-15; 2: 16 to the end' }),
  caea: Nullable(Type.String()),
  valid_from: Nullable(Day),
  valid_to: Nullable(Day),
  inform_by: Nullable(Day),
  request_from: Day,
});

export const CaeaStatus = Type.Object(
  {
    enabled: Type.Boolean(),
    point_of_sale: Nullable(Type.Integer()),
    register_point_of_sale: Nullable(
      Type.Integer({ description: "The register boxes' own CAEA point of sale; null: their blocks come from point_of_sale" }),
    ),
    in_contingency: Type.Boolean({ description: 'Receipts go straight to CAEA now (ARCA failed moments ago)' }),
    current: CaeaOfFortnight,
    next: CaeaOfFortnight,
    alerts: Type.Array(
      Type.String({
        description: 'missing_current, missing_next, inform_overdue, inform_rejected, inform_stale, contingency_duplicate',
      }),
    ),
    duplicates: Type.Array(
      Type.Object({ sale_id: Type.Integer(), cae_invoice_id: Type.Integer(), caea_invoice_id: Type.Integer() }),
      { description: 'Sales with a CAE granted after all and the CAEA receipt issued meanwhile: cancel one with a credit note' },
    ),
    to_inform: Type.Array(
      Type.Object({
        invoice_id: Type.Integer(),
        receipt: Type.String(),
        issue_date: Nullable(Day),
        total: Type.Number(),
        caea: Type.String(),
        inform_by: Nullable(Day),
        status: Nullable(Type.String()),
        tries: Type.Integer(),
        last_error: Nullable(Type.String()),
        stale: Type.Boolean({
          description: 'Issued with another CUIT or environment than the company has now: not informed with this setup',
        }),
      }),
    ),
  },
  { $id: 'CaeaStatus', description: "The company's CAEA: settings, this and the next fortnight, receipts still to inform" },
);

export const CaeaInformResult = Type.Object({ informed: Type.Integer(), failed: Type.Integer(), status: CaeaStatus });

export const CaeaBlocksBody = Type.Object(
  {
    box_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
    size: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'Numbers per receipt type (default 50)' })),
  },
  { additionalProperties: false },
);

const CaeaBlock = Type.Object({
  id: Type.Integer(),
  box_id: Type.Integer(),
  receipt_code: Type.Integer(),
  point_of_sale: Type.Integer(),
  first: Type.Integer(),
  last: Type.Integer(),
  status: Type.Union([Type.Literal('open'), Type.Literal('returned')]),
  used: Type.Array(Type.Integer(), { description: 'Numbers already recorded here' }),
});

export const CaeaBlocksResponse = Type.Object(
  {
    caea: Type.Object({ code: Type.String(), valid_from: Day, valid_to: Day }),
    issuer: Type.Object({
      cuit: Type.String(),
      iva_condition: IvaConditionSchema,
      legal_name: Type.String(),
      address: Nullable(Type.String()),
      gross_income: Nullable(Type.String()),
      activity_start: Nullable(Type.String()),
      environment: Type.String(),
    }),
    blocks: Type.Array(CaeaBlock),
  },
  { $id: 'CaeaBlocks', description: "A register box's reserved CAEA numbers, and what it needs to print offline" },
);

export const CaeaBlockReturned = Type.Object({ block: CaeaBlock });

export const OfflineInvoiceBody = Type.Object(
  {
    block_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
    number: Type.Integer({ minimum: 1, maximum: 99_999_999 }),
    generated_at: Type.String({ pattern: '^\\d{14}$', description: 'When the box printed it, yyyymmddhhmiss (Argentina)' }),
    total: Type.Number({ [PRECISION]: MONEY_DECIMALS, description: 'The printed total (checked against the sale)' }),
    buyer: Type.Optional(BuyerInput),
    customer_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
  },
  { additionalProperties: false },
);
