import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local OpenAI-compatible chat server: `POST /v1/chat/completions` with a Bearer key answers the
 * real `chat.completion` object (choices[].message.content as a JSON string, finish_reason, usage).
 * `answer` decides the content per request; `delayMs` stalls the headers; `status` forces an error.
 */
export interface FakeLlm {
  url: string;
  apiKey: string;
  requests: { authorization: string | null; body: Record<string, unknown> }[];
  answer: (body: Record<string, unknown>) => unknown;
  delayMs: number;
  status: number;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeLlm(): Promise<FakeLlm> {
  const fake: FakeLlm = {
    url: '',
    apiKey: `sk-test-${randomBytes(8).toString('hex')}`,
    requests: [],
    answer: () => ({ decision: 'handoff', reply: null, handoff_reason: 'low_confidence', confidence: 0.1 }),
    delayMs: 0,
    status: 200,
    close: async () => {},
  };
  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      return send(404, { error: { message: `Unknown request URL: ${req.method} ${req.url}`, type: 'invalid_request_error' } });
    }
    const authorization = req.headers.authorization ?? null;
    const raw = await readBody(req);
    if (authorization !== `Bearer ${fake.apiKey}`) {
      return send(401, {
        error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
      });
    }
    const body = JSON.parse(raw) as Record<string, unknown>;
    fake.requests.push({ authorization, body });
    if (fake.delayMs > 0) await new Promise((r) => setTimeout(r, fake.delayMs));
    if (res.destroyed) return;
    if (fake.status !== 200) return send(fake.status, { error: { message: 'The server had an error', type: 'server_error' } });
    const answer = fake.answer(body);
    const content = typeof answer === 'string' ? answer : JSON.stringify(answer);
    return send(200, {
      id: `chatcmpl-${randomBytes(12).toString('hex')}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body['model'],
      choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 812, completion_tokens: 64, total_tokens: 876 },
      system_fingerprint: 'fp_fake',
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
