import { defineCapability, type Capability, type HandlerContext } from '@media-agent/sdk';
import { MediaStateError } from '@media-agent/sdk/media';
import Type from 'typebox';
import type { V2HostView } from './host-view';
import { organizeRecord } from './mapping';
import { V2_ORGANIZE_REVERT } from './standard/organize';

/**
 * `moviepilot.organize.revert` (the inverse of `organize.execute`): deletes one transfer record with its
 * library files (`DELETE /api/v1/history/transfer?deletedest=true`, host superusers only); the downloaded
 * files stay, so the title can be organized again. Only a hardlink or copy transfer can be reverted: a moved
 * transfer's library files are the only copy (`MEDIA_INVALID_STATE`). A record the host no longer has is
 * `MEDIA_NOT_FOUND`; a lost answer is settled by the transfer history (`task.inspect`), never by sending the
 * delete again.
 * @param view - the host view
 * @returns the capability
 * @internal
 */
export function organizeRevertCapability(view: V2HostView): Capability {
  const { client } = view;
  const recordOf = async (organizeId: string, signal: AbortSignal) => {
    const t = (await view.transfers(signal)).find((x) => `org-${x.id}` === organizeId);
    if (!t)
      throw new MediaStateError('MEDIA_NOT_FOUND', `no transfer record ${organizeId} on the MoviePilot host`, {
        organizeId,
      });
    return t;
  };
  return defineCapability({
    id: V2_ORGANIZE_REVERT,
    version: 1,
    title: 'Revert an organize',
    description:
      "Undoes one organize (transfer) of a download into the library: deletes the library files it created and its transfer record; the downloaded files stay. Hardlink and copy transfers only (a move's library files are the only copy). Host superusers only.",
    kind: 'execute',
    replay: 'never',
    effect: 'organize',
    // A lost answer is settled by reading the transfer history: the record gone → reverted; still there → not.
    verify: async ({
      input,
      read,
    }: {
      input: { organizeId: string };
      read: (id: string, input: unknown) => Promise<unknown>;
    }) => {
      const out = (await read('task.inspect', { type: 'organize', limit: 100 })) as { tasks: Array<{ id: string }> };
      return out.tasks.some((t) => t.id === input.organizeId)
        ? { status: 'failed' as const, reason: `transfer record ${input.organizeId} is still on the host` }
        : { status: 'succeeded' as const, output: { organizeId: input.organizeId, libraryPath: null } };
    },
    policy: 'organize',
    tags: ['organize', 'revert', 'undo', 'transfer', 'library'],
    aliases: ['撤销整理', '删除整理记录'],
    input: Type.Object(
      { organizeId: Type.String({ pattern: '^org-[0-9]+$', description: 'Organize id (org-<transfer id>).' }) },
      { additionalProperties: false },
    ),
    output: Type.Object({ organizeId: Type.String(), libraryPath: Type.Union([Type.String(), Type.Null()]) }),
    impact: async (input: { organizeId: string }, ctx: { signal: AbortSignal }) => {
      const t = await recordOf(input.organizeId, ctx.signal);
      return {
        filesDeleted: t.status && t.dest ? 1 : 0,
        ...(t.dest ? { path: t.dest } : {}),
        ...(t.mode === 'link' || t.mode === 'copy' ? {} : { notes: [`a ${t.mode ?? 'unknown'} transfer is refused`] }),
        transferMode: t.mode ?? undefined,
        reversible: false,
      };
    },
    handler: async (input: { organizeId: string }, ctx: HandlerContext) => {
      const t = await recordOf(input.organizeId, ctx.signal);
      if (t.mode !== 'link' && t.mode !== 'copy')
        throw new MediaStateError(
          'MEDIA_INVALID_STATE',
          `transfer ${input.organizeId} ${t.mode === 'move' ? 'moved the files: its library files are the only copy' : `is a ${t.mode ?? 'unknown'} transfer`}; it cannot be reverted`,
          { organizeId: input.organizeId, mode: t.mode ?? null },
        );
      await client.call('history.transfer.delete', {
        query: { deletedest: true, deletesrc: false },
        body: t,
        signal: ctx.signal,
      });
      return { organizeId: input.organizeId, libraryPath: organizeRecord(t, null).libraryPath };
    },
  } as never) as Capability;
}
