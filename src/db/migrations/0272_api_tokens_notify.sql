-- A merchant API request no longer reads its token's row every time: each process keeps the valid
-- tokens it has seen (issue 33, token-cache.ts) while it LISTENs on mostrador_api_tokens. Whatever
-- changes who a token is or whether it counts (revoked, scope, name, company, hash; a row deleted,
-- as when its company goes) announces itself here as its transaction commits, and every process
-- drops its copies. Recording a use (last_used_at) announces nothing.
CREATE FUNCTION notify_api_tokens() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('mostrador_api_tokens', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER api_tokens_changed AFTER UPDATE ON api_tokens
  FOR EACH ROW
  WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.scope IS DISTINCT FROM NEW.scope
    OR OLD.name IS DISTINCT FROM NEW.name OR OLD.company_id IS DISTINCT FROM NEW.company_id
    OR OLD.token_hash IS DISTINCT FROM NEW.token_hash)
  EXECUTE FUNCTION notify_api_tokens();

CREATE TRIGGER api_tokens_removed AFTER DELETE OR TRUNCATE ON api_tokens
  FOR EACH STATEMENT EXECUTE FUNCTION notify_api_tokens();
