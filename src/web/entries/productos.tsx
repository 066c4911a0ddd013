import { useEffect, useState } from 'preact/hooks';
import { formatCountOf } from '../../lib/format.ts';
import { formatPesos, parseAmount } from '../../lib/money.ts';
import type { MerchantProduct } from '../../modules/catalog/catalog.service.ts';
import { api, errorText } from '../ui/api.ts';
import { useDebouncedGet } from '../ui/debounced-get.ts';
import { decimalText, PRODUCT_MESSAGES, parsePrice } from '../ui/catalog.ts';

import { Card, PageTitle, TableWrap } from '../ui/layout.tsx';
import { CategoryField, IvaField } from '../ui/catalog-fields.tsx';
import { Field } from '../ui/form.tsx';
import { Notice, useNotice } from '../ui/notice.tsx';
import { SpreadsheetImport } from '../ui/spreadsheet-import.tsx';
import { mountPage } from '../ui/page-data.ts';

interface Category {
  id: number;
  name: string;
}
interface ProductsData {
  categories: Category[];
}
interface Deposit {
  id: number;
  name: string;
  is_default: boolean;
}
interface PriceChangeAnswer {
  matched: number;
  changed: number;
  applied: boolean;
  sample: { id: number; name: string; before: number; after: number }[];
}

const PAGE = 50;
const money = (value: number) => formatPesos(value);
function PriceCell({ product, onSaved }: { product: MerchantProduct; onSaved: (p: MerchantProduct) => void }) {
  const [text, setText] = useState(decimalText(product.base_price));
  const [state, setState] = useState<'idle' | 'saving' | 'saved' | 'error'>('idle');
  const [problem, setProblem] = useState('');
  // A price changed elsewhere (a bulk change, a reload) shows here.
  useEffect(() => setText(decimalText(product.base_price)), [product.base_price]);
  async function save() {
    const value = parsePrice(text);
    if (value === null) {
      setState('error');
      setProblem('Precio inválido');
      return;
    }
    if (Math.round(value * 100) === Math.round(product.base_price * 100)) return;
    setState('saving');
    try {
      const { product: saved } = await api<{ product: MerchantProduct }>('PATCH', `/api/v1/products/${product.id}`, {
        body: { base_price: value },
      });
      onSaved(saved);
      setState('saved');
    } catch (err) {
      setState('error');
      setProblem(errorText(err));
    }
  }
  return (
    <div class="price-cell">
      <input
        aria-label={`Precio de ${product.name}`}
        inputMode="decimal"
        value={text}
        data-price={product.id}
        onInput={(e) => {
          setText((e.target as HTMLInputElement).value);
          setState('idle');
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            void save();
          }
          if (e.key === 'Escape') setText(decimalText(product.base_price));
        }}
        onBlur={() => void save()}
      />
      <span class={state === 'error' ? 'error-text' : 'muted'} aria-live="polite">
        {state === 'saving' ? 'Guardando…' : state === 'saved' ? 'Guardado' : state === 'error' ? problem : ''}
      </span>
    </div>
  );
}

/** The company's deposits (for the opening stock and the spreadsheet's stock column); [] until loaded. */
function useDeposits(): Deposit[] {
  const [deposits, setDeposits] = useState<Deposit[]>([]);
  useEffect(() => {
    api<{ deposits: Deposit[] }>('GET', '/api/v1/deposits')
      .then((answer) => setDeposits(answer.deposits))
      .catch(() => setDeposits([]));
  }, []);
  return deposits;
}

function DepositField({
  id,
  label,
  deposits,
  value,
  onChange,
}: {
  id: string;
  label: string;
  deposits: Deposit[];
  value: string;
  onChange: (e: Event) => void;
}) {
  return (
    <Field id={id} label={label}>
      <select id={id} value={value} onChange={onChange}>
        <option value="">{deposits.find((d) => d.is_default)?.name ?? 'Depósito principal'} (principal)</option>
        {deposits
          .filter((d) => !d.is_default)
          .map((d) => (
            <option key={d.id} value={d.id}>
              {d.name}
            </option>
          ))}
      </select>
    </Field>
  );
}

function NewProduct({
  categories,
  deposits,
  onCreated,
}: {
  categories: Category[];
  deposits: Deposit[];
  onCreated: (p: MerchantProduct) => void;
}) {
  const empty = { name: '', sku: '', barcode: '', price: '', iva: '21', category: '', unit: 'unit', stock: '', deposit: '' };
  const [form, setForm] = useState(empty);
  const [problem, setProblem] = useState('');
  const set = (key: keyof typeof form) => (e: Event) => setForm({ ...form, [key]: (e.target as HTMLInputElement).value });
  async function submit(e: Event) {
    e.preventDefault();
    const price = parsePrice(form.price);
    if (price === null) {
      setProblem('Escribí el precio, por ejemplo 1.234,56');
      return;
    }
    const stock = form.stock.trim() ? parseAmount(form.stock) : null;
    if (form.stock.trim() && (stock === null || stock < 0)) {
      setProblem('Escribí el stock inicial como número, por ejemplo 12 o 2,5 (o dejalo vacío)');
      return;
    }
    if (stock !== null && form.unit === 'unit' && !Number.isInteger(stock)) {
      setProblem('Un producto que se vende por unidad lleva stock entero; para decimales elegí «por kg».');
      return;
    }
    try {
      const { product } = await api<{ product: MerchantProduct }>('POST', '/api/v1/products', {
        body: {
          name: form.name,
          base_price: price,
          iva_rate: form.iva,
          unit: form.unit,
          ...(stock !== null && stock > 0 ? { stock, ...(form.deposit ? { deposit_id: Number(form.deposit) } : {}) } : {}),
          ...(form.sku.trim() ? { sku: form.sku.trim() } : {}),
          ...(form.barcode.trim() ? { barcode: form.barcode.trim() } : {}),
          ...(form.category ? { category_id: Number(form.category) } : {}),
        },
        messages: PRODUCT_MESSAGES,
      });
      setForm({ ...empty, iva: form.iva, category: form.category, unit: form.unit, deposit: form.deposit });
      setProblem('');
      onCreated(product);
    } catch (err) {
      setProblem(errorText(err));
    }
  }
  return (
    <form id="new-product" class="grid-form" onSubmit={submit}>
      <Field id="np-name" label="Nombre">
        <input id="np-name" required maxLength={200} value={form.name} onInput={set('name')} />
      </Field>
      <Field id="np-price" label="Precio">
        <input id="np-price" required inputMode="decimal" placeholder="1.234,56" value={form.price} onInput={set('price')} />
      </Field>
      <Field id="np-sku" label="SKU (opcional)">
        <input id="np-sku" maxLength={64} value={form.sku} onInput={set('sku')} />
      </Field>
      <Field id="np-barcode" label="Código de barras (opcional)">
        <input id="np-barcode" inputMode="numeric" maxLength={14} value={form.barcode} onInput={set('barcode')} />
      </Field>
      <IvaField id="np-iva" value={form.iva} onChange={set('iva')} />
      <CategoryField id="np-category" value={form.category} categories={categories} onChange={set('category')} />
      <Field id="np-unit" label="Se vende">
        <select id="np-unit" value={form.unit} onChange={set('unit')}>
          <option value="unit">Por unidad</option>
          <option value="kg">Por kg</option>
        </select>
      </Field>
      <Field id="np-stock" label={form.unit === 'kg' ? 'Stock inicial en kg (opcional)' : 'Stock inicial (opcional)'}>
        <input id="np-stock" inputMode="decimal" placeholder="0" value={form.stock} onInput={set('stock')} />
      </Field>
      {deposits.length > 1 ? (
        <DepositField
          id="np-deposit"
          label="Depósito del stock inicial"
          deposits={deposits}
          value={form.deposit}
          onChange={set('deposit')}
        />
      ) : null}
      <div class="row">
        <button type="submit">Agregar producto</button>
        {problem ? (
          <span class="error-text" role="alert" data-new-problem>
            {problem}
          </span>
        ) : null}
      </div>
    </form>
  );
}

function PriceChange({ filter, onApplied }: { filter: { q: string; category: string }; onApplied: () => void }) {
  const [percent, setPercent] = useState('');
  const [rounding, setRounding] = useState('10');
  const [preview, setPreview] = useState<PriceChangeAnswer | null>(null);
  const [problem, setProblem] = useState('');
  const body = (dryRun: boolean) => ({
    percent: Number(percent.replace(',', '.')),
    rounding,
    dry_run: dryRun,
    filter: {
      ...(filter.q.trim() ? { q: filter.q.trim() } : {}),
      ...(filter.category ? { category_id: Number(filter.category) } : {}),
    },
  });
  async function run(dryRun: boolean) {
    const value = Number(percent.replace(',', '.'));
    if (!Number.isFinite(value) || value === 0) {
      setProblem('Escribí un porcentaje, por ejemplo 8 o -5');
      return;
    }
    try {
      const answer = await api<PriceChangeAnswer>('POST', '/api/v1/products/price-change', { body: body(dryRun) });
      setProblem('');
      setPreview(answer);
      if (!dryRun) onApplied();
    } catch (err) {
      setProblem(errorText(err));
    }
  }
  return (
    <div id="price-change">
      <p class="muted">
        Se aplica a los productos de la búsqueda y la categoría elegidas arriba
        {filter.q || filter.category ? '' : ' (ahora: todos los productos)'}.
      </p>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void run(true);
        }}
      >
        <label for="pc-percent">Porcentaje</label>
        <input
          id="pc-percent"
          inputMode="decimal"
          size={6}
          value={percent}
          onInput={(e) => setPercent((e.target as HTMLInputElement).value)}
        />
        <label for="pc-rounding">Redondeo</label>
        <select id="pc-rounding" value={rounding} onChange={(e) => setRounding((e.target as HTMLSelectElement).value)}>
          <option value="none">Sin redondeo</option>
          <option value="1">$ 1</option>
          <option value="10">$ 10</option>
          <option value="50">$ 50</option>
          <option value="100">$ 100</option>
        </select>
        <button type="submit" class="secondary">
          Vista previa
        </button>
      </form>
      {problem ? <p class="error-text">{problem}</p> : null}
      {preview ? (
        <div data-price-preview>
          <p>
            {preview.applied ? 'Aplicado: ' : ''}
            {formatCountOf(preview.matched, 'producto coincide', 'productos coinciden')};{' '}
            {formatCountOf(preview.changed, 'cambia', 'cambian')} de precio.
          </p>
          {preview.sample.length > 0 ? (
            <TableWrap>
              <thead>
                <tr>
                  <th>Producto</th>
                  <th>Antes</th>
                  <th>Después</th>
                </tr>
              </thead>
              <tbody>
                {preview.sample.map((s) => (
                  <tr key={s.id}>
                    <td>{s.name}</td>
                    <td>{money(s.before)}</td>
                    <td>{money(s.after)}</td>
                  </tr>
                ))}
              </tbody>
            </TableWrap>
          ) : null}
          {!preview.applied && preview.changed > 0 ? (
            <button type="button" data-apply-prices onClick={() => void run(false)}>
              Aplicar a {formatCountOf(preview.changed, 'producto', 'productos')}
            </button>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

function Import({ deposits, onImported }: { deposits: Deposit[]; onImported: () => void }) {
  const [deposit, setDeposit] = useState('');
  return (
    <SpreadsheetImport url="/api/v1/products/import" query={deposit ? { deposit_id: deposit } : {}} onImported={onImported}>
      <p class="muted">
        Planilla CSV de Excel o de otro sistema (columnas como sku, codigo, nombre, precio, iva, categoria, unidad, stock). La
        columna stock fija la cantidad en el depósito que elijas (se registra como un ajuste).{' '}
        <a href="/docs/api-comercio">Formato</a> · <a href="/docs/ejemplo-productos.csv">Planilla de ejemplo</a>
      </p>
      {deposits.length > 1 ? (
        <DepositField
          id="import-deposit"
          label="Depósito de la columna stock"
          deposits={deposits}
          value={deposit}
          onChange={(e) => setDeposit((e.target as HTMLSelectElement).value)}
        />
      ) : null}
    </SpreadsheetImport>
  );
}

/** Why the list is empty: the search or the filters, or no product yet (a new shop). */
function noProductsText(q: string, category: string, enabled: string): string {
  if (q.trim() !== '' || category !== '') return 'No hay productos con esa búsqueda.';
  if (enabled === 'false') return 'No hay productos deshabilitados.';
  if (enabled === 'true') return 'No hay productos habilitados. Cargá el primero en «Nuevo producto» o importá una planilla.';
  return 'Todavía no cargaste productos. Cargá el primero en «Nuevo producto» o importá una planilla.';
}

function Products({ categories: initial }: ProductsData) {
  const [categories, setCategories] = useState(initial);
  const [q, setQ] = useState('');
  const [category, setCategory] = useState('');
  const [enabled, setEnabled] = useState('true');
  const [products, setProducts] = useState<MerchantProduct[] | null>(null);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [next, setNext] = useState<string | null>(null);
  const [notice, say] = useNotice();
  const [reload, setReload] = useState(0);
  const deposits = useDeposits();
  const [exportDeposit, setExportDeposit] = useState('');

  const cursor = cursors[cursors.length - 1] ?? null;
  const params = new URLSearchParams({ limit: String(PAGE) });
  if (q.trim()) params.set('q', q.trim());
  if (category) params.set('category_id', category);
  if (enabled) params.set('enabled', enabled);
  if (cursor) params.set('cursor', cursor);
  useDebouncedGet<{ products: MerchantProduct[]; meta: { next_cursor: string | null } }>(
    `/api/v1/products?${params}`,
    reload,
    (answer) => {
      setProducts(answer.products);
      setNext(answer.meta.next_cursor);
    },
    (text) => say('error', text),
  );

  const restart = () => setCursors([null]);
  const refresh = () => setReload((n) => n + 1);
  const replace = (saved: MerchantProduct) => setProducts((list) => list?.map((p) => (p.id === saved.id ? saved : p)) ?? null);

  async function setEnabledOf(product: MerchantProduct, enable: boolean) {
    try {
      const { product: saved } = await api<{ product: MerchantProduct }>('PATCH', `/api/v1/products/${product.id}`, {
        body: { enable },
      });
      replace(saved);
      say('ok', `${saved.name}: ${enable ? 'habilitado' : 'deshabilitado (no se vende ni aparece en el escáner)'}.`);
    } catch (err) {
      say('error', errorText(err));
    }
  }

  return (
    <>
      <PageTitle lead="Tu catálogo: buscá, cambiá precios al toque, cargá planillas y aplicá aumentos.">Productos</PageTitle>
      <nav class="row page-actions" aria-label="Acciones del catálogo">
        <a class="button" href="#nuevo-producto" data-action="new">
          Nuevo producto
        </a>
        <a class="button secondary" href="#aumento" data-action="prices">
          Aumento masivo
        </a>
        <a class="button secondary" href="#importar" data-action="import">
          Importar
        </a>
        <a
          class="button secondary"
          href={`/api/v1/products/export${exportDeposit ? `?deposit_id=${exportDeposit}` : ''}`}
          data-action="export"
        >
          Exportar
        </a>
        {deposits.length > 1 ? (
          <span class="export-deposit">
            <label for="export-deposit" class="visually-hidden">
              Stock de la planilla
            </label>
            <select
              id="export-deposit"
              value={exportDeposit}
              onChange={(e) => setExportDeposit((e.target as HTMLSelectElement).value)}
            >
              <option value="">Stock: {deposits.find((d) => d.is_default)?.name ?? 'principal'}</option>
              {deposits
                .filter((d) => !d.is_default)
                .map((d) => (
                  <option key={d.id} value={d.id}>
                    Stock: {d.name}
                  </option>
                ))}
            </select>
          </span>
        ) : null}
      </nav>
      <Notice notice={notice} />
      <Card title="Catálogo" id="catalog">
        <form class="row filters" onSubmit={(e) => e.preventDefault()}>
          <label for="search" class="visually-hidden">
            Buscar
          </label>
          <input
            id="search"
            type="search"
            placeholder="Buscar por nombre, SKU o código"
            value={q}
            onInput={(e) => {
              setQ((e.target as HTMLInputElement).value);
              restart();
            }}
          />
          <label for="filter-category" class="visually-hidden">
            Categoría
          </label>
          <select
            id="filter-category"
            value={category}
            onChange={(e) => {
              setCategory((e.target as HTMLSelectElement).value);
              restart();
            }}
          >
            <option value="">Todas las categorías</option>
            {categories.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
          <label for="filter-enabled" class="visually-hidden">
            Estado
          </label>
          <select
            id="filter-enabled"
            value={enabled}
            onChange={(e) => {
              setEnabled((e.target as HTMLSelectElement).value);
              restart();
            }}
          >
            <option value="true">Habilitados</option>
            <option value="false">Deshabilitados</option>
            <option value="">Todos</option>
          </select>
        </form>
        {products === null ? <p class="muted">Cargando…</p> : null}
        {products?.length === 0 ? <p data-no-products>{noProductsText(q, category, enabled)}</p> : null}
        {products && products.length > 0 ? (
          <TableWrap id="products">
            <thead>
              <tr>
                <th>Producto</th>
                <th>SKU / código</th>
                <th>Precio</th>
                <th>Stock</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {products.map((p) => (
                <tr key={p.id} data-product={p.id}>
                  <td class="p-name">
                    <a href={`/productos/${p.id}`} data-edit={p.id}>
                      <strong>{p.name}</strong>
                    </a>
                    <br />
                    <span class="muted">
                      IVA {p.iva_rate === 'exento' ? 'exento' : `${p.iva_rate.replace('.', ',')} %`}
                      {p.mark ? ` · ${p.mark}` : ''}
                    </span>
                  </td>
                  <td class="p-code">
                    {p.sku ?? '—'}
                    <br />
                    <span class="muted">{p.barcode ?? ''}</span>
                  </td>
                  <td class="p-price">
                    <PriceCell key={p.id} product={p} onSaved={replace} />
                  </td>
                  <td class={`p-stock num${p.min_stock !== null && p.stock <= p.min_stock ? ' error-text' : ''}`}>
                    <span class="p-label">Stock </span>
                    {p.stock.toLocaleString('es-AR')}
                    {p.unit === 'kg' ? ' kg' : ''}
                  </td>
                  <td class="p-actions">
                    <button type="button" class="secondary" onClick={() => void setEnabledOf(p, !p.enable)}>
                      {p.enable ? 'Deshabilitar' : 'Habilitar'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </TableWrap>
        ) : null}
        <p class="row pager">
          <button
            type="button"
            class="secondary"
            disabled={cursors.length <= 1}
            onClick={() => setCursors((c) => c.slice(0, -1))}
          >
            Anteriores
          </button>
          <button type="button" class="secondary" disabled={!next} onClick={() => next && setCursors((c) => [...c, next])}>
            Siguientes
          </button>
        </p>
      </Card>
      <Card title="Nuevo producto" id="nuevo-producto" actions={<a href="/productos/nuevo">Formulario completo</a>}>
        <NewProduct
          categories={categories}
          deposits={deposits}
          onCreated={(p) => {
            say('ok', `Producto agregado: ${p.name} (${money(p.base_price)}).`);
            refresh();
          }}
        />
      </Card>
      <Card title="Aumento o rebaja de precios" id="aumento">
        <PriceChange
          filter={{ q, category }}
          onApplied={() => {
            say('ok', 'Precios actualizados.');
            refresh();
          }}
        />
      </Card>
      <Card title="Importar planilla" id="importar">
        <Import
          deposits={deposits}
          onImported={async () => {
            say('ok', 'Planilla importada.');
            refresh();
            try {
              setCategories((await api<{ categories: Category[] }>('GET', '/api/v1/categories')).categories);
            } catch {
              // the list of categories stays as it was
            }
          }}
        />
      </Card>
    </>
  );
}

mountPage<ProductsData>((data) => <Products {...data} />);
