// The tool boundary between capabilities and provider wire formats: reversible tool names and
// validation of a tool call's complete arguments against its JSON Schema.
import { createHash } from 'node:crypto';
import { Compile } from 'typebox/compile';
import { schemaIssues } from '../core/schema-issues';
import { providerSafeTool } from './provider-schema';
import type { ModelEvent, ModelTool, ToolCallFailure } from './types';

/**
 * Tool-name rule shared by Anthropic (`tools[].name`) and OpenAI (`function.name`):
 * `^[a-zA-Z0-9_-]{1,64}$`. Source: Anthropic Messages API reference (tool name pattern) and the
 * OpenAI Chat Completions reference (function name: a-z, A-Z, 0-9, underscores and dashes, max 64).
 *
 * @public
 */
export const PROVIDER_TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Maps capability ids (which contain dots, e.g. `download.submit`) to provider-safe tool names
 * and back, for one request.
 *
 * @remarks
 * A valid id is used as is. Otherwise every character outside `[a-zA-Z0-9_-]` becomes `_`
 * (`download.submit` → `download_submit`), which keeps the name readable for the model; when that
 * collides with another tool's name or exceeds 64 characters, the name is cut and suffixed with
 * `-` and 8 hex digits of the id's SHA-256. The map remembers every pair, so decoding is exact.
 *
 * @public
 */
export class ToolNameMap {
  readonly #toWire = new Map<string, string>();
  readonly #fromWire = new Map<string, string>();

  /** @param ids - the capability ids offered in this request */
  constructor(ids: Iterable<string>) {
    const list = [...ids];
    for (const id of list) if (PROVIDER_TOOL_NAME_PATTERN.test(id)) this.#add(id, id);
    for (const id of list) {
      if (this.#toWire.has(id)) continue;
      let name = id.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || '_';
      if (this.#fromWire.has(name) || name !== id.replace(/[^a-zA-Z0-9_-]/g, '_')) {
        const hash = createHash('sha256').update(id).digest('hex').slice(0, 8);
        name = `${name.slice(0, 55)}-${hash}`;
      }
      this.#add(id, name);
    }
  }

  #add(id: string, name: string): void {
    this.#toWire.set(id, name);
    this.#fromWire.set(name, id);
  }

  /**
   * The provider-safe tool name of a capability id.
   * @param id - a capability id given to the constructor
   * @returns its wire name (the id itself if it was never registered)
   */
  toWire(id: string): string {
    return this.#toWire.get(id) ?? id;
  }

  /**
   * The capability id of a tool name sent by the model.
   * @param name - a tool name as the model sent it
   * @returns the capability id, or `undefined` when the model named a tool it was not offered
   */
  fromWire(name: string): string | undefined {
    return this.#fromWire.get(name);
  }
}

type Validator = ReturnType<typeof Compile>;
const validators = new WeakMap<object, Validator>();

function validatorFor(schema: Record<string, unknown>): Validator {
  let v = validators.get(schema);
  if (!v) {
    v = Compile(schema as Parameters<typeof Compile>[0]);
    validators.set(schema, v);
  }
  return v;
}

/**
 * Outcome of {@link parseToolArguments}.
 *
 * @public
 */
export type ToolArgumentsResult = { ok: true; input: unknown } | { ok: false; failure: ToolCallFailure };

/**
 * Parses a tool call's complete argument text once and validates it against the tool's JSON
 * Schema (`validationSchema` when the tool has one, else `inputSchema`; compiled with TypeBox, cached
 * per schema object). Called only at `tool_call_end`, never on partial JSON.
 *
 * @remarks
 * Empty or whitespace-only text means `{}` only for a tool that `{}` is valid for (OpenAI-compatible
 * servers send `""` for a call without arguments; Anthropic's translator gives `""` for a `tool_use`
 * block without `input_json_delta` content): a tool whose schema requires fields fails with
 * `TOOL_ARGS_INVALID` naming them, and its handler never sees a `{}` it did not ask for. Arguments
 * must be a JSON object.
 *
 * @param raw - the concatenated argument text
 * @param tool - the tool offered, or `undefined` when the model named an unknown tool
 * @param wireName - the name the model used (for the unknown-tool message)
 * @returns the parsed input, or a failure with code `TOOL_UNKNOWN`, `TOOL_ARGS_MALFORMED` or
 *   `TOOL_ARGS_INVALID` and a reason listing JSON pointer paths (for empty arguments: that none were
 *   sent, and the required fields)
 * @public
 */
export function parseToolArguments(raw: string, tool: ModelTool | undefined, wireName: string): ToolArgumentsResult {
  if (!tool)
    return { ok: false, failure: { code: 'TOOL_UNKNOWN', message: `no tool named "${wireName}" was offered` } };
  let input: unknown;
  const empty = raw.trim() === '';
  if (empty) input = {};
  else {
    try {
      input = JSON.parse(raw);
    } catch (e) {
      return {
        ok: false,
        failure: { code: 'TOOL_ARGS_MALFORMED', message: `arguments are not valid JSON: ${(e as Error).message}` },
      };
    }
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, failure: { code: 'TOOL_ARGS_MALFORMED', message: 'arguments must be a JSON object' } };
  }
  const validator = validatorFor(tool.validationSchema ?? tool.inputSchema);
  if (validator.Check(input)) return { ok: true, input };
  const reasons = schemaIssues(validator.Errors(input), input)
    .slice(0, 10)
    .map((i) => `${i.path || '/'}: ${i.message}`);
  if (empty) {
    const schema = tool.validationSchema ?? tool.inputSchema;
    const required = Array.isArray(schema.required) ? (schema.required as unknown[]).map(String) : [];
    return {
      ok: false,
      failure: {
        code: 'TOOL_ARGS_INVALID',
        message: `the call came with no arguments, and ${wireName} requires ${required.length > 0 ? required.join(', ') : 'some'}: ${reasons.join('; ')}. Send the call again with its arguments.`,
      },
    };
  }
  return {
    ok: false,
    failure: { code: 'TOOL_ARGS_INVALID', message: `arguments do not match the schema: ${reasons.join('; ')}` },
  };
}

/**
 * The tools of one request as the providers need them: wire names both ways, tools by id, and each
 * tool's schema in the form every provider family accepts.
 *
 * @remarks
 * Every function tool passes through `providerSafeTool`, whoever built it (a provider-native tool is sent as given): a schema a provider family would
 * refuse (a root `anyOf` of a union input, `$ref`s, `const` …) is sent as its provider-safe rewrite,
 * and the original stays the schema the model's arguments are validated against. Every body builder
 * sends {@link RequestTools.tools}, so the rule holds for every dialect.
 * @internal
 */
export class RequestTools {
  /** Name mapping for this request. */
  readonly names: ToolNameMap;
  /** The request's tools, each with a provider-safe `inputSchema` (the original kept as `validationSchema` when rewritten). */
  readonly tools: ReadonlyArray<ModelTool>;
  readonly #byId = new Map<string, ModelTool>();
  /** @param tools - tools offered in the request */
  constructor(tools: ReadonlyArray<ModelTool> = []) {
    this.tools = tools.map((t) => (t.type === undefined || t.type === 'function' ? providerSafeTool(t) : t));
    for (const t of this.tools) this.#byId.set(t.name, t);
    this.names = new ToolNameMap(tools.map((t) => t.name));
  }
  /** Capability id for a wire name (the wire name itself when the tool was not offered). */
  idOf(wireName: string): string {
    return this.names.fromWire(wireName) ?? wireName;
  }
  /**
   * Builds the `tool_call_end` event for a finished call: arguments parsed once and validated.
   * @param id - call id
   * @param wireName - tool name as the model sent it
   * @param raw - complete argument text
   */
  end(id: string, wireName: string, raw: string): Extract<ModelEvent, { type: 'tool_call_end' }> {
    const capabilityId = this.names.fromWire(wireName);
    const result = parseToolArguments(
      raw,
      capabilityId === undefined ? undefined : this.#byId.get(capabilityId),
      wireName,
    );
    const name = capabilityId ?? wireName;
    if (result.ok) return { type: 'tool_call_end', id, name, rawArguments: raw, ok: true, input: result.input };
    return { type: 'tool_call_end', id, name, rawArguments: raw, ok: false, input: {}, failure: result.failure };
  }
}
