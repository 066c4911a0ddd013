import type { Container } from '../../container.ts';

export interface DemoResult {
  banner: string;
}

/** Placeholder replaced by the demo seed in the same change set. */
export async function seedDemoIfEmpty(_container: Container): Promise<DemoResult | null> {
  return null;
}
