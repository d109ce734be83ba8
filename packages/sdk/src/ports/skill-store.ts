// The personal skill library: each user's own skills, next to the public (host-wide) ones.

/** Where a skill comes from: the host's public roots (read-only) or the user's personal library. @public */
export type SkillSource = 'public' | 'personal';

/** Who is writing: a person's own run (`foreground`) or a background learning review. @public */
export type SkillWriteMode = 'foreground' | 'background';

/** A skill as listed by `skills_list`. @public */
export interface SkillSummary {
  /** The skill's name (its folder). */
  readonly name: string;
  /** Its description, cut to 60 characters. */
  readonly description: string;
  /** Its SKILL.md relative to its root (`<category>/<name>/SKILL.md` or `<name>/SKILL.md`). */
  readonly path: string;
  /** Public or personal. */
  readonly source: SkillSource;
}

/** One file of a skill as `skill_view` returns it. @public */
export interface SkillFileView {
  /** The skill's name (its folder). */
  readonly name: string;
  /** `SKILL.md` or `<references|templates|scripts|assets>/<file>`. */
  readonly filePath: string;
  /** The whole file (never truncated). */
  readonly content: string;
  /** SHA-256 (hex) of the content, as recorded for read-before-write. */
  readonly sha256: string;
  /** True for a personal skill (`skill_manage` may change it). */
  readonly editable: boolean;
  /** Where the skill comes from (a public folder, or the user's own library). */
  readonly source: SkillSource;
  /** The package's support files, relative to its folder. */
  readonly files: readonly string[];
}

/** The conversation a write came from, stamped by the host (never taken from model arguments). @public */
export interface SkillWriteOrigin {
  /** The run (or chat session) id. */
  readonly sessionId: string;
  /** Ids of the last messages (at most 20). */
  readonly messageIds: readonly string[];
}

/** What a background review read, for read-before-write: file digests by skill and path. @public */
export interface SkillReadLog {
  /** Records the SHA-256 of what was read. */
  record(name: string, filePath: string, sha256: string): void;
  /** The SHA-256 recorded for this file in this review, if any. */
  digest(name: string, filePath: string): string | undefined;
}

/** One operation of `skill_manage`. @public */
export type SkillOperation =
  | { readonly action: 'create'; readonly name: string; readonly content: string; readonly category?: string }
  | {
      readonly action: 'patch';
      readonly name: string;
      readonly old_string: string;
      readonly new_string: string;
      readonly file_path?: string;
      readonly replace_all?: boolean;
    }
  | { readonly action: 'rewrite' | 'edit'; readonly name: string; readonly content: string }
  | { readonly action: 'write_file'; readonly name: string; readonly file_path: string; readonly file_content: string }
  | { readonly action: 'remove_file'; readonly name: string; readonly file_path: string }
  | { readonly action: 'delete'; readonly name: string; readonly absorbed_into?: string };

/** Who writes and under what guard. @public */
export interface SkillWriteContext {
  /** Foreground (the user's own run) or background (a learning review: stricter guards). */
  readonly mode: SkillWriteMode;
  /** Reads of this review (background read-before-write). */
  readonly reads?: SkillReadLog;
  /** Where the change came from (host-stamped). */
  readonly origin?: SkillWriteOrigin;
  /** True once the review was cancelled: checked before each operation, before every file and after the last. */
  readonly cancelled?: () => boolean;
}

/** What a successful `skill_manage` did. @public */
export interface SkillManageResult {
  /** Operations applied. */
  readonly applied: number;
  /** Skills touched, in order. */
  readonly skills: readonly string[];
  /** Where a background delete archived the package (relative to the library). */
  readonly archivedTo?: string;
  /** A foreground delete whose folder could not be removed (it is hidden and removed later). */
  readonly cleanupPending?: boolean;
}

/** A `/skills` chat command. @public */
export interface SkillCommand {
  /** `/skills restore|adopt|pin|unpin`: bring back from the archive, take ownership, pin, unpin. */
  readonly verb: 'restore' | 'adopt' | 'pin' | 'unpin';
  /** The skill's name. */
  readonly name: string;
}

/**
 * A library of personal skills per user, next to read-only public skills.
 *
 * @remarks
 * `userId` names a person as `user:<id>` or the bare `<id>`: both are the same person and reach the same
 * library (`FileSkillStore` applies `personKey`); another actor kind, an empty or wrong-typed id is refused
 * with `PERSON_ID_INVALID`. A store keeps each person's skills apart. Every method throws `SkillError`
 * (`SKILL_*` codes: `SKILL_INPUT_INVALID` for arguments of the wrong shape) for refused input and writes
 * nothing then.
 * @public
 */
export interface SkillStore {
  /** Public skills first, then the user's; a personal skill never shadows a public one of the same name. */
  list(userId: string): Promise<SkillSummary[]>;
  /** One file of a skill, whole; recorded in `reads` when given. */
  view(userId: string, name: string, filePath?: string, reads?: SkillReadLog): Promise<SkillFileView>;
  /** Applies 1–20 operations in order under the user's library lock; all or nothing. */
  manage(userId: string, operations: readonly SkillOperation[], context: SkillWriteContext): Promise<SkillManageResult>;
  /** Runs a `/skills restore|adopt|pin|unpin <name>` command; returns the reply for the user. */
  command(userId: string, command: SkillCommand): Promise<string>;
}
