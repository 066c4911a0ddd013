import { useEffect, useRef, useState } from 'preact/hooks';
import { formatPesos } from '../../lib/money.ts';
import type { MerchantProduct } from '../../modules/catalog/catalog.service.ts';
import { api, errorText } from '../ui/api.ts';
import { checkBarcode, decimalText, moneyText, PRODUCT_MESSAGES, parsePrice } from '../ui/catalog.ts';
import { CategoryField, IvaField } from '../ui/catalog-fields.tsx';
import { Field } from '../ui/form.tsx';
import { Card, PageTitle } from '../ui/layout.tsx';
import { Notice, useNotice } from '../ui/notice.tsx';
import { mountPage } from '../ui/page-data.ts';

interface Category {
  id: number;
  name: string;
}
interface ProductData {
  /** null: a new product (/productos/nuevo). */
  product: MerchantProduct | null;
  categories: Category[];
  /** The id asked for did not exist in this company. */
  not_found?: boolean;
}

/** The form's text of each field (what the inputs hold). */
interface FormState {
  name: string;
  sku: string;
  barcode: string;
  price: string;
  cost: string;
  iva: string;
  unit: 'unit' | 'kg';
  category: string;
  mark: string;
  minStock: string;
  enable: boolean;
  description: string;
}

function formOf(p: MerchantProduct | null): FormState {
  return {
    name: p?.name ?? '',
    sku: p?.sku ?? '',
    barcode: p?.barcode ?? '',
    price: p ? moneyText(p.base_price) : '',
    cost: p ? moneyText(p.cost) : '',
    iva: p?.iva_rate ?? '21',
    unit: p?.unit ?? 'unit',
    category: p?.category_id ? String(p.category_id) : '',
    mark: p?.mark ?? '',
    minStock: p ? decimalText(p.min_stock) : '',
    enable: p?.enable ?? true,
    description: p?.description ?? '',
  };
}

type Problems = Partial<Record<keyof FormState, string>>;

/** The API body of the form, or what is wrong with it (per field). */
function bodyOf(form: FormState): { body: Record<string, unknown> } | { problems: Problems } {
  const problems: Problems = {};
  if (!form.name.trim()) problems.name = 'Escribí el nombre.';
  const price = parsePrice(form.price);
  if (price === null) problems.price = 'Escribí el precio, por ejemplo 1.234,56';
  const cost = form.cost.trim() ? parsePrice(form.cost) : null;
  if (form.cost.trim() && cost === null) problems.cost = 'Escribí el costo como un precio, o dejalo vacío.';
  const minStock = form.minStock.trim() ? parsePrice(form.minStock) : null;
  if (form.minStock.trim() && minStock === null) problems.minStock = 'Escribí una cantidad, o dejalo vacío.';
  const barcode = checkBarcode(form.barcode);
  if (!barcode.ok) problems.barcode = barcode.message;
  if (Object.keys(problems).length > 0) return { problems };
  return {
    body: {
      name: form.name.trim(),
      sku: form.sku.trim() || null,
      barcode: form.barcode.trim() || null,
      base_price: price,
      cost,
      iva_rate: form.iva,
      unit: form.unit,
      category_id: form.category ? Number(form.category) : null,
      mark: form.mark.trim() || null,
      min_stock: minStock,
      enable: form.enable,
      description: form.description.trim(),
    },
  };
}

/** Only what changed, so saving an untouched form writes (and notifies) nothing. */
function changesOf(product: MerchantProduct, body: Record<string, unknown>): Record<string, unknown> {
  const stored: Record<string, unknown> = product;
  // A UPC-A (12 digits) is stored as its EAN-13: a leading 0.
  const typed = { ...body };
  if (typeof typed['barcode'] === 'string' && (typed['barcode'] as string).length === 12)
    typed['barcode'] = `0${typed['barcode']}`;
  return Object.fromEntries(Object.entries(body).filter(([key]) => typed[key] !== stored[key]));
}

const FIELD_IDS: Record<keyof FormState, string> = {
  name: 'p-name',
  sku: 'p-sku',
  barcode: 'p-barcode',
  price: 'p-price',
  cost: 'p-cost',
  iva: 'p-iva',
  unit: 'p-unit',
  category: 'p-category',
  mark: 'p-mark',
  minStock: 'p-min-stock',
  enable: 'p-enable',
  description: 'p-description',
};

function ProductForm({ product: initial, categories, not_found }: ProductData) {
  const [product, setProduct] = useState(initial);
  const [form, setForm] = useState(() => formOf(initial));
  const [problems, setProblems] = useState<Problems>({});
  const [busy, setBusy] = useState(false);
  const [notice, say] = useNotice();
  const nameRef = useRef<HTMLInputElement>(null);
  useEffect(() => nameRef.current?.focus(), []);

  if (not_found) {
    return (
      <>
        <PageTitle>Producto</PageTitle>
        <Card>
          <p data-not-found>No encontramos ese producto en tu catálogo.</p>
          <p>
            <a href="/productos">Volver a Productos</a>
          </p>
        </Card>
      </>
    );
  }

  const set =
    <K extends keyof FormState>(key: K) =>
    (e: Event) => {
      const target = e.currentTarget as HTMLInputElement;
      const value = (target.type === 'checkbox' ? target.checked : target.value) as FormState[K];
      setForm((f) => ({ ...f, [key]: value }));
      if (problems[key]) setProblems((p) => ({ ...p, [key]: undefined }));
    };
  const barcode = checkBarcode(form.barcode);
  const described = (key: keyof FormState) => (problems[key] ? `${FIELD_IDS[key]}-problem` : undefined);
  const problem = (key: keyof FormState) =>
    problems[key] ? (
      <span id={`${FIELD_IDS[key]}-problem`} class="error-text" data-problem={key}>
        {problems[key]}
      </span>
    ) : null;

  /** A price, cost or quantity typed the Argentine way, with its problem under it. */
  const decimalInput = (key: 'price' | 'cost' | 'minStock', placeholder?: string) => (
    <>
      <input
        id={FIELD_IDS[key]}
        inputMode="decimal"
        placeholder={placeholder}
        value={form[key]}
        onInput={set(key)}
        aria-invalid={Boolean(problems[key])}
        aria-describedby={described(key)}
      />
      {problem(key)}
    </>
  );

  async function submit(e: Event) {
    e.preventDefault();
    const built = bodyOf(form);
    if ('problems' in built) {
      setProblems(built.problems);
      const first = (Object.keys(FIELD_IDS) as (keyof FormState)[]).find((key) => built.problems[key]);
      if (first) document.getElementById(FIELD_IDS[first])?.focus();
      say('error', 'Revisá los datos marcados.');
      return;
    }
    const body = product ? changesOf(product, built.body) : built.body;
    if (product && Object.keys(body).length === 0) {
      say('info', 'No hay cambios para guardar.');
      return;
    }
    setBusy(true);
    try {
      const { product: saved } = await api<{ product: MerchantProduct }>(
        product ? 'PATCH' : 'POST',
        product ? `/api/v1/products/${product.id}` : '/api/v1/products',
        { body, messages: PRODUCT_MESSAGES },
      );
      if (!product) history.replaceState(null, '', `/productos/${saved.id}`);
      setProduct(saved);
      setForm(formOf(saved));
      setProblems({});
      say('ok', `${product ? 'Guardado' : 'Producto agregado'}: ${saved.name} (${formatPesos(saved.base_price)}).`);
    } catch (err) {
      const text = errorText(err);
      if (/código/.test(text) && /barras|otro producto/.test(text)) setProblems({ barcode: text });
      say('error', text);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <p class="row">
        <a href="/productos">← Productos</a>
      </p>
      <PageTitle lead={product ? `Producto ${product.id}` : 'Cargá un producto con todos sus datos.'}>
        {product ? product.name : 'Nuevo producto'}
      </PageTitle>
      <Notice notice={notice} />
      <Card>
        <form id="product-form" class="grid-form" onSubmit={submit} noValidate>
          <Field id="p-name" label="Nombre">
            <input
              id="p-name"
              ref={nameRef}
              required
              maxLength={200}
              value={form.name}
              onInput={set('name')}
              aria-invalid={Boolean(problems.name)}
              aria-describedby={described('name')}
            />
            {problem('name')}
          </Field>
          <Field id="p-sku" label="SKU" hint="Tu código interno (opcional).">
            <input id="p-sku" maxLength={64} value={form.sku} onInput={set('sku')} autoComplete="off" />
          </Field>
          <Field id="p-barcode" label="Código de barras" hint="EAN-13, UPC-A o EAN-8 (opcional). Podés leerlo con el lector.">
            <input
              id="p-barcode"
              inputMode="numeric"
              maxLength={14}
              autoComplete="off"
              value={form.barcode}
              onInput={set('barcode')}
              onKeyDown={(e) => {
                // A USB scanner ends the code with Enter: keep the form open to check it.
                if (e.key === 'Enter' && !checkBarcode(form.barcode).ok) e.preventDefault();
              }}
              aria-invalid={!barcode.ok}
              aria-describedby="p-barcode-check"
            />
            <p
              id="p-barcode-check"
              class={`hint ${barcode.ok && !problems.barcode ? 'muted' : 'error-text'}`}
              aria-live="polite"
              data-barcode-check={barcode.ok ? 'ok' : 'bad'}
            >
              {problems.barcode && barcode.ok ? problems.barcode : barcode.message}
            </p>
          </Field>
          <Field id="p-price" label="Precio de venta">
            {decimalInput('price', '1.234,56')}
          </Field>
          <Field id="p-cost" label="Costo" hint="Opcional: lo que te cuesta a vos.">
            {decimalInput('cost', '900,00')}
          </Field>
          <IvaField id="p-iva" value={form.iva} onChange={set('iva')} />
          <Field id="p-unit" label="Se vende por">
            <select id="p-unit" value={form.unit} onChange={set('unit')}>
              <option value="unit">Unidad</option>
              <option value="kg">Kilo (pesable)</option>
            </select>
          </Field>
          <CategoryField id="p-category" value={form.category} categories={categories} onChange={set('category')} />
          <Field id="p-mark" label="Marca">
            <input id="p-mark" maxLength={120} value={form.mark} onInput={set('mark')} />
          </Field>
          <Field
            id="p-min-stock"
            label="Stock mínimo"
            hint={product ? `Stock actual: ${product.stock.toLocaleString('es-AR')}. Se mueve desde Stock.` : 'Opcional.'}
          >
            {decimalInput('minStock')}
          </Field>
          <div class="field">
            <label class="check" for="p-enable">
              <input id="p-enable" type="checkbox" checked={form.enable} onChange={set('enable')} />
              <span>Habilitado (se vende y aparece en el escáner)</span>
            </label>
          </div>
          <div class="field wide">
            <label for="p-description">Descripción</label>
            <textarea id="p-description" rows={3} maxLength={2000} value={form.description} onInput={set('description')} />
          </div>
          <div class="row">
            <button type="submit" disabled={busy} aria-busy={busy}>
              {product ? 'Guardar cambios' : 'Agregar producto'}
            </button>
            <a href="/productos">Volver sin guardar</a>
          </div>
        </form>
      </Card>
    </>
  );
}

mountPage<ProductData>((data) => <ProductForm {...data} />);
