/** What the browser may know about its own session (GET /api/auth/me, the account page); never the token. */
export interface SessionWire {
  /**
   * `id` is the person's number in the session's company (memberships.member_no), the one its people
   * list and register show; null while the session has no company. Never the account's users.id.
   */
  user: { id: number | null; email: string; display_name: string | null; is_superadmin: boolean };
  company: { id: number; name: string | null; role: 'admin' | 'cashier' | null } | null;
  companies: { id: number; name: string; role: 'admin' | 'cashier' }[];
  session: { kind: string; expires_at: string };
  /** A temporary password: nothing else works until the person sets their own (issue 29). */
  must_change_password: boolean;
}
