/**
 * The plain-text fallback of a reply for channels that render no markup.
 * @packageDocumentation
 */

/**
 * `markdown` without its markup, for a channel whose formatting is `plain`: code fences dropped (their content
 * kept), headings' `#`s, emphasis (`**`, `__`, `*`, `_` around words), inline code backticks and blockquote `>`s
 * removed, links `[label](url)` written `label (url)`, images `![alt](url)` written `alt (url)`. Everything else —
 * words, line breaks, list markers — is kept as written. Pure.
 *
 * @example
 * ```ts
 * markdownToPlain('**Dune** is [here](https://example.org)'); // 'Dune is here (https://example.org)'
 * ```
 * @public
 */
export function markdownToPlain(markdown: string): string {
  return markdown
    .replace(/^```[^\n]*\n?/gm, '')
    .replace(/^(\s{0,3})#{1,6}\s+/gm, '$1')
    .replace(/^(\s{0,3})>\s?/gm, '$1')
    .replace(/!\[([^\]\n]*)\]\(([^)\s]+)\)/g, '$1 ($2)')
    .replace(/\[([^\]\n]+)\]\(([^)\s]+)\)/g, '$1 ($2)')
    .replace(/`([^`\n]+)`/g, '$1')
    .replace(/(\*\*|__)(?=\S)([^\n]*?\S)\1/g, '$2')
    .replace(/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?!\w)/g, '$1$2')
    .replace(/(^|[^\w_])_(?=\S)([^_\n]*?\S)_(?!\w)/g, '$1$2');
}

/**
 * `text` with `&`, `<` and `>` escaped, for a channel whose formatting is `html` (its parser then shows the text as
 * written). Pure.
 * @public
 */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
