import { readFileSync } from 'node:fs';
import type { HistoryItem } from '../modules/sales-agent/brain.ts';
import { parseOptions, requireOption, UsageError } from './args.ts';
import { type Command, define } from './command.ts';

/** `--history-file F`: a JSON list of {from: "customer"|"us", text}, oldest first. */
function readHistory(path: string | undefined): HistoryItem[] {
  if (path === undefined) return [];
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`--history-file ${path} is not readable JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(data)) throw new UsageError('--history-file must hold a JSON list of {"from":"customer"|"us","text":"…"}');
  return data.map((item, i) => {
    const from = (item as { from?: unknown })?.from;
    const text = (item as { text?: unknown })?.text;
    if ((from !== 'customer' && from !== 'us') || typeof text !== 'string') {
      throw new UsageError(`--history-file item ${i} needs "from" ("customer" or "us") and "text"`);
    }
    return { from, text };
  });
}

/** `agent decide`: asks the configured brain, through the guardrails, without Instagram. */
export const AGENT_COMMANDS: Command[] = [
  define({
    words: ['agent', 'decide'],
    parse: (args) => {
      const o = parseOptions(args, { text: { type: 'string' }, 'history-file': { type: 'string' } });
      const text = requireOption(o.text, 'text');
      if (text.trim() === '') throw new UsageError('--text must not be empty');
      return { text, history: readHistory(o['history-file']), json: o.json };
    },
    async run(container, { text, history }) {
      const answer = await container.salesAgent.service.decide({ text, history });
      const json = {
        decision: answer.decision,
        reply: answer.reply,
        handoff_reason: answer.handoff_reason,
        confidence: answer.confidence,
      };
      const lines =
        answer.decision === 'reply'
          ? [`Respuesta (confianza ${answer.confidence.toFixed(2)}):`, answer.reply ?? '']
          : [`Pasa a una persona: ${answer.handoff_reason} (confianza ${answer.confidence.toFixed(2)})`];
      if (answer.guardrails.length) lines.push(`Controles aplicados: ${answer.guardrails.join(', ')}`);
      return { json, text: lines.join('\n') };
    },
  }),
];
