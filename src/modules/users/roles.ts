/** A person's role in a company. Its own file so repos can name it without importing the service. */
export type MembershipRole = 'admin' | 'cashier';
export const MEMBERSHIP_ROLES: readonly MembershipRole[] = ['admin', 'cashier'];
