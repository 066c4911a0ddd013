-- A person's id (users.id) is one numbering for all of Mostrador: a company that saw its people
-- numbered 1, 2 and then 6 learnt that the other companies had added three people in between. Each
-- membership now carries the company's own number for that person (member_no), and the company
-- sees that number wherever it sees a person; users.id stays inside (sessions, foreign keys).
--
-- Existing memberships are numbered per company in the order people joined (created_at, then the
-- user id). New ones take the company's counter (company_id_counters, kind 'memberships'), whose
-- row the insert locks: two people joining at once get different numbers, and a number is never
-- handed out again, even if the membership row were deleted later (memberships are kept when a
-- person's access is turned off; the counter only grows). The trigger numbers every insert, the
-- invitation, the command line and an operator's new company alike; an insert that only changes the
-- role of an existing membership (upsert) keeps its number and takes none.
ALTER TABLE company_id_counters DROP CONSTRAINT company_id_counters_kind_check;
ALTER TABLE company_id_counters ADD CONSTRAINT company_id_counters_kind_check CHECK (kind IN ('categories', 'products',
  'deposits', 'movements', 'customers', 'boxes', 'sales', 'invoices', 'box_sessions', 'invoice_attempts', 'account_payments',
  'api_tokens', 'caea_blocks', 'memberships'));

ALTER TABLE memberships ADD COLUMN member_no integer;

UPDATE memberships m SET member_no = n.no
  FROM (SELECT company_id, user_id, row_number() OVER (PARTITION BY company_id ORDER BY created_at, user_id) AS no
          FROM memberships) n
  WHERE n.company_id = m.company_id AND n.user_id = m.user_id;

ALTER TABLE memberships ALTER COLUMN member_no SET NOT NULL;
ALTER TABLE memberships ADD CONSTRAINT memberships_member_no_check CHECK (member_no > 0);
ALTER TABLE memberships ADD CONSTRAINT memberships_company_member_no_key UNIQUE (company_id, member_no);

INSERT INTO company_id_counters (company_id, kind, next_id)
  SELECT company_id, 'memberships', max(member_no) + 1 FROM memberships GROUP BY company_id;

CREATE FUNCTION number_membership() RETURNS trigger
  LANGUAGE plpgsql
AS $$
BEGIN
  IF NEW.member_no IS NOT NULL THEN
    RETURN NEW;
  END IF;
  -- An upsert of a membership that exists only changes its role: it keeps its number.
  SELECT m.member_no INTO NEW.member_no FROM memberships m
    WHERE m.company_id = NEW.company_id AND m.user_id = NEW.user_id;
  IF NEW.member_no IS NOT NULL THEN
    RETURN NEW;
  END IF;
  INSERT INTO company_id_counters AS c (company_id, kind, next_id) VALUES (NEW.company_id, 'memberships', 2)
    ON CONFLICT (company_id, kind) DO UPDATE SET next_id = c.next_id + 1
    RETURNING c.next_id - 1 INTO NEW.member_no;
  RETURN NEW;
END;
$$;

CREATE TRIGGER memberships_number BEFORE INSERT ON memberships
  FOR EACH ROW EXECUTE FUNCTION number_membership();
