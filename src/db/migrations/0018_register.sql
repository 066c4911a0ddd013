-- The cash register (/caja, /api/v1/sales, /api/v1/box-sessions): box sessions (turnos de caja),
-- cash in/out, the register's own facts about a sale and the payments of a sale.
-- Sales themselves stay in `sales`/`sale_items` (0001); integration-received sales have no row in
-- register_sales, which is how the two sources are told apart.

-- A box session: opened with the opening cash, closed with what was counted per payment method.
CREATE TABLE box_sessions (
  company_id integer NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  id integer NOT NULL CHECK (id > 0),
  box_id integer NOT NULL,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
  opening_cash numeric(14, 2) NOT NULL CHECK (opening_cash >= 0),
  opened_at timestamptz NOT NULL DEFAULT now(),
  opened_by text NOT NULL,
  -- At close: {method: "amount"} as counted, and the expected amounts computed then (frozen).
  counted jsonb,
  expected jsonb,
  closed_at timestamptz,
  closed_by text,
  note text,
  PRIMARY KEY (company_id, id),
  FOREIGN KEY (company_id, box_id) REFERENCES boxes (company_id, id),
  CHECK ((status = 'closed') = (closed_at IS NOT NULL))
);
-- One open session per box.
CREATE UNIQUE INDEX box_sessions_one_open ON box_sessions (company_id, box_id) WHERE status = 'open';
CREATE INDEX box_sessions_box_idx ON box_sessions (company_id, box_id, opened_at);

-- Cash put into (in) or taken out of (out) the drawer during a session.
CREATE TABLE box_cash_moves (
  company_id integer NOT NULL,
  session_id integer NOT NULL,
  id integer NOT NULL CHECK (id > 0),
  kind text NOT NULL CHECK (kind IN ('in', 'out')),
  amount numeric(14, 2) NOT NULL CHECK (amount > 0),
  reason text NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, session_id, id),
  FOREIGN KEY (company_id, session_id) REFERENCES box_sessions (company_id, id) ON DELETE CASCADE
);

-- What the register knows about a sale it made: the session and deposit, the idempotency key and
-- the hash of the request that used it, who sold it, and where a refund was booked.
CREATE TABLE register_sales (
  company_id integer NOT NULL,
  sale_id integer NOT NULL,
  box_session_id integer NOT NULL,
  deposit_id integer NOT NULL,
  idempotency_key text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 200),
  request_sha256 char(64) NOT NULL,
  customer_name text,
  sold_by text NOT NULL,
  -- When the register made the sale (the browser's clock for a sale queued offline).
  sold_at timestamptz NOT NULL,
  change numeric(14, 2) NOT NULL DEFAULT 0 CHECK (change >= 0),
  refund_session_id integer,
  PRIMARY KEY (company_id, sale_id),
  FOREIGN KEY (company_id, sale_id) REFERENCES sales (company_id, id) ON DELETE CASCADE,
  FOREIGN KEY (company_id, box_session_id) REFERENCES box_sessions (company_id, id),
  FOREIGN KEY (company_id, refund_session_id) REFERENCES box_sessions (company_id, id),
  FOREIGN KEY (company_id, deposit_id) REFERENCES deposits (company_id, id)
);
CREATE UNIQUE INDEX register_sales_key ON register_sales (company_id, idempotency_key);
CREATE INDEX register_sales_session_idx ON register_sales (company_id, box_session_id);
CREATE INDEX register_sales_refund_idx ON register_sales (company_id, refund_session_id) WHERE refund_session_id IS NOT NULL;

-- The payments of a sale. amount is what counts toward the total; for cash, tendered is what the
-- customer handed and change = tendered - amount.
CREATE TABLE sale_payments (
  company_id integer NOT NULL,
  sale_id integer NOT NULL,
  id integer NOT NULL CHECK (id > 0),
  method text NOT NULL
    CHECK (method IN ('efectivo', 'debito', 'credito', 'transferencia', 'qr', 'cuenta_corriente')),
  amount numeric(14, 2) NOT NULL CHECK (amount > 0),
  tendered numeric(14, 2),
  change numeric(14, 2) NOT NULL DEFAULT 0 CHECK (change >= 0),
  reference text,
  box_session_id integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, sale_id, id),
  FOREIGN KEY (company_id, sale_id) REFERENCES sales (company_id, id) ON DELETE CASCADE,
  FOREIGN KEY (company_id, box_session_id) REFERENCES box_sessions (company_id, id),
  CHECK (method = 'efectivo' OR (tendered IS NULL AND change = 0))
);
CREATE INDEX sale_payments_session_idx ON sale_payments (company_id, box_session_id);
CREATE INDEX sales_created_idx ON sales (company_id, created_at);
