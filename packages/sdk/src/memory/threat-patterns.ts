// The threat pattern table: one row per pattern (id, category, scope, regex), shared by every scan.

/**
 * How strict a scan is. Scopes are cumulative: a pattern of scope `all` applies in every scan,
 * `context` in context and strict scans, `strict` in strict scans only. Memory writes and the
 * masking of a memory snapshot scan `strict`.
 * @public
 */
export type ThreatScope = 'all' | 'context' | 'strict';

/** One row of the threat table. @public */
export interface ThreatPattern {
  /** Stable id, reported with a finding (e.g. `prompt_injection`). */
  readonly id: string;
  /** Category: classic injection, secret exfiltration, role hijack, c2, offensive framework, exfiltration, persistence, hard-coded secret. */
  readonly category: string;
  /** Least strict scan the row applies in. */
  readonly scope: ThreatScope;
  /** Case-insensitive, Unicode-aware; matched against the NFKC-normalised text. */
  readonly regex: RegExp;
}

// Bounded filler between keywords (at most 8 words), so no pattern backtracks badly.
const W = String.raw`(?:[\p{L}\p{N}_'’-]+[\s,.:;]+){0,8}?`;
const r = (source: string) => new RegExp(source, 'iu');

/**
 * The patterns, in scan order (the first match is the finding).
 * @public
 */
export const THREAT_PATTERNS: readonly ThreatPattern[] = Object.freeze([
  // Classic injection (all scans)
  {
    id: 'prompt_injection',
    category: 'classic_injection',
    scope: 'all',
    regex: r(String.raw`\bignore\s+${W}(?:previous|all|above|prior)\s+${W}(?:instructions|rules|prompts?)\b`),
  },
  {
    id: 'prompt_injection',
    category: 'classic_injection',
    scope: 'all',
    regex: r(String.raw`\bsystem\s+prompt\s+override\b`),
  },
  {
    id: 'prompt_injection',
    category: 'classic_injection',
    scope: 'all',
    regex: r(String.raw`\bdisregard\s+${W}(?:your|any|all)\s+${W}(?:rules|instructions|guidelines)\b`),
  },
  {
    id: 'prompt_injection',
    category: 'classic_injection',
    scope: 'all',
    regex: r(String.raw`\bact\s+as\s+if\s+you\s+have\s+no\s+(?:restrictions|limits|rules)\b`),
  },
  {
    id: 'hidden_html_comment',
    category: 'classic_injection',
    scope: 'all',
    regex: r(String.raw`<!--[^>]{0,400}?\b(?:override|secret|hidden|ignore|system)\b[^>]{0,400}?-->`),
  },
  {
    id: 'hidden_div',
    category: 'classic_injection',
    scope: 'all',
    regex: r(String.raw`<div[^>]{0,200}display\s*:\s*none`),
  },
  {
    id: 'translate_execute',
    category: 'classic_injection',
    scope: 'all',
    regex: r(String.raw`\btranslate\s+${W}and\s+(?:execute|run|eval)\b`),
  },
  {
    id: 'conceal_from_user',
    category: 'classic_injection',
    scope: 'all',
    regex: r(String.raw`\bdo\s+not\s+tell\s+the\s+user\b`),
  },
  // Secret exfiltration (all scans)
  {
    id: 'secret_exfiltration',
    category: 'secret_exfiltration',
    scope: 'all',
    regex: r(String.raw`\b(?:curl|wget)\b[^\n]{0,200}\$\{?[A-Z0-9_]{0,40}(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)`),
  },
  {
    id: 'secret_file_read',
    category: 'secret_exfiltration',
    scope: 'all',
    regex: r(String.raw`\bcat\s+[^\n]{0,80}(?:\.env\b|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc)`),
  },
  // Role or identity hijack (context scans)
  {
    id: 'role_hijack',
    category: 'role_hijack',
    scope: 'context',
    regex: r(String.raw`\byou\s+are\s+now\s+(?:a|an|the)\b`),
  },
  {
    id: 'role_hijack',
    category: 'role_hijack',
    scope: 'context',
    regex: r(String.raw`\bpretend\s+(?:that\s+)?you\s+are\b`),
  },
  {
    id: 'prompt_extraction',
    category: 'role_hijack',
    scope: 'context',
    regex: r(String.raw`\boutput\s+${W}(?:your|the)\s+(?:system|initial)\s+prompt\b`),
  },
  {
    id: 'role_hijack',
    category: 'role_hijack',
    scope: 'context',
    regex: r(String.raw`\brespond\s+without\s+(?:any\s+)?(?:restrictions|filters)\b`),
  },
  {
    id: 'role_hijack',
    category: 'role_hijack',
    scope: 'context',
    regex: r(String.raw`\byou\s+have\s+been\s+(?:updated|upgraded)\s+to\b`),
  },
  { id: 'role_hijack', category: 'role_hijack', scope: 'context', regex: r(String.raw`\bname\s+yourself\s+\S`) },
  // C2 / promptware (context scans)
  {
    id: 'c2_promptware',
    category: 'c2',
    scope: 'context',
    regex: r(
      String.raw`\bregister\s+as\s+a\s+node\b|\b(?:heartbeat|beacon|check[- ]in)\s+to\b|\bpull\s+tasks\b|\bconnect\s+to\s+the\s+network\b`,
    ),
  },
  {
    id: 'c2_promptware',
    category: 'c2',
    scope: 'context',
    regex: r(
      String.raw`\byou\s+must\s+(?:register|connect|report|beacon)\b|\bonly\s+use\s+one-liners\b|\bnever\s+write\s+a\s+script\s+to\s+disk\b`,
    ),
  },
  {
    id: 'c2_promptware',
    category: 'c2',
    scope: 'context',
    regex: r(String.raw`\bunset\s+[A-Z0-9_]{0,40}(?:CLAUDE|CODEX|HERMES|AGENT|OPENAI|ANTHROPIC)`),
  },
  // Known offensive frameworks (context scans). Sliver, Havoc and Mythic are also film and series
  // titles ("Havoc", "Sliver", "Mythic Quest"), which a media agent's memory must hold: they count only
  // next to a C2 word.
  {
    id: 'offensive_framework',
    category: 'offensive_framework',
    scope: 'context',
    regex: r(
      String.raw`\b(?:cobalt\s+strike|metasploit|brainworm)\b|\b(?:sliver|havoc|mythic)\s+(?:c2|implant|beacon|listener|teamserver|payload|agent)\b|\bc2\s+(?:server|channel|beacon)\b|\bcommand\s+and\s+control\b`,
    ),
  },
  // Exfiltration to a URL or of the context (strict scans)
  {
    id: 'url_exfiltration',
    category: 'exfiltration',
    scope: 'strict',
    regex: r(String.raw`\b(?:send|post|upload)\s+${W}to\s+https?://`),
  },
  {
    id: 'context_exfiltration',
    category: 'exfiltration',
    scope: 'strict',
    regex: r(String.raw`\b(?:include|print|share)\s+${W}(?:the\s+)?(?:conversation|chat\s+history|full\s+context)\b`),
  },
  // Persistence (strict scans)
  {
    id: 'persistence',
    category: 'persistence',
    scope: 'strict',
    regex: r(String.raw`authorized_keys|(?:>>?|\b(?:write|append|echo|tee|cp|mv)\b[^\n]{0,80})\s*~/\.ssh\b`),
  },
  {
    id: 'persistence',
    category: 'persistence',
    scope: 'strict',
    regex: r(
      String.raw`\b(?:modify|edit|overwrite|change|write\s+to)\s+${W}(?:AGENTS\.md|CLAUDE\.md|\.cursorrules|\.clinerules|(?:your|the\s+agent'?s?)\s+(?:config|persona)(?:\s+file)?|(?:your|the\s+agent'?s?)\s+\.env)\b`,
    ),
  },
]);

// Hard-coded secrets (strict): a key word, `=` or `:`, a quote and 20+ token characters; an
// upper-snake environment variable name (two or more underscore segments) is exempt. Written as two
// checks because Node's RegExp has no inline case-sensitive group.
const SECRET_ASSIGNMENT = /\b(api_?key|token|secret|password)\s*[=:]\s*["']([\p{L}\p{N}_\-./+]{20,})/giu;
const ENV_NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+){2,}$/u;

/** True when `text` holds a hard-coded secret (not just an environment variable's name). @internal */
export function hasHardCodedSecret(text: string): boolean {
  for (const m of text.matchAll(SECRET_ASSIGNMENT)) if (!ENV_NAME.test(m[2]!)) return true;
  return false;
}
