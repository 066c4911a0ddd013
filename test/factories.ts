import { randomBytes } from 'node:crypto';
import type { Container } from '../src/container.ts';
import { type ProductInput, upsertProduct } from '../src/modules/catalog/products.service.ts';

let counter = 0;
const unique = () => `${process.pid}-${++counter}-${randomBytes(2).toString('hex')}`;

/** A new company with its secrets; each test makes its own. */
export async function makeCompany(container: Container, partial: { name?: string; cuit?: string } = {}) {
  const created = await container.companies.createCompany({
    name: partial.name ?? `Comercio ${unique()}`,
    cuit: partial.cuit ?? null,
  });
  return { id: created.company.id, ...created };
}

export async function makeProduct(container: Container, companyId: number, partial: ProductInput = {}) {
  return container.db.orm.transaction(async (tx) => {
    const { product } = await upsertProduct(
      tx,
      companyId,
      { name: `Producto ${unique()}`, basePrice: 100, ...partial },
      { now: container.clock.now() },
    );
    return product;
  });
}

export async function makeUser(
  container: Container,
  partial: { email?: string; password?: string; superadmin?: boolean; companyId?: number; role?: 'admin' | 'cashier' } = {},
) {
  const password = partial.password ?? `pw-${unique()}-long`;
  const user = await container.users.createUser({
    email: partial.email ?? `user-${unique()}@example.com`,
    password,
    superadmin: partial.superadmin ?? false,
    ...(partial.companyId !== undefined ? { membership: { companyId: partial.companyId, role: partial.role ?? 'admin' } } : {}),
  });
  return {
    ...user,
    password,
    memberNo: partial.companyId === undefined ? null : await memberNoOf(container, partial.companyId, user.id),
  };
}

/**
 * The company's own number for one of its people (memberships.member_no): what the company sees
 * and sends as `user_id` (the people list, `:userId`, shifts, /me), never the account's users.id.
 */
export async function memberNoOf(container: Container, companyId: number, userId: number): Promise<number> {
  const rows = await container.db.query<{ member_no: number }>(
    'SELECT member_no FROM memberships WHERE company_id = $1 AND user_id = $2',
    [companyId, userId],
  );
  if (!rows[0]) throw new Error(`user ${userId} is not one of company ${companyId}'s people`);
  return Number(rows[0].member_no);
}
