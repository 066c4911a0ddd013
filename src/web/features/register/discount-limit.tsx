import { useEffect, useState } from 'preact/hooks';
import { parseDecimal } from '../../../lib/money.ts';
import { api, errorText } from '../../ui/api.ts';
import { Card } from '../../ui/layout.tsx';
import { Notice, useNotice } from '../../ui/notice.tsx';

/**
 * The owner's limit for cashiers' discounts at the register (GET/PUT /api/v1/register/settings):
 * beyond it, an admin approves the discount on the cashier's screen.
 */
export function DiscountLimitCard() {
  const [value, setValue] = useState('');
  const [saved, setSaved] = useState<number | null>(null);
  const [notice, say] = useNotice();
  useEffect(() => {
    api<{ discount_limit_percent: number }>('GET', '/api/v1/register/settings')
      .then((s) => {
        setSaved(s.discount_limit_percent);
        setValue(String(s.discount_limit_percent).replace('.', ','));
      })
      .catch((err) => say('error', errorText(err)));
  }, []);

  async function save(e: Event) {
    e.preventDefault();
    const parsed = parseDecimal(value.trim());
    const percent = parsed === null ? Number.NaN : Number(parsed);
    if (!(percent >= 0 && percent <= 100)) {
      say('error', 'Escribí un porcentaje entre 0 y 100, por ejemplo 10 o 12,5.');
      return;
    }
    try {
      const s = await api<{ discount_limit_percent: number }>('PUT', '/api/v1/register/settings', {
        body: { discount_limit_percent: percent },
      });
      setSaved(s.discount_limit_percent);
      say(
        'ok',
        `Listo: los cajeros descuentan hasta ${String(s.discount_limit_percent).replace('.', ',')}\u00a0% sin aprobación.`,
      );
    } catch (err) {
      say('error', errorText(err));
    }
  }

  return (
    <Card title="Descuentos en la caja" id="discount-limit">
      <p class="muted">
        Hasta este porcentaje (por línea y en total de la venta) un cajero descuenta solo; más allá, un administrador lo aprueba
        en la caja con su email y contraseña. Todo queda en la actividad.
      </p>
      <form class="row" onSubmit={(e) => void save(e)}>
        <label for="discount-limit-input">Descuento máximo para cajeros (%)</label>
        <input
          id="discount-limit-input"
          inputMode="decimal"
          autoComplete="off"
          class="percent-input"
          value={value}
          disabled={saved === null}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
        />
        <button type="submit" class="secondary" id="discount-limit-save" disabled={saved === null}>
          Guardar
        </button>
      </form>
      <Notice notice={notice} id="discount-limit-notice" />
    </Card>
  );
}
