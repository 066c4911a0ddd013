import { Type } from 'typebox';

const Money = Type.Number({ description: 'Pesos, two decimals' });
const Day = (description: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const ReportQuery = Type.Object({
  from: Type.Optional(Day('First local day, yyyy-mm-dd in the company time zone (default: the first of this month)')),
  to: Type.Optional(Day('Last local day, included (default: today)')),
  deposit_id: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Only register sales from this deposit (stock reports: this deposit)' }),
  ),
  box_id: Type.Optional(Type.Integer({ minimum: 1, description: 'Only sales of this box (not used by stock reports)' })),
});

const Cell = Type.Union([Type.String(), Type.Number(), Type.Null()]);

export const Report = Type.Object(
  {
    report: Type.String(),
    title: Type.String({ description: 'Spanish title, as the screen shows it' }),
    from: Type.String(),
    to: Type.String(),
    time_zone: Type.String(),
    deposit_id: Nullable(Type.Integer()),
    box_id: Nullable(Type.Integer()),
    columns: Type.Array(
      Type.Object({
        key: Type.String(),
        label: Type.String({ description: 'Spanish header (the CSV uses the same)' }),
        type: Type.Union([
          Type.Literal('text'),
          Type.Literal('date'),
          Type.Literal('integer'),
          Type.Literal('quantity'),
          Type.Literal('money'),
          Type.Literal('percent'),
        ]),
      }),
    ),
    rows: Type.Array(Type.Record(Type.String(), Cell), { description: 'One object per row, keyed by column key' }),
    totals: Type.Record(Type.String(), Cell, { description: 'Totals of the columns that add up, and report extras' }),
  },
  {
    $id: 'Report',
    description:
      'A report as a table. Sales count as the day summary counts them: by creation time in the company time zone, every status but cancelled.',
  },
);

const TopProduct = Type.Object({ product_id: Type.Integer(), name: Type.String(), quantity: Type.Number(), total: Money });

export const Home = Type.Object(
  {
    today: Type.Object({ date: Type.String(), tickets: Type.Integer(), total: Money, pending: Money, cancelled: Type.Integer() }),
    same_day_last_week: Type.Object({ date: Type.String(), tickets: Type.Integer(), total: Money }),
    month: Type.Object({ from: Type.String(), to: Type.String(), tickets: Type.Integer(), total: Money }),
    by_hour: Type.Array(Type.Object({ hour: Type.Integer(), tickets: Type.Integer(), total: Money })),
    by_method: Type.Array(Type.Object({ method: Type.String(), amount: Money, count: Type.Integer() })),
    top_today: Type.Array(TopProduct),
    top_month: Type.Array(TopProduct),
    below_minimum: Type.Object({
      count: Type.Integer(),
      products: Type.Array(
        Type.Object({
          id: Type.Integer(),
          name: Type.String(),
          unit: Type.String(),
          stock: Type.Number(),
          min_stock: Type.Number(),
        }),
      ),
    }),
    receipts: Type.Object({
      count: Type.Integer(),
      items: Type.Array(
        Type.Object({
          attempt_id: Type.Integer(),
          sale_id: Type.Integer(),
          kind: Type.Union([Type.Literal('invoice'), Type.Literal('credit_note')]),
          letter: Type.String(),
          status: Type.Union([Type.Literal('pending'), Type.Literal('rejected')]),
          created_at: Type.String({ format: 'date-time' }),
          reason: Nullable(Type.String()),
        }),
      ),
    }),
    open_shifts: Type.Array(
      Type.Object({
        id: Type.Integer(),
        box_id: Type.Integer(),
        box_name: Type.String(),
        opened_at: Type.String({ format: 'date-time' }),
        opened_by: Type.String(),
        tickets: Type.Integer(),
        total: Money,
      }),
    ),
  },
  {
    $id: 'Home',
    description: "Inicio: today's numbers (equal to GET /api/v1/sales/summary), the month so far, and what needs attention",
  },
);

export const LibroIvaQuery = Type.Object({
  period: Type.String({ pattern: '^\\d{6}$', description: 'YYYYMM' }),
  file: Type.Optional(
    Type.Union([Type.Literal('cbte'), Type.Literal('alicuotas')], {
      description: 'One of the two import files (ISO-8859-1 text); without it, the book as JSON',
    }),
  ),
});

const BookAmounts = { net: Money, iva: Money, exempt: Money, untaxed: Money, total: Money };

export const LibroIva = Type.Object(
  {
    period: Type.String(),
    from: Type.String(),
    to: Type.String(),
    iva_condition: Type.String(),
    environment: Type.String(),
    receipts: Type.Array(
      Type.Object({
        id: Type.Integer(),
        source: Type.Union([Type.Literal('arca'), Type.Literal('integration')]),
        date: Type.String(),
        code: Type.Integer({ description: 'ARCA receipt type (CbteTipo)' }),
        type_name: Type.String(),
        point_of_sale: Type.Integer(),
        number: Type.Integer(),
        doc_type: Type.Integer(),
        doc_number: Nullable(Type.String()),
        name: Type.String(),
        ...BookAmounts,
      }),
    ),
    by_type: Type.Array(Type.Object({ code: Type.Integer(), type_name: Type.String(), count: Type.Integer(), ...BookAmounts })),
    by_rate: Type.Array(
      Type.Object({
        id: Type.Integer({ description: 'ARCA IVA rate id (AlicIva Id)' }),
        rate: Type.String(),
        base: Money,
        iva: Money,
        credit_base: Money,
        credit_iva: Money,
      }),
    ),
    skipped: Type.Array(Type.Object({ id: Type.Integer(), receipt: Type.String(), reason: Type.String() }), {
      description: 'Received receipts that could not be written (unknown type, or lines that do not add up)',
    }),
  },
  {
    $id: 'LibroIva',
    description: 'Libro IVA Digital — ventas of a month: receipts with CAE and their totals per type and per rate',
  },
);
