// How archived messages are shown: display caps (never applied to what is stored), ANSI stripped.
import type { JsonValue } from '../core/records';

/** Per-message display caps, in characters. */
export const DISPLAY_CAPS = { window: 4000, bookend: 1200, read: 2000, preview: 80 } as const;

/** A stored message row as the search reads it. */
export interface MessageRow {
  id: number;
  session_id: string;
  role: string;
  content: string;
  timestamp: number;
  provenance: string;
  tool_name: string | null;
  tool_call_id: string | null;
  tool_calls: string | null;
  tool_status: string | null;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences start with ESC.
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007]*\u0007/g;

/** Cuts text to `cap` code points. */
export function capText(text: string, cap: number): { text: string; cut: boolean; chars: number } {
  const clean = text.replace(ANSI, '');
  const chars = [...clean];
  return chars.length <= cap
    ? { text: clean, cut: false, chars: chars.length }
    : { text: chars.slice(0, cap).join(''), cut: true, chars: chars.length };
}

/** A message for the model: id, role, time, provenance, content (capped) and its tool links. */
export function messageView(row: MessageRow, cap: number, anchor = false): Record<string, JsonValue> {
  const c = capText(row.content, cap);
  const view: Record<string, JsonValue> = {
    id: row.id,
    role: row.role,
    timestamp: new Date(row.timestamp).toISOString(),
    provenance: row.provenance,
    content: c.text,
  };
  if (c.cut) {
    view.content_truncated = true;
    view.original_content_chars = c.chars;
  }
  if (row.tool_name) view.tool_name = row.tool_name;
  if (row.tool_call_id) view.tool_call_id = row.tool_call_id;
  if (row.tool_calls) view.tool_calls = row.tool_calls;
  if (row.tool_status) view.tool_status = row.tool_status;
  if (anchor) view.anchor = true;
  return view;
}

/** Marks the first case-insensitive occurrence of `term` in a snippet with `>>>`/`<<<`. */
export function markSnippet(snippet: string, term: string): string {
  const clean = snippet.replace(ANSI, '');
  if (!term) return clean;
  const i = clean.toLowerCase().indexOf(term.toLowerCase());
  return i < 0 ? clean : `${clean.slice(0, i)}>>>${clean.slice(i, i + term.length)}<<<${clean.slice(i + term.length)}`;
}
