// The one list of secret shapes the SDK recognizes in free text (see docs/secrets.md). Each pattern
// matches the secret itself (the name, scheme or `user:` before it is kept, by a look-behind), so the
// text around it stays readable. Values stop at quotes and backslashes: a secret inside JSON text is
// replaced without breaking the JSON.

/**
 * Secret shapes recognized in any text, whether or not the secret was registered:
 *
 * - the password of a URL's user-info: `https://user:PASSWORD@host`;
 * - the value of a `name=value` pair whose name looks secret (`token=`, `api_key=`, `apikey=`,
 *   `access_token=`, `password=`, `secret=`, `sign=`, `auth=`, `key=`, `client_secret=` …), as in
 *   query strings and `.env` lines;
 * - the string value of a JSON member whose name looks secret (`"password": "…"`, `"token": "…"`,
 *   `"api_key": "…"`, `"client_secret": "…"` …), also inside JSON text that was stringified again;
 * - the token after `Bearer ` (8 characters or more, with a digit or one of `._~+/=-`, so prose such as
 *   "bearer authentication" is kept);
 * - key-shaped tokens: `sk-…` (OpenAI, DeepSeek, Anthropic `sk-ant-…`, also masked echoes such as
 *   `sk-abc***xyz`), `xai-…`, `gsk_…` (Groq), `AIza…` (Google), `ghp_…` / `github_pat_…` (GitHub),
 *   `xox?-…` (Slack);
 * - JSON Web Tokens (`eyJ….….…`, e.g. a media server's login token).
 *
 * Every pattern is global; use them with `String.prototype.replace`.
 * @public
 */
export const SECRET_TEXT_PATTERNS: readonly RegExp[] = Object.freeze([
  /(?<=[a-z][a-z0-9+.-]*:\/\/[^\s/:@"'\\]*:)[^\s/@"'\\]+(?=@)/gi,
  /(?<=\b(?:[a-z0-9]+[_-])?(?:token|passkey|rsskey|apikey|api_key|api-key|password|passwd|pwd|secret|sign|auth|access_token|refresh_token|key)=)[^&\s"'\\]+/gi,
  /(?<=\\?"(?:[a-z0-9]+[_-])?(?:password|passwd|pwd|secret|client_secret|token|access_token|refresh_token|apikey|api_key|api-key|passkey|rsskey)\\?"\s*:\s*\\?")[^"\\]+/gi,
  /(?<=\bbearer\s+)(?=[A-Za-z]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{8,}/gi,
  /\bsk-[A-Za-z0-9_*-]{6,}/g,
  /\bxai-[A-Za-z0-9]{8,}/g,
  /\bgsk_[A-Za-z0-9]{8,}/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
]);

/**
 * Header names whose values are credentials: `Authorization`, `Proxy-Authorization`, `Cookie`, and any
 * name containing `key`, `token`, `secret`, `auth`, `password`, `session`, `signature` or `credential`
 * (`x-api-key`, `api-key`, `x-gateway-key`, `x-auth-token` …). Case-insensitive.
 * @public
 */
export const SECRET_HEADER_NAME = /key|token|secret|auth|passw|session|signature|credential|cookie/i;

/**
 * Query parameter names whose values are credentials (`api_key`, `apikey`, `token`, `access_token`,
 * `key`, `password`, `secret`, `sig` …). Case-insensitive, matched against the whole name.
 * @public
 */
export const SECRET_PARAM_NAME =
  /^(?:[a-z0-9]+[_-])?(?:api[_-]?key|key|token|access[_-]?token|refresh[_-]?token|auth|password|passwd|pwd|secret|sig|sign|signature|passkey|rsskey)$/i;
