/**
 * The brain of the sales agent: given the newest inbound text (and the thread before it) it
 * decides to reply or to hand the conversation to a person. Any brain's answer then goes through
 * the guardrails (guardrails.ts) before anything is stored or sent.
 */
export type Decision = 'reply' | 'handoff';

export type HandoffReason =
  | 'asked_for_human'
  | 'firm_objection'
  | 'closing_sale'
  | 'price_negotiation'
  | 'low_confidence'
  | 'automation_disclosure'
  | 'unpublished_amount'
  | 'empty_reply'
  | 'too_long'
  | 'brain_error';

export interface BrainAnswer {
  decision: Decision;
  reply?: string | null;
  handoff_reason?: string | null;
  confidence: number;
}

export interface HistoryItem {
  /** customer: the prospect; us: our account (the agent or the operator). */
  from: 'customer' | 'us';
  text: string;
}

export interface BrainInput {
  /** What the person wrote since our last message, oldest first, joined by new lines. */
  text: string;
  /** The thread before it, oldest first (at most the last 20 messages). */
  history: HistoryItem[];
}

export interface Brain {
  readonly name: string;
  decide(input: BrainInput): Promise<BrainAnswer>;
}

/** Below this confidence no brain's reply is sent: the conversation goes to a person. */
export const MIN_CONFIDENCE = 0.6;
