import { Type } from 'typebox';
import { MONEY_DECIMALS, MONEY_MAX, PRECISION, QUANTITY_DECIMALS } from '../../lib/precision.ts';
import { importReportFields } from '../../http/spreadsheet-body.ts';

const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
const Money = Type.Number({ minimum: 0, maximum: MONEY_MAX, [PRECISION]: MONEY_DECIMALS });
const Quantity = Type.Number({ minimum: 0, maximum: 99_999_999_999.999, [PRECISION]: QUANTITY_DECIMALS });
const Nullable = <T extends ReturnType<typeof Type.String> | typeof Money | typeof Quantity | typeof Id>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const IvaRateSchema = Type.Union(
  [
    Type.Literal('21'),
    Type.Literal('10.5'),
    Type.Literal('27'),
    Type.Literal('5'),
    Type.Literal('2.5'),
    Type.Literal('0'),
    Type.Literal('exento'),
  ],
  { description: 'IVA rate in percent as ARCA names it; "exento" is invoiced without IVA' },
);
export const UnitSchema = Type.Union([Type.Literal('unit'), Type.Literal('kg')], {
  description: '"unit": sold by the piece; "kg": weighed (scale labels)',
});

export const Product = Type.Object(
  {
    id: Type.Integer(),
    company_id: Type.Integer(),
    sku: Type.Union([Type.String(), Type.Null()]),
    barcode: Type.Union([Type.String(), Type.Null()], { description: 'EAN-13 (UPC-A is stored as EAN-13) or EAN-8' }),
    BC: Type.Union([Type.String(), Type.Null()], { description: "The same barcode, under the contract's name" }),
    name: Type.String(),
    description: Type.String(),
    base_price: Type.Number(),
    cost: Type.Union([Type.Number(), Type.Null()]),
    iva_rate: IvaRateSchema,
    unit: UnitSchema,
    stock: Type.Number({ description: 'Total stock over every deposit' }),
    min_stock: Type.Union([Type.Number(), Type.Null()]),
    category_id: Type.Union([Type.Integer(), Type.Null()]),
    mark: Type.Union([Type.String(), Type.Null()]),
    enable: Type.Boolean(),
    photo: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Product' },
);

const productFields = {
  sku: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
  barcode: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 20 }))),
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  base_price: Money,
  cost: Type.Optional(Nullable(Money)),
  iva_rate: Type.Optional(IvaRateSchema),
  unit: Type.Optional(UnitSchema),
  min_stock: Type.Optional(Nullable(Quantity)),
  category_id: Type.Optional(Nullable(Id)),
  mark: Type.Optional(Nullable(Type.String({ maxLength: 120 }))),
  enable: Type.Optional(Type.Boolean()),
  photo: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
};

export const ProductCreate = Type.Object(
  {
    ...productFields,
    stock: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 99_999_999_999.999,
        [PRECISION]: QUANTITY_DECIMALS,
        description: 'Opening stock, booked as an ADJUSTMENT in deposit_id (the default deposit when absent)',
      }),
    ),
    deposit_id: Type.Optional({ ...Id, description: 'The deposit that holds the opening stock (default deposit when absent)' }),
  },
  { additionalProperties: false },
);

export const ProductPatch = Type.Object(
  {
    ...productFields,
    name: Type.Optional(productFields.name),
    base_price: Type.Optional(Money),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ProductListQuery = Type.Object(
  {
    q: Type.Optional(Type.String({ maxLength: 200 })),
    category_id: Type.Optional(Id),
    mark: Type.Optional(Type.String({ maxLength: 120 })),
    enabled: Type.Optional(Type.Boolean()),
    low_stock: Type.Optional(Type.Boolean()),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 40 })),
  },
  { additionalProperties: false },
);

export const PageMeta = Type.Object({ next_cursor: Type.Union([Type.String(), Type.Null()]) });

export const ProductList = Type.Object({ products: Type.Array(Product), meta: PageMeta });
export const ProductResponse = Type.Object({ product: Product });

export const IdParams = Type.Object({ id: Id });

export const Category = Type.Object(
  { id: Type.Integer(), name: Type.String(), products: Type.Integer({ description: 'Products in the category' }) },
  { $id: 'Category' },
);
export const Deposit = Type.Object({ id: Type.Integer(), name: Type.String(), is_default: Type.Boolean() }, { $id: 'Deposit' });
export const Box = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    deposit_id: Type.Integer({ description: 'The deposit the box sells from (the default deposit when none was chosen)' }),
  },
  { $id: 'Box' },
);

export const NameBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 120 }) }, { additionalProperties: false });
export const BoxCreate = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 120 }), deposit_id: Type.Optional(Id) },
  { additionalProperties: false },
);
export const BoxPatch = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })), deposit_id: Type.Optional(Id) },
  { additionalProperties: false, minProperties: 1 },
);

export const StockLevel = Type.Object(
  {
    product_id: Type.Integer(),
    deposit_id: Type.Integer(),
    name: Type.String(),
    sku: Type.Union([Type.String(), Type.Null()]),
    stock: Type.Number({ description: 'Quantity in this deposit' }),
    min_stock: Type.Union([Type.Number(), Type.Null()]),
  },
  { $id: 'StockLevel' },
);
export const StockQuery = Type.Object(
  {
    deposit_id: Type.Optional(Id),
    q: Type.Optional(Type.String({ maxLength: 200 })),
    low_stock: Type.Optional(Type.Boolean()),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 60 })),
  },
  { additionalProperties: false },
);

export const Movement = Type.Object(
  {
    id: Type.Integer(),
    company_id: Type.Integer(),
    type: Type.Union([Type.Literal('IN'), Type.Literal('OUT'), Type.Literal('TRANSFER'), Type.Literal('ADJUSTMENT')]),
    deposit_id: Type.Integer(),
    to_deposit_id: Type.Optional(Type.Integer()),
    product_id: Type.Integer(),
    amount: Type.Number(),
    reason: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Movement' },
);
export const MovementCreate = Type.Object(
  {
    type: Type.Union([Type.Literal('IN'), Type.Literal('OUT'), Type.Literal('TRANSFER'), Type.Literal('ADJUSTMENT')]),
    product_id: Id,
    deposit_id: Id,
    amount: Type.Number({
      minimum: 0,
      maximum: 99_999_999_999.999,
      [PRECISION]: QUANTITY_DECIMALS,
      description: 'IN, OUT, TRANSFER: the quantity moved (> 0); ADJUSTMENT: the counted quantity the deposit has now',
    }),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
    to_deposit_id: Type.Optional(Id),
    allow_negative: Type.Optional(
      Type.Boolean({
        description:
          'OUT / TRANSFER: record it even when it takes more than the deposit holds (otherwise 409 insufficient_stock)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const PriceChange = Type.Object(
  {
    percent: Type.Number({ minimum: -99, maximum: 1000, description: 'e.g. 12.5 raises 12,5 %; -10 lowers 10 %' }),
    filter: Type.Optional(
      Type.Object(
        {
          category_id: Type.Optional(Id),
          mark: Type.Optional(Type.String({ maxLength: 120 })),
          q: Type.Optional(Type.String({ maxLength: 200 })),
        },
        { additionalProperties: false },
      ),
    ),
    rounding: Type.Optional(
      Type.Union([Type.Literal('none'), Type.Literal('1'), Type.Literal('10'), Type.Literal('50'), Type.Literal('100')]),
    ),
    dry_run: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export const PriceChangeResult = Type.Object({
  matched: Type.Integer(),
  changed: Type.Integer(),
  applied: Type.Boolean(),
  sample: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), before: Type.Number(), after: Type.Number() })),
});

export const ImportResult = Type.Object(
  {
    ...importReportFields,
    deposit_id: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The deposit whose stock the `stock` column sets (null when the file has no stock column)',
    }),
    stock_adjusted: Type.Integer({
      description: 'Products whose stock in that deposit the file changes: one ADJUSTMENT movement each',
    }),
  },
  { $id: 'ImportResult' },
);
