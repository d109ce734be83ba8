// Which models accept images: a table by model id, overridable by the host.

/**
 * Known models and whether they accept image input, by id pattern (first match wins). Sources: the
 * providers' model pages (Anthropic "Vision", OpenAI "Images and vision", DeepSeek, Qwen, Mistral
 * and xAI model lists).
 * @public
 */
export const VISION_MODEL_TABLE: ReadonlyArray<readonly [RegExp, boolean]> = Object.freeze([
  [/^claude-(3|sonnet-4|opus-4|haiku-4|3-5|3-7)/i, true],
  [/^claude-(instant|2)/i, false],
  [/^(gpt-4o|gpt-4\.1|gpt-4-turbo|gpt-4-vision|gpt-5|chatgpt-4o|o1(?!-mini)|o3|o4)/i, true],
  [/^(gpt-3\.5|gpt-4(-0613|-32k)?$|o1-mini|o3-mini)/i, false],
  [/^deepseek-/i, false],
  [/^(qwen-vl|qwen2(\.5)?-vl|qvq|qwen3-vl)/i, true],
  [/^qwen/i, false],
  [/^(pixtral|mistral-(medium|small)-(2505|latest))/i, true],
  [/^(mistral|codestral|open-mistral|ministral)/i, false],
  [/^grok-(2-vision|4|vision)/i, true],
  [/^grok-/i, false],
  [/^(llama-4|meta-llama\/llama-4)/i, true],
  [/^gemini-/i, true],
]) as ReadonlyArray<readonly [RegExp, boolean]>;

/**
 * Whether a model accepts images: the host's override for the exact id, else the first matching row
 * of {@link VISION_MODEL_TABLE}, else undefined (unknown). Pure.
 * @param model - the model id sent to the provider
 * @param overrides - the host's `{ [modelId]: boolean }`
 * @public
 */
export function modelAcceptsImages(
  model: string,
  overrides: Readonly<Record<string, boolean>> = {},
): boolean | undefined {
  if (Object.hasOwn(overrides, model)) return overrides[model];
  for (const [pattern, accepts] of VISION_MODEL_TABLE) if (pattern.test(model)) return accepts;
  return undefined;
}
