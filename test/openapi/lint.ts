import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Document, Spectral } from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';

/** One finding of a linter, printable in a failure message. */
export interface Finding {
  tool: 'redocly' | 'spectral';
  rule: string;
  severity: string;
  where: string;
  message: string;
}

/** Redocly's `recommended` ruleset over a document (offline: no external references). */
export async function redocly(document: object): Promise<Finding[]> {
  const config = await createConfig({
    extends: ['recommended'],
    rules: {
      // Switched off, on purpose: Mostrador is a private service and its API has no licence to state;
      // writing one in would make the document say something untrue.
      'info-license': 'off',
    },
  });
  const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
  return problems.map((p) => ({
    tool: 'redocly',
    rule: p.ruleId,
    severity: p.severity,
    where: p.location[0]?.pointer ?? '',
    message: p.message,
  }));
}

/** Spectral's `spectral:oas` ruleset (its recommended rules, as `extends: spectral:oas` runs them; errors and warnings) over a document. */
export async function spectral(document: object): Promise<Finding[]> {
  const linter = new Spectral();
  linter.setRuleset({
    extends: [[oas, 'recommended']],
    rules: {
      // Switched off, on purpose: every operation has a `summary` (a line the docs site, Redoc and the
      // generated clients show); a `description` repeating it would add nothing. A test below checks
      // that every operation has a non-empty summary instead.
      'operation-description': 'off',
    },
  } as unknown as Parameters<Spectral['setRuleset']>[0]);
  const results = await linter.run(new Document(JSON.stringify(document), Json));
  const severities = ['error', 'warn', 'info', 'hint'];
  return results
    .filter((r) => r.severity <= 1)
    .map((r) => ({
      tool: 'spectral',
      rule: String(r.code),
      severity: severities[r.severity] ?? String(r.severity),
      where: r.path.join('.'),
      message: r.message,
    }));
}
