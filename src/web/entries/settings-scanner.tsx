import { useEffect, useMemo, useState } from 'preact/hooks';
import { formatPesos, formatQuantity } from '../../lib/money.ts';
import type { ScaleLabelLayout } from '../../modules/scanner/scale-label.ts';
import type { ScaleLabelPreview } from '../../modules/scanner/scale-settings.ts';
import { api, errorText } from '../ui/api.ts';
import { BusyButton, Field } from '../ui/form.tsx';
import { Card, PageTitle } from '../ui/layout.tsx';
import { Notice, useNotice } from '../ui/notice.tsx';
import { mountPage } from '../ui/page-data.ts';

interface Setting {
  enabled: boolean;
  layout: ScaleLabelLayout;
  default: ScaleLabelLayout;
  problem: string | null;
  sample: string;
}

interface ScannerData {
  company: string | null;
  setting: Setting;
}

/** The three layouts Argentine scales print, as the owner recognises them on a label. */
const PRESETS = [
  {
    id: 'pesos',
    value: 'price',
    decimals: 0,
    title: 'Precio en pesos enteros',
    hint: 'Lo que imprimen por defecto las balanzas Systel y Kretz y la mayoría de las del mercado: hasta $ 99.999.',
  },
  {
    id: 'cents',
    value: 'price',
    decimals: 2,
    title: 'Precio con centavos',
    hint: 'Balanzas configuradas con 2 decimales: solo llegan a $ 999,99.',
  },
  {
    id: 'weight',
    value: 'weight',
    decimals: 3,
    title: 'Peso en gramos',
    hint: 'La etiqueta trae el peso; el precio sale del precio por kg del producto.',
  },
] as const;

const ALL_PREFIXES = ['20', '21', '22', '23', '24', '25', '26', '27', '28', '29'];

const pesos = (amount: number) => formatPesos(amount);
const kilos = (weight: number) => formatQuantity(weight, 'kg');

function presetOf(layout: ScaleLabelLayout): string {
  return PRESETS.find((p) => p.value === layout.value && p.decimals === layout.decimals)?.id ?? 'custom';
}

function usePreview(layout: ScaleLabelLayout, code: string) {
  const [preview, setPreview] = useState<ScaleLabelPreview | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const key = JSON.stringify([layout, code]);
  useEffect(() => {
    const controller = new AbortController();
    const timer = setTimeout(async () => {
      try {
        setPreview(
          await api<ScaleLabelPreview>('POST', '/api/settings/scale-label/preview', {
            body: { ...layout, code },
            signal: controller.signal,
          }),
        );
        setFailure(null);
      } catch (err) {
        if ((err as Error).name !== 'AbortError') setFailure(errorText(err));
      }
    }, 150);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [key]);
  return { preview, failure };
}

function Preview({ layout, code }: { layout: ScaleLabelLayout; code: string }) {
  const { preview, failure } = usePreview(layout, code);
  const digits = code.replace(/\s/g, '');
  const valueDigits = 10 - layout.pluDigits;
  return (
    <div id="preview" aria-live="polite">
      {/^\d{13}$/.test(digits) ? (
        <p class="label-parts">
          <span title="Prefijo">{digits.slice(0, 2)}</span>
          <span title="PLU">{digits.slice(2, 2 + layout.pluDigits)}</span>
          <span title={layout.value === 'price' ? 'Precio' : 'Peso'}>{digits.slice(2 + layout.pluDigits, 12)}</span>
          <span title="Dígito de control">{digits.slice(12)}</span>
        </p>
      ) : null}
      <p class="muted">
        Prefijo · PLU ({layout.pluDigits} dígitos) · {layout.value === 'price' ? 'precio' : 'peso'} ({valueDigits} dígitos) ·
        control
      </p>
      {failure ? <p class="error">{failure}</p> : null}
      {preview?.problem ? (
        <p class="error" id="preview-problem">
          {preview.problem}
        </p>
      ) : null}
      {preview && !preview.problem ? (
        <dl class="facts" id="preview-result">
          <dt>PLU</dt>
          <dd>{preview.plu}</dd>
          <dt>Producto</dt>
          <dd id="preview-product">
            {preview.product ? preview.product.name : 'Ningún producto tiene este PLU como código interno (sku)'}
          </dd>
          {preview.value === 'price' ? (
            <>
              <dt>Precio impreso</dt>
              <dd id="preview-amount">{pesos(preview.price!)}</dd>
            </>
          ) : (
            <>
              <dt>Peso</dt>
              <dd>{kilos(preview.weight!)}</dd>
              <dt>A cobrar</dt>
              <dd id="preview-amount">
                {preview.amount === null ? '—' : `${pesos(preview.amount)} (${pesos(preview.product!.base_price)} el kg)`}
              </dd>
            </>
          )}
        </dl>
      ) : null}
    </div>
  );
}

function ScaleLabels({ company, setting }: ScannerData) {
  const [enabled, setEnabled] = useState(setting.enabled);
  const [layout, setLayout] = useState<ScaleLabelLayout>(setting.layout);
  const [code, setCode] = useState(setting.sample);
  const [busy, setBusy] = useState(false);
  const [notice, say] = useNotice();
  const preset = useMemo(() => presetOf(layout), [layout]);
  const change = (patch: Partial<ScaleLabelLayout>) => setLayout((current) => ({ ...current, ...patch }));

  const save = async () => {
    setBusy(true);
    try {
      const saved = await api<Setting>('PUT', '/api/settings/scale-label', { body: { enabled, ...layout } });
      setLayout(saved.layout);
      setEnabled(saved.enabled);
      say(
        'ok',
        saved.enabled
          ? 'Listo: el escáner lee las etiquetas con este formato.'
          : 'Listo: el escáner ya no lee etiquetas de balanza.',
      );
    } catch (err) {
      say('error', errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageTitle lead="Cómo lee el escáner de precios las etiquetas que imprimen tus balanzas (códigos que empiezan con 20 a 29).">
        Escáner y balanzas{company ? ` · ${company}` : ''}
      </PageTitle>
      <Notice notice={notice} id="action-message" />
      {setting.problem ? (
        <p class="notice notice-error">El formato guardado no era válido y se estaba usando el de por defecto.</p>
      ) : null}
      <Card title="Etiquetas de balanza">
        <label class="check">
          <input type="checkbox" id="enabled" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
          Uso balanzas que imprimen etiquetas
        </label>
        <fieldset disabled={!enabled}>
          <legend>¿Qué trae la etiqueta después del PLU?</legend>
          {PRESETS.map((p) => (
            <label class="check" key={p.id}>
              <input
                type="radio"
                name="preset"
                id={`preset-${p.id}`}
                checked={preset === p.id}
                onChange={() => change({ value: p.value, decimals: p.decimals })}
              />
              <span>
                <strong>{p.title}</strong>
                {p.id === 'pesos' ? ' (recomendado)' : ''}
                <br />
                <span class="muted">{p.hint}</span>
              </span>
            </label>
          ))}
          <div class="row">
            <Field id="plu-digits" label="Dígitos del PLU">
              <select
                id="plu-digits"
                value={String(layout.pluDigits)}
                onChange={(e) => change({ pluDigits: Number(e.currentTarget.value) })}
              >
                <option value="4">4</option>
                <option value="5">5 (lo habitual)</option>
                <option value="6">6</option>
              </select>
            </Field>
            <Field id="decimals" label={layout.value === 'price' ? 'Decimales del precio' : 'Decimales del peso'}>
              <select
                id="decimals"
                value={String(layout.decimals)}
                onChange={(e) => change({ decimals: Number(e.currentTarget.value) })}
              >
                {[0, 1, 2, 3].map((d) => (
                  <option key={d} value={String(d)}>
                    {d}
                  </option>
                ))}
              </select>
            </Field>
          </div>
          <p>Prefijos que usan tus balanzas:</p>
          <div class="checks compact" id="prefixes">
            {ALL_PREFIXES.map((prefix) => (
              <label class="check" key={prefix}>
                <input
                  type="checkbox"
                  checked={layout.prefixes.includes(prefix)}
                  onChange={(e) =>
                    change({
                      prefixes: e.currentTarget.checked
                        ? [...layout.prefixes, prefix].sort()
                        : layout.prefixes.filter((p) => p !== prefix),
                    })
                  }
                />
                {prefix}
              </label>
            ))}
          </div>
        </fieldset>
      </Card>
      <Card title="Probalo con una etiqueta">
        <Field
          id="sample"
          label="Código de una etiqueta"
          hint="Escaneá o escribí una etiqueta real de tu balanza para ver cómo se lee."
        >
          <input
            id="sample"
            inputMode="numeric"
            autoComplete="off"
            value={code}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
        </Field>
        {enabled ? (
          <Preview layout={layout} code={code} />
        ) : (
          <p class="muted">Con las etiquetas apagadas, estos códigos no se buscan.</p>
        )}
      </Card>
      <p class="row end">
        <BusyButton id="save" busy={busy} onClick={save} disabled={enabled && layout.prefixes.length === 0}>
          Guardar formato
        </BusyButton>
      </p>
    </>
  );
}

mountPage<ScannerData>((data) => <ScaleLabels {...data} />);
