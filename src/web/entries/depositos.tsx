import { useState } from 'preact/hooks';
import { DiscountLimitCard } from '../features/register/discount-limit.tsx';
import { api, errorText } from '../ui/api.ts';
import { InlineForm } from '../ui/form.tsx';
import { Card, PageTitle, TableWrap } from '../ui/layout.tsx';
import { Notice, useNotice } from '../ui/notice.tsx';
import { mountPage } from '../ui/page-data.ts';

interface Named {
  id: number;
  name: string;
}
interface PlacesData {
  categories: (Named & { products: number })[];
  deposits: (Named & { is_default: boolean })[];
  boxes: (Named & { deposit_id: number })[];
}

function Rename({ id, value, onSave }: { id: string; value: string; onSave: (name: string) => Promise<void> }) {
  const [name, setName] = useState(value);
  return (
    <form
      class="row"
      onSubmit={(e) => {
        e.preventDefault();
        if (name.trim() && name !== value) void onSave(name.trim());
      }}
    >
      <label for={id} class="visually-hidden">
        Nombre
      </label>
      <input id={id} value={name} maxLength={120} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      <button type="submit" class="secondary" disabled={!name.trim() || name === value}>
        Renombrar
      </button>
    </form>
  );
}

function Places(initial: PlacesData) {
  const [data, setData] = useState(initial);
  const [notice, say] = useNotice();
  const [newCategory, setNewCategory] = useState('');
  const [newDeposit, setNewDeposit] = useState('');
  const [newBox, setNewBox] = useState('');

  async function reload() {
    const [categories, deposits, boxes] = await Promise.all([
      api<{ categories: PlacesData['categories'] }>('GET', '/api/v1/categories'),
      api<{ deposits: PlacesData['deposits'] }>('GET', '/api/v1/deposits'),
      api<{ boxes: PlacesData['boxes'] }>('GET', '/api/v1/boxes'),
    ]);
    setData({ categories: categories.categories, deposits: deposits.deposits, boxes: boxes.boxes });
  }
  async function run(action: () => Promise<unknown>, done: string) {
    try {
      await action();
      say('ok', done);
      await reload();
    } catch (err) {
      say('error', errorText(err));
    }
  }
  const conflict = { conflict: 'Ya existe una con ese nombre.' };

  return (
    <>
      <PageTitle lead="Cómo ordenás tus productos, dónde guardás la mercadería y desde qué depósito vende cada caja.">
        Categorías, depósitos y cajas
      </PageTitle>
      <Notice notice={notice} />
      <Card title="Depósitos" id="deposits">
        <TableWrap>
          <tbody>
            {data.deposits.map((d) => (
              <tr key={d.id}>
                <td>
                  <Rename
                    id={`deposit-${d.id}`}
                    value={d.name}
                    onSave={(name) =>
                      run(() => api('PATCH', `/api/v1/deposits/${d.id}`, { body: { name } }), `Depósito renombrado: ${name}.`)
                    }
                  />
                </td>
                <td class="muted">{d.is_default ? 'Principal' : ''}</td>
              </tr>
            ))}
          </tbody>
        </TableWrap>
        <InlineForm
          id="new-deposit"
          label="Nuevo depósito"
          value={newDeposit}
          onValue={setNewDeposit}
          buttonId="add-deposit"
          buttonLabel="Agregar"
          input={{ required: true, maxLength: 120 }}
          onSubmit={() =>
            run(async () => {
              await api('POST', '/api/v1/deposits', { body: { name: newDeposit } });
              setNewDeposit('');
            }, `Depósito agregado: ${newDeposit}.`)
          }
        />
      </Card>
      <Card title="Cajas" id="boxes">
        <TableWrap>
          <tbody>
            {data.boxes.map((b) => (
              <tr key={b.id}>
                <td>
                  <Rename
                    id={`box-${b.id}`}
                    value={b.name}
                    onSave={(name) =>
                      run(() => api('PATCH', `/api/v1/boxes/${b.id}`, { body: { name } }), `Caja renombrada: ${name}.`)
                    }
                  />
                </td>
                <td>
                  <label for={`box-deposit-${b.id}`}>Vende desde</label>{' '}
                  <select
                    id={`box-deposit-${b.id}`}
                    value={String(b.deposit_id)}
                    onChange={(e) => {
                      const deposit_id = Number((e.target as HTMLSelectElement).value);
                      void run(
                        () => api('PATCH', `/api/v1/boxes/${b.id}`, { body: { deposit_id } }),
                        `${b.name} vende desde otro depósito.`,
                      );
                    }}
                  >
                    {data.deposits.map((d) => (
                      <option key={d.id} value={d.id}>
                        {d.name}
                      </option>
                    ))}
                  </select>
                </td>
              </tr>
            ))}
          </tbody>
        </TableWrap>
        <InlineForm
          id="new-box"
          label="Nueva caja"
          value={newBox}
          onValue={setNewBox}
          buttonId="add-box"
          buttonLabel="Agregar"
          input={{ required: true, maxLength: 120 }}
          onSubmit={() =>
            run(async () => {
              await api('POST', '/api/v1/boxes', { body: { name: newBox } });
              setNewBox('');
            }, `Caja agregada: ${newBox}.`)
          }
        />
      </Card>
      <DiscountLimitCard />
      <Card title="Categorías" id="categories">
        {data.categories.length === 0 ? <p class="muted">Todavía no hay categorías.</p> : null}
        <TableWrap>
          <tbody>
            {data.categories.map((c) => (
              <tr key={c.id}>
                <td>
                  <Rename
                    id={`category-${c.id}`}
                    value={c.name}
                    onSave={(name) =>
                      run(
                        () => api('PATCH', `/api/v1/categories/${c.id}`, { body: { name }, messages: conflict }),
                        `Categoría renombrada: ${name}.`,
                      )
                    }
                  />
                </td>
                <td class="muted">{c.products === 1 ? '1 producto' : `${c.products} productos`}</td>
              </tr>
            ))}
          </tbody>
        </TableWrap>
        <InlineForm
          id="new-category"
          label="Nueva categoría"
          value={newCategory}
          onValue={setNewCategory}
          buttonId="add-category"
          buttonLabel="Agregar"
          input={{ required: true, maxLength: 120 }}
          onSubmit={() =>
            run(async () => {
              await api('POST', '/api/v1/categories', { body: { name: newCategory }, messages: conflict });
              setNewCategory('');
            }, `Categoría agregada: ${newCategory}.`)
          }
        />
      </Card>
    </>
  );
}

mountPage<PlacesData>((data) => <Places {...data} />);
