import { randomBytes } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { type Conn, selectRows } from '../../db/client.ts';
import { boxes, categories, companyFiscal, customers, deposits, fiscalPointsOfSale, products } from '../../db/schema/index.ts';
import type { Container } from '../../container.ts';
import { cliCtx } from '../../http/request-context.ts';
import { ean13 } from '../../lib/barcode.ts';
import { cuitCheckDigit } from '../../lib/cuit.ts';
import { lineTotalCents } from '../../lib/money.ts';
import { upsertProduct } from '../catalog/products.service.ts';
import { cancelSale, createSale, markSalePaid } from '../sales/sales.service.ts';
import { applyMovement } from '../stock/stock.ledger.ts';
import { type CatalogueLine, DEMO_CATEGORIES } from './catalogue.ts';

export interface DemoLogin {
  role: 'superadmin' | 'admin' | 'cashier';
  email: string;
  /** Null when the user already existed (its password is not known). */
  password: string | null;
}

export interface DemoResult {
  companyId: number;
  companyName: string;
  integrationKey: string;
  scannerToken: string;
  products: number;
  logins: DemoLogin[];
  /** The invoice issued for the first paid sale, through ARCA (the built-in fake); null when ARCA is not the fake. */
  invoiceId: number | null;
  banner: string;
}

export const DEMO_COMPANY_NAME = 'Almacén Don Tito';
const DEMO_CUIT = '30712345671';

// Serialises seeders across processes (any constant shared by the service; see lifecycle.ts).
const DEMO_LOCK_KEY = 727_003;

/**
 * Seeds the demo when the database has no company at all (first start of the embedded demo). The
 * check and the seed run in one transaction under an advisory lock: processes starting at once on
 * an empty database seed it once.
 */
export async function seedDemoIfEmpty(container: Container): Promise<DemoResult | null> {
  const [row] = await container.db.query<{ n: number }>('SELECT count(*)::int AS n FROM companies');
  if (Number(row?.n ?? 0) > 0) return null;
  return seedDemo(container, { onlyIfEmpty: true });
}

/**
 * Creates a demo company with a realistic catalogue, stock in two deposits and sales, in one
 * transaction; then, once that is committed, invoices its first paid sale the way any sale is
 * invoiced (through ARCA, which in the demo is the built-in fake: ARCA_DEMO_FAKE).
 */
export async function seedDemo(container: Container, options: { onlyIfEmpty: true }): Promise<DemoResult | null>;
export async function seedDemo(container: Container): Promise<DemoResult>;
export async function seedDemo(container: Container, options: { onlyIfEmpty?: boolean } = {}): Promise<DemoResult | null> {
  const rng = seededRandom(20261121);
  const now = container.clock.now();
  const result = await container.db.orm.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${DEMO_LOCK_KEY})`);
    if (options.onlyIfEmpty) {
      const [row] = await selectRows<{ n: number }>(tx, sql`SELECT count(*)::int AS n FROM companies`);
      if (Number(row?.n ?? 0) > 0) return null;
    }
    const name = await demoCompanyName(tx);
    const created = await container.companies.createCompany({ name, cuit: await demoCuit(tx) }, tx);
    const companyId = created.company.id;
    await tx.insert(deposits).values({ companyId, id: 2, name: 'Sucursal Centro' });
    await tx.insert(boxes).values({ companyId, id: 2, name: 'Caja 2' });
    await tx.insert(categories).values(DEMO_CATEGORIES.map((c) => ({ companyId, id: c.id, name: c.name })));
    await tx.insert(customers).values([
      { companyId, id: 1, name: 'Juan Pérez', ivaCondition: 5, phone: '+5491155550101' },
      {
        companyId,
        id: 2,
        name: 'María González',
        documentType: 'dni',
        document: '28456789',
        ivaCondition: 5,
        email: 'maria.gonzalez@example.com',
        accountEnabled: true,
        creditLimit: '50000.00',
      },
      {
        companyId,
        id: 3,
        name: 'Kiosco El Trébol',
        documentType: 'cuit',
        document: '30712345671',
        ivaCondition: 1,
        street: 'Av. Rivadavia 5200',
        city: 'Ciudad Autónoma de Buenos Aires',
        province: 'Ciudad Autónoma de Buenos Aires',
        postalCode: 'C1424',
        phone: '+5491143215678',
        accountEnabled: true,
        creditLimit: '300000.00',
      },
    ]);
    // Invoicing works out of the box against the built-in fake ARCA (ARCA_DEMO_FAKE): a Responsable
    // Inscripto in homologación, delegating to the service, point of sale 1.
    await tx.insert(companyFiscal).values({
      companyId,
      ivaCondition: 'responsable_inscripto',
      legalName: `${name} S.R.L.`,
      address: 'Av. Corrientes 1234, CABA',
      grossIncome: '901-123456-7',
      activityStart: '2019-03-01',
      authMode: 'delegation',
      environment: 'homologacion',
      defaultPointOfSale: 1,
    });
    await tx.insert(fiscalPointsOfSale).values({ companyId, number: 1, emissionType: 'CAE - Ri Iva', blocked: false });
    const productIds = await seedCatalogue(tx, companyId, rng, now);
    const toInvoice = await seedSales(tx, companyId, productIds, rng, now);
    const logins = await seedUsers(container, tx, companyId);
    return { created, companyId, products: productIds.length, logins, toInvoice };
  });
  if (result === null) return null;
  const invoiceId = await issueDemoInvoice(container, result.companyId, result.toInvoice);
  const demo: Omit<DemoResult, 'banner'> = {
    companyId: result.companyId,
    companyName: result.created.company.name,
    integrationKey: result.created.integrationKey,
    scannerToken: result.created.scannerToken,
    products: result.products,
    logins: result.logins,
    invoiceId,
  };
  return { ...demo, banner: demoBanner(demo, container.config.http.publicBaseUrl) };
}

/**
 * The demo invoice, issued like any other (POST /api/v1/sales/:id/invoice does the same): a
 * Factura B on the demo's configured point of sale, with its CAE, IVA and QR from the fake ARCA.
 * Only against the built-in fake: a demo company never sends a receipt to a real ARCA. If the fake
 * fails, the demo works without its invoice (logged).
 */
async function issueDemoInvoice(container: Container, companyId: number, saleId: number | null): Promise<number | null> {
  if (saleId === null || !container.invoicing.arca.demoFakeInUse) return null;
  try {
    const { invoice } = await container.invoicing.invoicing.issue(cliCtx(companyId), saleId, {});
    return invoice.id;
  } catch (err) {
    container.logger.warn({ err, companyId, saleId }, 'demo invoice not issued; the demo works without it');
    return null;
  }
}

/**
 * A CUIT no company has: the demo's 30-71234567-1 for the first one, then 30-7123NNNN-D (the
 * demo invoices in homologación, so each demo company needs its own).
 */
async function demoCuit(tx: Conn): Promise<string> {
  for (let n = 0; ; n++) {
    const first10 = n === 0 ? DEMO_CUIT.slice(0, 10) : `307123${String(4567 + n).padStart(4, '0')}`;
    const check = cuitCheckDigit(first10);
    if (check < 0) continue;
    const cuit = `${first10}${check}`;
    const [taken] = await selectRows<{ n: number }>(tx, sql`SELECT 1 AS n FROM companies WHERE cuit = ${cuit}`);
    if (!taken) return cuit;
  }
}

async function demoCompanyName(tx: Conn) {
  const [row] = await selectRows<{ n: number }>(
    tx,
    sql`SELECT count(*)::int AS n FROM companies WHERE name LIKE ${`${DEMO_COMPANY_NAME}%`}`,
  );
  const n = Number(row?.n ?? 0);
  return n === 0 ? DEMO_COMPANY_NAME : `${DEMO_COMPANY_NAME} ${n + 1}`;
}

function productName(line: CatalogueLine, brand: string, size: string) {
  const parts = [line.name, brand, line.perKg ? '' : size].filter(Boolean);
  return line.perKg ? `${parts.join(' ')} (por kg)` : parts.join(' ');
}

function roundPrice(value: number) {
  return Math.max(90, Math.round(value / 100) * 100 - 10);
}

async function seedCatalogue(tx: Conn, companyId: number, rng: () => number, now: Date) {
  const ids: number[] = [];
  let id = 0;
  let plu = 100;
  for (const category of DEMO_CATEGORIES) {
    for (const [lineIndex, line] of category.lines.entries()) {
      for (const [brandIndex, brand] of line.brands.entries()) {
        for (const [sizeIndex, size] of line.sizes.entries()) {
          id += 1;
          const brandFactor = 0.9 + ((brandIndex * 7 + lineIndex) % 6) * 0.05;
          const price = roundPrice(line.price * (line.sizeFactor?.[sizeIndex] ?? 1) * brandFactor);
          // 779 (Argentina) + a 4-digit maker code per category/line/brand + a 5-digit item code.
          const body = `779${String(category.id * 100 + lineIndex).padStart(4, '0')}${String(brandIndex * 10 + sizeIndex).padStart(2, '0')}${String(id).padStart(3, '0')}`;
          await upsertProduct(
            tx,
            companyId,
            {
              id,
              sku: line.perKg ? String(plu++).padStart(5, '0') : `${category.prefix}-${String(id).padStart(4, '0')}`,
              bc: line.perKg ? null : ean13(body.slice(0, 12)),
              name: productName(line, brand, size),
              description: line.description ?? `${line.name}${brand ? ` marca ${brand}` : ''}, ${size}.`,
              basePrice: price,
              categoryId: category.id,
              mark: brand || null,
              enable: !(id % 97 === 0),
              updatedAt: now,
            },
            { now },
          );
          const main = line.perKg ? Math.round(rng() * 35_000 + 5_000) / 1000 : Math.floor(rng() * 120);
          if (main > 0)
            await applyMovement(
              tx,
              companyId,
              { type: 'IN', depositId: 1, productId: id, amount: main, reason: 'Stock inicial' },
              { now },
            );
          if (rng() < 0.4) {
            const branch = line.perKg ? Math.round(rng() * 10_000 + 1_000) / 1000 : Math.floor(rng() * 40) + 1;
            await applyMovement(
              tx,
              companyId,
              { type: 'IN', depositId: 2, productId: id, amount: branch, reason: 'Stock inicial' },
              { now },
            );
          }
          ids.push(id);
        }
      }
    }
  }
  return ids;
}

const PAYMENT_METHODS = ['efectivo', 'tarjeta de débito', 'Mercado Pago', 'transferencia'];
const PLAN: ('pending' | 'paid' | 'cancelled')[] = [
  'paid',
  'paid',
  'pending',
  'paid',
  'cancelled',
  'pending',
  'paid',
  'cancelled',
  'pending',
];

/** The demo's sales; answers the first paid one (the one to invoice). */
async function seedSales(tx: Conn, companyId: number, productIds: number[], rng: () => number, now: Date) {
  let toInvoice: number | null = null;
  for (const [index, status] of PLAN.entries()) {
    const createdAt = new Date(now.getTime() - (PLAN.length - index) * 3_600_000 * 5);
    const picks = [
      ...new Set(Array.from({ length: 1 + Math.floor(rng() * 4) }, () => productIds[Math.floor(rng() * productIds.length)]!)),
    ];
    const rows = await tx
      .select({ id: products.id, basePrice: products.basePrice })
      .from(products)
      .where(and(eq(products.companyId, companyId), inArray(products.id, picks)));
    const items = rows.map((p) => ({ productId: p.id, quantity: 1 + Math.floor(rng() * 3), price: p.basePrice }));
    const totalCents = items.reduce((sum, item) => sum + lineTotalCents(item.price, item.quantity), 0);
    const paymentMethod = PAYMENT_METHODS[index % PAYMENT_METHODS.length]!;
    const options = { now: createdAt };
    const { sale } = await createSale(
      tx,
      companyId,
      { customerId: 1 + (index % 3), boxId: 1 + (index % 2), total: totalCents / 100, paymentMethod, items, createdAt },
      options,
    );
    if (status === 'paid') {
      await markSalePaid(tx, companyId, { id: sale.id, paymentMethod, paymentId: `demo-${sale.id}`, bookPayment: true }, options);
      toInvoice ??= sale.id;
    }
    if (status === 'cancelled')
      await cancelSale(tx, companyId, { id: sale.id, reason: 'El cliente desistió de la compra' }, options);
  }
  return toInvoice;
}

async function seedUsers(container: Container, tx: Conn, companyId: number): Promise<DemoLogin[]> {
  const logins: DemoLogin[] = [];
  const wanted: { role: DemoLogin['role']; email: string }[] = [
    { role: 'superadmin', email: DEMO_EMAILS[0] },
    { role: 'admin', email: companyId === 1 ? DEMO_EMAILS[1] : `duenio+${companyId}@almacen.demo` },
    { role: 'cashier', email: companyId === 1 ? DEMO_EMAILS[2] : `caja+${companyId}@almacen.demo` },
  ];
  for (const { role, email } of wanted) {
    const existing = await container.users.findUserByEmail(email, tx);
    if (existing) {
      logins.push({ role, email, password: null });
      continue;
    }
    const password = randomBytes(9).toString('base64url');
    await container.users.createUser(
      {
        email,
        password,
        superadmin: role === 'superadmin',
        ...(role === 'superadmin' ? {} : { membership: { companyId, role } }),
      },
      tx,
    );
    logins.push({ role, email, password });
  }
  return logins;
}

const ROLE_LABEL: Record<DemoLogin['role'], string> = {
  superadmin: 'Operador (superadmin)',
  admin: 'Dueño (admin)',
  cashier: 'Caja (cajero)',
};

export function demoBanner(demo: Omit<DemoResult, 'banner'>, baseUrl: string): string {
  const line = '─'.repeat(72);
  const sample = encodeURIComponent('yerba');
  const logins = demo.logins.map(
    (l) =>
      `   ${ROLE_LABEL[l.role].padEnd(24)} ${l.email} / ${l.password ?? '(ya existía; cambiala con: npm run cli -- user password)'}`,
  );
  return [
    line,
    ` Mostrador está listo con una empresa demo: ${demo.companyName} (#${demo.companyId}, ${demo.products} productos)`,
    '',
    `   Servicio                 ${baseUrl}`,
    `   Documentación            ${baseUrl}/docs`,
    `   Kiosco de precios        ${baseUrl}/scanner?token=${demo.scannerToken}`,
    `   Token del escáner        ${demo.scannerToken}`,
    `   Clave de integración     ${demo.integrationKey}`,
    ...logins,
    '',
    ` Probá:  curl "${baseUrl}/api/public/scanner?token=${demo.scannerToken}&query=${sample}"`,
    ' Estas claves y contraseñas se muestran una sola vez: guardalas ahora.',
    line,
    '',
  ].join('\n');
}

/**
 * What a restart on a database that already has companies prints: the address, and how to get
 * new credentials, since the demo's passwords and keys were shown only the first time.
 */
const DEMO_EMAILS = ['operador@mostrador.demo', 'duenio@almacen.demo', 'caja@almacen.demo'] as const;

export function restartBanner(baseUrl: string, demoLogins: readonly string[] = DEMO_EMAILS): string {
  const line = '─'.repeat(72);
  return [
    line,
    ` Mostrador está listo en ${baseUrl}  (ingresá en ${baseUrl}/login)`,
    '',
    ' Las claves y contraseñas se mostraron una sola vez, la primera vez que arrancó. Si no las tenés:',
    `   Contraseña nueva      npm run --silent cli -- user password --email ${demoLogins[1] ?? 'EMAIL'} --password 'una-clave-larga'`,
    '   Claves nuevas         npm run --silent cli -- company keys rotate --company 1',
    '   Otra empresa demo     npm run --silent cli -- demo',
    ` Usuarios de la demo:   ${demoLogins.join(', ')}`,
    line,
    '',
  ].join('\n');
}

/** mulberry32: a small deterministic generator so every demo has the same catalogue and stock. */
function seededRandom(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
