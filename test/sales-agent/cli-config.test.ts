import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { runCliOn } from '../cli/run-cli.ts';

describe('agent decide (CLI)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => t?.close());

  it('prints exactly decision, reply, handoff_reason and confidence as JSON on stdout', async () => {
    const res = await runCliOn(t.container, ['agent', 'decide', '--text', '¿Cuánto sale el plan Cadena?', '--json']);
    expect(res.code).toBe(0);
    expect(res.err).toBe('');
    const json = JSON.parse(res.out);
    expect(Object.keys(json)).toEqual(['decision', 'reply', 'handoff_reason', 'confidence']);
    expect(json).toMatchObject({ decision: 'reply', handoff_reason: null, confidence: 0.85 });
    expect(json.reply).toContain('$\u00a069.900');
  });

  it('reads a history file and hands off a closing message', async () => {
    const file = join(tmpdir(), `history-${process.pid}.json`);
    writeFileSync(
      file,
      JSON.stringify([
        { from: 'customer', text: '¿Cuánto sale el plan Comercio?' },
        { from: 'us', text: 'El plan Comercio sale $ 24.900 por mes.' },
      ]),
    );
    const res = await runCliOn(t.container, [
      'agent',
      'decide',
      '--text',
      'Dale, pasame el alias',
      '--history-file',
      file,
      '--json',
    ]);
    expect(JSON.parse(res.out)).toEqual({ decision: 'handoff', reply: null, handoff_reason: 'closing_sale', confidence: 0.9 });
  });

  it('usage errors: no text, a bad history file', async () => {
    expect((await runCliOn(t.container, ['agent', 'decide', '--json'])).code).toBe(2);
    const bad = join(tmpdir(), `history-bad-${process.pid}.json`);
    writeFileSync(bad, '[{"from":"bot","text":"x"}]');
    expect((await runCliOn(t.container, ['agent', 'decide', '--text', 'hola', '--history-file', bad])).code).toBe(2);
  });
});

describe('sales agent settings', () => {
  const base = { DATA_DIR: join(tmpdir(), `cfg-${process.pid}`), SECRET_KEY: 'x'.repeat(40) };
  it('is off by default, with the rules brain', () => {
    const config = loadConfig(base);
    expect(config.salesAgent).toEqual({
      enabled: false,
      accountId: null,
      senderIds: [],
      whatsappNumberId: null,
      whatsappSenderIds: [],
      llm: null,
    });
  });
  it('reads the account, a list of senders and the model endpoint', () => {
    const config = loadConfig({
      ...base,
      SALES_AGENT_ENABLED: 'yes',
      SALES_AGENT_ACCOUNT_ID: '17841400000000000',
      SALES_AGENT_SENDER_IDS: '71, 72 ,73',
      LLM_BASE_URL: 'https://llm.example/v1/',
      LLM_API_KEY: 'sk-1',
      LLM_MODEL: 'gpt-x',
    });
    expect(config.salesAgent).toEqual({
      enabled: true,
      accountId: '17841400000000000',
      senderIds: ['71', '72', '73'],
      whatsappNumberId: null,
      whatsappSenderIds: [],
      llm: { baseUrl: 'https://llm.example/v1', apiKey: 'sk-1', model: 'gpt-x', timeoutMs: 8000 },
    });
  });
  it('refuses an enabled agent without account or senders, bad ids and half a model setting', () => {
    expect(() => loadConfig({ ...base, SALES_AGENT_ENABLED: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, SALES_AGENT_SENDER_IDS: 'juan' })).toThrow(/SALES_AGENT_SENDER_IDS/);
    expect(() => loadConfig({ ...base, LLM_BASE_URL: 'https://llm.example/v1' })).toThrow(/LLM_MODEL/);
  });
  it('reads the WhatsApp number and senders (issue 31); either channel is enough to turn it on', () => {
    const config = loadConfig({
      ...base,
      SALES_AGENT_ENABLED: 'true',
      SALES_AGENT_WHATSAPP_NUMBER_ID: '106540352242922',
      SALES_AGENT_WHATSAPP_SENDER_IDS: '+5491155550001, 5491166660002',
    });
    expect(config.salesAgent).toMatchObject({
      enabled: true,
      accountId: null,
      whatsappNumberId: '106540352242922',
      whatsappSenderIds: ['5491155550001', '5491166660002'],
    });
    expect(() => loadConfig({ ...base, SALES_AGENT_ENABLED: 'true' })).toThrow(/SALES_AGENT_WHATSAPP_NUMBER_ID/);
    expect(() => loadConfig({ ...base, SALES_AGENT_WHATSAPP_NUMBER_ID: '106540352242922' })).toThrow(/go together/);
    expect(() => loadConfig({ ...base, SALES_AGENT_WHATSAPP_NUMBER_ID: '1', SALES_AGENT_WHATSAPP_SENDER_IDS: 'abc' })).toThrow(
      /wa_id|digits/,
    );
  });
});
