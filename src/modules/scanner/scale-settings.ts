import type { Database } from '../../db/client.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { ean13 } from '../../lib/barcode.ts';
import { AppError } from '../../lib/errors.ts';
import { fromMilli, lineTotalCents, moneyToNumber } from '../../lib/money.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import {
  DEFAULT_SCALE_LABEL_LAYOUT,
  decodeScaleLabel,
  parseScaleLabelLayout,
  pluCandidates,
  type ScaleLabelLayout,
  scaleLabelLayoutProblem,
} from './scale-label.ts';
import * as repo from './scanner.repo.ts';

/** What the settings screen sends: a layout, or `enabled: false` (the shop has no scale). */
export interface ScaleLabelSettingInput {
  enabled: boolean;
  prefixes: string[];
  pluDigits: number;
  value: 'price' | 'weight';
  decimals: number;
}

export interface ScaleLabelPreview {
  /** Why the code is not a label of this layout (Spanish, shown as is), or null. */
  problem: string | null;
  plu: string | null;
  value: 'price' | 'weight' | null;
  price: number | null;
  weight: number | null;
  product: { id: number; name: string; base_price: number } | null;
  /** What the customer pays: the printed price, or price per kg × weight. */
  amount: number | null;
}

const DEFAULT_SAMPLE_VALUE = '05745';

/**
 * The owner's scale-label setting (companies.settings.scaleLabel): read it with the default it
 * falls back to, change it (audited), and decode a sample label with any layout for the live preview.
 * `onChange` lets the scanner drop its cached layout at once in this process.
 */
export function createScaleSettings(db: Database, onChange: (companyId: number) => void) {
  async function stored(companyId: number): Promise<unknown> {
    const row = await repo.findScaleLabelSetting(db.orm, companyId);
    if (!row) throw new AppError('not_found', `company ${companyId} not found`);
    return row.setting ?? undefined;
  }

  /** A label for the preview: a PLU of the catalogue (a weighed product's numeric sku) with a sample value. */
  async function sampleCode(companyId: number, layout: ScaleLabelLayout): Promise<string> {
    const sku = await repo.findSamplePlu(db.orm, companyId);
    const plu = (sku ?? '1').padStart(layout.pluDigits, '0').slice(-layout.pluDigits);
    const value = DEFAULT_SAMPLE_VALUE.padStart(10 - layout.pluDigits, '0').slice(-(10 - layout.pluDigits));
    return ean13(`${layout.prefixes[0] ?? '20'}${plu}${value}`);
  }

  async function read(companyId: number) {
    const { layout, problem } = parseScaleLabelLayout(await stored(companyId));
    const shown = layout ?? DEFAULT_SCALE_LABEL_LAYOUT;
    return {
      enabled: layout !== null,
      layout: { ...shown, prefixes: [...shown.prefixes] },
      default: { ...DEFAULT_SCALE_LABEL_LAYOUT, prefixes: [...DEFAULT_SCALE_LABEL_LAYOUT.prefixes] },
      problem,
      sample: await sampleCode(companyId, shown),
    };
  }

  async function update(ctx: CompanyCtx, input: ScaleLabelSettingInput) {
    const layout: ScaleLabelLayout = {
      prefixes: [...new Set(input.prefixes)].sort(),
      pluDigits: input.pluDigits,
      value: input.value,
      decimals: input.decimals,
    };
    const problem = scaleLabelLayoutProblem(layout);
    if (problem) throw new AppError('validation_failed', problem);
    const setting = input.enabled ? layout : false;
    await db.orm.transaction(async (tx) => {
      await repo.setScaleLabelSetting(tx, ctx.companyId, setting);
      await recordAudit(tx, { action: 'scale_label.updated', ...auditBy(ctx), details: { scaleLabel: setting } });
    });
    onChange(ctx.companyId);
    return read(ctx.companyId);
  }

  async function preview(companyId: number, layout: ScaleLabelLayout, code: string): Promise<ScaleLabelPreview> {
    const empty = { plu: null, value: null, price: null, weight: null, product: null, amount: null };
    const problem = scaleLabelLayoutProblem(layout);
    if (problem) return { ...empty, problem: 'El formato no es válido: revisá los campos.' };
    if (!/^\d{13}$/.test(code)) return { ...empty, problem: 'Una etiqueta de balanza tiene 13 dígitos.' };
    if (!layout.prefixes.includes(code.slice(0, 2))) {
      return { ...empty, problem: `Empieza con ${code.slice(0, 2)}: no es uno de los prefijos elegidos.` };
    }
    const label = decodeScaleLabel(code, layout);
    if (!label) return { ...empty, problem: 'El dígito de control no coincide: revisá el código.' };
    const [plu, bare = plu, padded = plu] = pluCandidates(label.plu) as [string, string?, string?];
    const row = await repo.findProductByPluSpellings(db.orm, companyId, [plu, bare, padded]);
    const product = row ? { id: row.id, name: row.name, base_price: moneyToNumber(row.base_price) } : null;
    const amountCents =
      label.value === 'price' ? label.priceCents : row ? lineTotalCents(row.base_price, fromMilli(label.weightGrams!)) : null;
    return {
      problem: null,
      plu: label.plu,
      value: label.value,
      price: label.priceCents === null ? null : label.priceCents / 100,
      weight: label.weightGrams === null ? null : label.weightGrams / 1000,
      product,
      amount: amountCents === null ? null : amountCents / 100,
    };
  }

  return { read, update, preview };
}

export type ScaleSettings = ReturnType<typeof createScaleSettings>;
