import type pg from 'pg';

const KINDS = [
  'Yerba mate suave',
  'Yerba mate con palo',
  'Leche entera',
  'Leche descremada',
  'Aceite de girasol',
  'Arroz largo fino',
  'Fideos tallarines',
  'Fideos mostachol',
  'Azúcar común',
  'Harina 000',
  'Galletitas de agua',
  'Dulce de leche',
  'Café molido',
  'Té en saquitos',
  'Gaseosa cola',
  'Agua mineral sin gas',
  'Cerveza rubia',
  'Vino tinto malbec',
  'Queso cremoso',
  'Jamón cocido',
  'Manteca',
  'Yogur bebible frutilla',
  'Mermelada de durazno',
  'Atún en aceite',
  'Puré de tomate',
  'Detergente limón',
  'Lavandina',
  'Jabón en polvo',
  'Shampoo',
  'Papel higiénico',
  'Pañales',
  'Galletitas de chocolate',
  'Alfajor triple',
  'Salchichas',
  'Mayonesa',
  'Polenta',
  'Lentejas',
  'Arvejas',
  'Choclo amarillo',
  'Caldo de verdura',
];
const BRANDS = [
  'Don Aurelio',
  'Campo Alto',
  'La Pampeana',
  'Sol de Mayo',
  'Río Dorado',
  'Los Andes',
  'Santa Clara',
  'El Ombú',
  'Tres Arroyos',
  'La Quinta',
  'Buen Día',
  'Del Valle',
  'San Ignacio',
  'Cumbres',
  'La Estancia',
  'Patagonia Sur',
  'El Molino',
  'Las Marías',
  'Don Pedro',
  'Mar Azul',
  'Tierra Fértil',
  'La Gauchita',
  'El Trébol',
  'Puerto Nuevo',
  'Villa Real',
];
const SIZES = ['500 g', '1 kg', '1 L', '1,5 L', '2,25 L', '250 g', 'x 12 u', '750 ml', '200 g', '3 kg'];

const literal = (values: string[]) => `ARRAY[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(',')}]`;

/**
 * Loads `perCompany` products into every company in one INSERT … SELECT generate_series:
 * kind × brand × size names (unique per company), EAN-13 barcodes with the 779 prefix and a
 * valid check digit, every 50th product disabled. Secondary indexes are dropped during the load
 * and rebuilt after it (much faster than maintaining them row by row), then the table is analysed.
 */
export async function loadProducts(client: pg.Client, perCompany: number): Promise<void> {
  const { rows: indexes } = await client.query<{ name: string; def: string }>(
    `SELECT indexname AS name, indexdef AS def FROM pg_indexes
      WHERE schemaname = 'public' AND tablename = 'products' AND indexname <> 'products_pkey'`,
  );
  for (const { name } of indexes) await client.query(`DROP INDEX "${name}"`);
  await client.query(`CREATE FUNCTION pg_temp.ean13(body text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT body || ((10 - (SELECT sum(substr(body, i, 1)::int * CASE WHEN i % 2 = 0 THEN 3 ELSE 1 END)
                           FROM generate_series(1, 12) i) % 10) % 10)::text $$`);
  await client.query(
    `INSERT INTO products (company_id, id, sku, bc, name, description, base_price, stock, mark, enable)
     SELECT c.id, g,
            'SKU-' || g,
            pg_temp.ean13('779' || lpad(c.id::text, 4, '0') || lpad(g::text, 5, '0')),
            k.kinds[1 + (g + c.id) % ${KINDS.length}] || ' ' || k.brands[1 + (g / ${KINDS.length}) % ${BRANDS.length}]
              || ' ' || k.sizes[1 + (g / ${KINDS.length * BRANDS.length}) % ${SIZES.length}],
            '',
            (100 + (g * 37 + c.id * 11) % 90000) / 10.0,
            (g % 40),
            k.brands[1 + (g / ${KINDS.length}) % ${BRANDS.length}],
            g % 50 <> 0
       FROM companies c
      CROSS JOIN generate_series(1, $1::int) g
      CROSS JOIN (SELECT ${literal(KINDS)} AS kinds, ${literal(BRANDS)} AS brands, ${literal(SIZES)} AS sizes) k`,
    [perCompany],
  );
  for (const { def } of indexes) await client.query(def);
  await client.query('ANALYZE products');
}

/** A plausible typing mistake: b↔v, s↔z or a dropped letter, accents and case lost. */
export function misspell(name: string, seed: number): string {
  const plain = name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\s+(x\s+)?\d[\d,]*\s*\S*$/, ''); // shoppers rarely type the size
  const swaps: [RegExp, string][] = [
    [/b/, 'v'],
    [/v/, 'b'],
    [/s/, 'z'],
    [/ll/, 'y'],
  ];
  const [pattern, replacement] = swaps[seed % swaps.length]!;
  if (pattern.test(plain)) return plain.replace(pattern, replacement);
  // A letter, never a space: dropping the space between two words is joining them, another typo
  // ("panalestres arroyos" for "pañales tres arroyos"), which this function does not claim to make.
  const letters = [...plain.matchAll(/[a-z0-9]/g)].map((m) => m.index).filter((i) => i > 0);
  if (letters.length === 0) return plain;
  const at = letters[seed % letters.length]!;
  return plain.slice(0, at) + plain.slice(at + 1);
}
