import type { FakeScript } from '@media-agent/sdk/testing';

/**
 * A scripted-model conversation that organizes a finished download into the library through the V3
 * adapter: find the completed download (`task.inspect`), plan the organize (`organize.plan`, sent to
 * MoviePilot as a `transfer.file` preview) and execute it (`organize.execute`). Selected by a user
 * message containing `match`. Pair it with the SDK's `addToLibraryScript` for the add-a-film flow.
 * @param options - `match`: text of the user message that selects it (default `organize the completed download`)
 * @public
 */
export function organizeCompletedDownloadScript(options: { match?: string } = {}): FakeScript {
  return {
    name: 'organize the completed download',
    match: options.match ?? 'organize the completed download',
    steps: [
      {
        text: 'Looking for the completed download. ',
        toolCalls: [{ capability: 'task.inspect', input: { type: 'download', status: 'completed', limit: 1 } }],
      },
      {
        text: 'Planning where its files go. ',
        toolCalls: [{ capability: 'organize.plan', input: { downloadId: '{{task.inspect.tasks.0.id}}' } }],
      },
      {
        text: 'Organizing it into the library. ',
        toolCalls: [{ capability: 'organize.execute', input: { planId: '{{organize.plan.plan.id}}' } }],
      },
    ],
    finalText: 'Organized: MoviePilot reports the files in the library.',
  };
}
