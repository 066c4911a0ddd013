import { decodeScaleLabel, parseScaleLabelLayout, type ScaleLabel, type ScaleLabelLayout } from '../scanner/scale-label.ts';

/**
 * The register's one door to the scanner's scale-label decoder (src/modules/scanner/scale-label.ts):
 * the company's stored setting (`settings.scaleLabel`) → its layout → the decoded label, or null
 * when scale labels are off or the code is not one. Used by the server and, bundled, by /caja.
 */
export function registerScaleLayout(setting: unknown): ScaleLabelLayout | null {
  return parseScaleLabelLayout(setting).layout;
}

export function readScaleLabel(code: string, layout: ScaleLabelLayout | null): ScaleLabel | null {
  return layout ? decodeScaleLabel(code, layout) : null;
}

export type { ScaleLabel, ScaleLabelLayout };
