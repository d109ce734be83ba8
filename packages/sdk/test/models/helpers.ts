// Shared test helpers: fixture loading and event collection.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ModelEvent } from '../../src/models/types';

const dir = fileURLToPath(new URL('../fixtures/provider-streams/', import.meta.url));

/** Reads a recorded transcript from test/fixtures/provider-streams. */
export function fixture(name: string): string {
  return readFileSync(`${dir}${name}`, 'utf8');
}

/** Drains a stream into an array. */
export async function drain(events: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** Concatenated text of text_delta events. */
export function textOf(events: ModelEvent[]): string {
  return events.map((e) => (e.type === 'text_delta' ? e.text : '')).join('');
}

/** Concatenated thinking of thinking_delta events. */
export function thinkingOf(events: ModelEvent[]): string {
  return events.map((e) => (e.type === 'thinking_delta' ? e.thinking : '')).join('');
}

/** The events of one type. */
export function ofType<T extends ModelEvent['type']>(events: ModelEvent[], type: T): Array<Extract<ModelEvent, { type: T }>> {
  return events.filter((e): e is Extract<ModelEvent, { type: T }> => e.type === type);
}

/** A retry policy with tiny delays for tests. */
export const fastRetry = { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 3 };
