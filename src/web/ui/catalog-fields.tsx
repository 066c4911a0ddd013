import { IVA_RATES, ivaLabel } from './catalog.ts';
import { Field } from './form.tsx';

/** The IVA rate of a product, labelled. */
export function IvaField({ id, value, onChange }: { id: string; value: string; onChange: (e: Event) => void }) {
  return (
    <Field id={id} label="IVA">
      <select id={id} value={value} onChange={onChange}>
        {IVA_RATES.map((rate) => (
          <option key={rate} value={rate}>
            {ivaLabel(rate)}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** The category of a product ("" for none), labelled. */
export function CategoryField({
  id,
  value,
  categories,
  onChange,
}: {
  id: string;
  value: string;
  categories: { id: number; name: string }[];
  onChange: (e: Event) => void;
}) {
  return (
    <Field id={id} label="Categoría">
      <select id={id} value={value} onChange={onChange}>
        <option value="">Sin categoría</option>
        {categories.map((c) => (
          <option key={c.id} value={c.id}>
            {c.name}
          </option>
        ))}
      </select>
    </Field>
  );
}
