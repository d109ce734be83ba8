// `skills_list`, `skill_view`, `skill_manage`: the user's personal skills, answered by the runtime.
import Type from 'typebox';
import { parseActor } from '../../core/actor';
import type { JsonValue } from '../../core/records';
import { compileSchema } from '../../capabilities/schema-validator';
import type { ModelTool } from '../../models/types';
import type { SkillOperation, SkillStore, SkillWriteOrigin } from '../../ports/skill-store';
import { actingFor } from '../loop/acting-for';
import type { RunSession } from '../loop/run-session';
import { failedOutcome, type RuntimeTool, type RuntimeToolOutcome } from './runtime-tool';

/** Names of the skill tools. @public */
export const SKILL_TOOLS = { list: 'skills_list', view: 'skill_view', manage: 'skill_manage' } as const;

const Name = Type.String({ minLength: 1, maxLength: 64, description: 'Skill name (lower case, digits, _ and -).' });
const FilePath = Type.String({
  minLength: 1,
  maxLength: 512,
  description: 'SKILL.md or a support file under references/, templates/, scripts/ or assets/.',
});
const Text = (description: string, minLength = 1) => Type.String({ minLength, maxLength: 100_000, description });

const ListSchema = Type.Object({}, { additionalProperties: false });
const ViewSchema = Type.Object({ name: Name, file_path: Type.Optional(FilePath) }, { additionalProperties: false });
const Operation = Type.Union([
  Type.Object(
    {
      action: Type.Literal('create'),
      name: Name,
      content: Text('The whole SKILL.md: front matter (name, description) and body.'),
      category: Type.Optional(Name),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      action: Type.Literal('patch'),
      name: Name,
      old_string: Text('Text to replace, quoted from the file with enough context to be unique.'),
      new_string: Text('Replacement (may be empty).', 0),
      file_path: Type.Optional(FilePath),
      replace_all: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      action: Type.Union([Type.Literal('rewrite'), Type.Literal('edit')]),
      name: Name,
      content: Text('The whole new SKILL.md.'),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    { action: Type.Literal('write_file'), name: Name, file_path: FilePath, file_content: Text('The whole file.', 0) },
    { additionalProperties: false },
  ),
  Type.Object(
    { action: Type.Literal('remove_file'), name: Name, file_path: FilePath },
    { additionalProperties: false },
  ),
  Type.Object(
    { action: Type.Literal('delete'), name: Name, absorbed_into: Type.Optional(Name) },
    { additionalProperties: false },
  ),
]);
const ManageSchema = Type.Object(
  { operations: Type.Array(Operation, { minItems: 1, maxItems: 20 }) },
  { additionalProperties: false },
);
/** What the model sees for `skill_manage`: one flat operation shape (every provider accepts it); validated against the strict union. */
const ManageModelSchema = Type.Object(
  {
    operations: Type.Array(
      Type.Object(
        {
          action: Type.Union(
            ['create', 'patch', 'rewrite', 'write_file', 'remove_file', 'delete'].map((a) => Type.Literal(a)),
          ),
          name: Name,
          content: Type.Optional(Text('create/rewrite: the whole SKILL.md.')),
          category: Type.Optional(Name),
          old_string: Type.Optional(Text('patch: text to replace, quoted exactly with context.')),
          new_string: Type.Optional(Text('patch: the replacement (may be empty).', 0)),
          replace_all: Type.Optional(Type.Boolean()),
          file_path: Type.Optional(FilePath),
          file_content: Type.Optional(Text('write_file: the whole support file.', 0)),
          absorbed_into: Type.Optional(Name),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 20 },
    ),
  },
  { additionalProperties: false },
);

const tool = (name: string, description: string, schema: object, validation?: object): ModelTool => ({
  name,
  description,
  inputSchema: schema as Record<string, unknown>,
  ...(validation ? { validationSchema: validation as Record<string, unknown> } : {}),
});

/** The three tools as offered to models. @public */
export const SKILL_MODEL_TOOLS: readonly ModelTool[] = [
  tool(
    SKILL_TOOLS.list,
    "List the skills you can use: public skills and the user's personal ones (name, short description, path).",
    ListSchema,
  ),
  tool(
    SKILL_TOOLS.view,
    'Read one file of a skill, whole: SKILL.md by default, or a support file. Read a skill before changing it.',
    ViewSchema,
  ),
  tool(
    SKILL_TOOLS.manage,
    "Change the user's personal skills with 1-20 ordered operations applied all or nothing: create (a new class-level skill), patch (replace old_string by new_string; quote the file exactly), rewrite (SKILL.md whole), write_file / remove_file (support files under references/, templates/, scripts/, assets/), delete (alone in its call). Skills hold procedures; they never grant tools or permissions. Public skills are read-only.",
    ManageModelSchema,
    ManageSchema,
  ),
];

function invalid(issues: Array<{ path: string; message: string }>): RuntimeToolOutcome {
  return {
    result: {
      status: 'failed',
      error: { code: 'SKILL_INPUT_INVALID', message: issues.map((i) => `${i.path || '/'}: ${i.message}`).join('; ') },
    },
  };
}

/** The id of the person the run acts for, or undefined. */
function userOf(session: RunSession): string | undefined {
  const actor = actingFor(session);
  return actor ? parseActor(actor).id : undefined;
}

const NO_USER: RuntimeToolOutcome = {
  result: {
    status: 'failed',
    error: {
      code: 'SKILL_USER_INVALID',
      message: 'personal skills are only available in a run that acts for a person',
    },
  },
};

/** Where a write came from, stamped by the runtime: the run and its last 20 message positions. */
function originOf(session: RunSession): SkillWriteOrigin {
  const count = session.storedCount;
  const from = Math.max(0, count - 20);
  return {
    sessionId: session.run.sessionId ?? session.id,
    messageIds: Array.from({ length: count - from }, (_, i) => `${session.id}#${from + i}`),
  };
}

function skillTool(
  modelTool: ModelTool,
  schema: object,
  answer: (store: SkillStore, user: string, input: never, session: RunSession) => Promise<JsonValue>,
  store: SkillStore,
): RuntimeTool {
  const check = compileSchema(schema as never);
  return {
    name: modelTool.name,
    modelTool,
    discoveryOnly: false,
    available: () => true,
    async run({ session, call }) {
      if (!check.check(call.input)) return invalid(check.issues(call.input));
      const user = userOf(session);
      if (user === undefined) return NO_USER;
      try {
        return { result: { status: 'succeeded', output: await answer(store, user, call.input as never, session) } };
      } catch (error) {
        return failedOutcome(error, 'SKILL_INPUT_INVALID');
      }
    },
  };
}

/**
 * The skill tools over a store, for a run's own (foreground) use: `skills_list`, `skill_view`,
 * `skill_manage`. They act for the person the run serves (`user:<id>`); a run acting for nobody gets
 * `SKILL_USER_INVALID`.
 */
export function skillTools(store: SkillStore): RuntimeTool[] {
  const [list, view, manage] = SKILL_MODEL_TOOLS as [ModelTool, ModelTool, ModelTool];
  return [
    skillTool(
      list,
      ListSchema,
      async (s, user) => ({ success: true, skills: (await s.list(user)) as unknown as JsonValue }),
      store,
    ),
    skillTool(
      view,
      ViewSchema,
      async (s, user, input: { name: string; file_path?: string }) => {
        const v = await s.view(user, input.name, input.file_path);
        return {
          success: true,
          name: v.name,
          file_path: v.filePath,
          content: v.content,
          editable: v.editable,
          source: v.source,
          files: [...v.files],
        };
      },
      store,
    ),
    skillTool(
      manage,
      ManageSchema,
      async (s, user, input: { operations: SkillOperation[] }, session) => {
        const r = await s.manage(user, input.operations, { mode: 'foreground', origin: originOf(session) });
        return {
          success: true,
          applied: r.applied,
          skills: [...r.skills],
          ...(r.archivedTo ? { archived_to: r.archivedTo } : {}),
          ...(r.cleanupPending ? { cleanup_pending: true } : {}),
        };
      },
      store,
    ),
  ];
}
