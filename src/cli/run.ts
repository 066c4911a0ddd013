import { ConfigError, loadConfig, loadDotEnv } from '../config.ts';
import { type Container, createContainer } from '../container.ts';
import { DataDirInUseError } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';
import { isAppError } from '../lib/errors.ts';
import { createLogger } from '../logger.ts';
import { UsageError } from './args.ts';
import { COMMANDS } from './commands.ts';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export const USAGE = `Usage: npm run --silent cli -- <command> [options] [--json]

Commands:
  migrate                                   apply pending database migrations
  demo                                      create a demo company with catalogue, stock and sales
  company create --name NAME [--cuit CUIT]  create a company; prints its integration key and scanner token
  company keys rotate --company ID [--integration] [--scanner]
                                            replace the secrets (both when no flag is given)
  user create --email E --password P [--superadmin] [--company ID --role admin|cashier]
  user disable --email E                    block a user's logins and end their open sessions
  user password --email E --password P      set a new password and end the user's open sessions
  agent decide --text "…" [--history-file F]
                                            ask the sales agent's brain (after its guardrails); no Instagram
  whatsapp setup --phone-number-id N --waba-id N --token-file F [--display-number "+54 …"]
                                            the operator WhatsApp channel (token kept encrypted)
  whatsapp agent --on|--off                 let the sales agent answer on WhatsApp, or not
  webhook add --company ID --url URL [--events a,b] [--header "K: V"]... [--description D] [--secret S]
                                            register an outbound webhook; prints its signing secret once
  webhook list --company ID                 list the company's webhook endpoints
  webhook remove --company ID --id ENDPOINT_ID
                                            delete an endpoint and its delivery log
  token create --company ID --name N [--read-only]
                                            a company API token for /api/v1 (read-write unless
                                            --read-only); prints it once
  token list --company ID                   list the company's API tokens (never the tokens)
  token revoke --company ID --id TOKEN_ID   revoke an API token at once
  fiscal show --company ID                  the company's ARCA invoicing setup and what is missing
  fiscal set --company ID [--cuit C] [--iva-condition responsable_inscripto|monotributo|exento]
      [--legal-name N] [--address A] [--gross-income N] [--activity-start yyyy-mm-dd]
      [--auth-mode delegation|own_certificate] [--environment homologacion|produccion]
      [--points-of-sale 1,2] [--default-point-of-sale N] [--caea on|off] [--caea-point-of-sale N]
      [--caea-register-point-of-sale N|none]
                                            change the fiscal setup
  fiscal certificate --company ID --cert FILE [--key FILE]
                                            the company's own ARCA certificate (PEM) and key
  fiscal check --company ID                 "Probar conexión": FEDummy, login, points of sale
  caea status|request|inform --company ID   CAEA contingency: this and next fortnight's CAEA, ask ARCA
                                            for it now, inform the receipts issued under it now
  invoice issue --company ID --sale N [--doc-type cuit|cuil|dni --doc-number N] [--iva-condition ID]
      [--name N] [--point-of-sale N]        issue a sale's invoice with ARCA (CAE)
  books verify --company ID | --all         recompute the books from the raw rows and report each
                                            invariant; exit 1 on any difference

--json prints one JSON object on stdout (for scripts). Exit codes: 0 ok, 1 failed, 2 usage.
`;

/** The container the CLI works on: the same configuration as the server, logs to stderr. */
export async function buildCliContainer(): Promise<Container> {
  loadDotEnv();
  const config = loadConfig();
  return createContainer(config, { logger: createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr) });
}

/** Runs one CLI command and returns the exit code. Never calls the HTTP API: it works on the database directly. */
export async function runCli(argv: string[], io: CliIo, makeContainer: () => Promise<Container>): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h') {
    io.out(USAGE);
    return 0;
  }
  const command = COMMANDS.find((c) => c.words.every((word, i) => argv[i] === word));
  if (!command) {
    io.err(`error: unknown command "${argv.filter((a) => !a.startsWith('-')).join(' ')}"\n\n${USAGE}`);
    return 2;
  }
  let container: Container | null = null;
  try {
    const prepared = command.parse(argv.slice(command.words.length));
    container = await makeContainer();
    await migrate(container.db);
    const result = await command.run(container, prepared);
    io.out(prepared.json ? `${JSON.stringify(result.json)}\n` : `${result.text}\n`);
    return result.exitCode ?? 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`error: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    if (err instanceof ConfigError || err instanceof DataDirInUseError) {
      io.err(`error: ${err.message}\n`);
      return 2;
    }
    if (isAppError(err)) {
      io.err(`error: ${err.message}\n`);
      return 1;
    }
    io.err(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await container?.close();
  }
}
