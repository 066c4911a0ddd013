import type { MembershipRole } from '../../db/schema/index.ts';

/** A person's role in a company (the type lives with the memberships table). */
export type { MembershipRole };
export const MEMBERSHIP_ROLES: readonly MembershipRole[] = ['admin', 'cashier'];
