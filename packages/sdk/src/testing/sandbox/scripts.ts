import type { FakeScript, ScriptContext, ScriptStep, ScriptToolCall } from '../../models/scripted';

/** Status of the latest `download.submit` result in the conversation, and whether a person approved since. */
function submitState(ctx: ScriptContext): { status: string | undefined; approvedSince: boolean } {
  const messages = ctx.request.messages;
  let index = -1;
  messages.forEach((m, i) => {
    if (m.role === 'tool' && m.name === 'download.submit') index = i;
  });
  if (index < 0) return { status: undefined, approvedSince: false };
  const result = messages[index]!;
  let status: string | undefined;
  try {
    status = (JSON.parse(typeof result.content === 'string' ? result.content : '') as { status?: string }).status;
  } catch {
    status = undefined;
  }
  const approvedSince = messages
    .slice(index + 1)
    .some((m) => m.role === 'user' && typeof m.content === 'string' && / was approved\b/.test(m.content));
  return { status, approvedSince };
}

const submit: ScriptToolCall = { capability: 'download.submit', input: { planId: '{{download.plan.plan.id}}' } };

/** After a submit: wait for an approval, submit again once approved or when the outcome is unknown, else stop. */
const afterSubmit: ScriptStep = {
  text: (ctx) => {
    const { status, approvedSince } = submitState(ctx);
    if (status === 'denied' && !approvedSince) return 'Waiting for a person to approve the download plan.';
    if (status === 'unknown')
      return 'The submit outcome is unknown; checking it by repeating the same submit (the ledger answers, nothing is sent twice).';
    if (status === 'denied' && approvedSince) return 'Approved; submitting the plan.';
    if (status === 'pending' || status === 'succeeded')
      return 'Submitted: the download is on its way; it is done only when it is imported into the library.';
    return `The submit ${status ?? 'did not run'}; stopping here.`;
  },
  toolCalls: (ctx) => {
    const { status, approvedSince } = submitState(ctx);
    return status === 'unknown' || (status === 'denied' && approvedSince) ? [submit] : [];
  },
};

/**
 * A scripted-model conversation that adds one title to the sandbox library the way a careful agent
 * would: check the inventory (stop if it is already there), look the title up, search releases,
 * plan the download, submit it; when denied, wait for the approval the runtime asks a person for and
 * submit again once approved; when the outcome is unknown (a crash), repeat the same submit so the
 * ledger's verifier answers. For the demo, tests and benchmarks.
 *
 * @param title - a title of the sandbox catalog, e.g. `Dune: Part Two`
 * @param options - `match`: text that selects the script (default: the title)
 * @public
 */
export function addToLibraryScript(title: string, options: { match?: string } = {}): FakeScript {
  return {
    name: `add ${title}`,
    match: options.match ?? title,
    steps: [
      {
        text: `Checking whether "${title}" is already in the library. `,
        toolCalls: [{ capability: 'inventory.query', input: { query: title } }],
      },
      {
        text: (ctx) =>
          (ctx.results['inventory.query'] as { total?: number } | undefined)?.total
            ? `"${title}" is already in the library: nothing to download.`
            : 'Not in the library yet; looking it up. ',
        toolCalls: (ctx) =>
          (ctx.results['inventory.query'] as { total?: number } | undefined)?.total
            ? []
            : [{ capability: 'catalog.lookup', input: { query: title, limit: 1 } }],
      },
      {
        text: 'Searching releases. ',
        toolCalls: [
          {
            capability: 'update_plan',
            input: {
              goal: `Add ${title} to the library`,
              steps: [
                { title: 'Check the library', status: 'completed', evidence: 'inventory.query found nothing' },
                { title: 'Find a release', status: 'in_progress' },
                { title: 'Plan and submit the download', status: 'pending' },
                { title: 'Wait for the import', status: 'pending' },
              ],
            },
          },
          {
            capability: 'release.search',
            input: {
              mediaSource: '{{catalog.lookup.items.0.mediaSource}}',
              mediaId: '{{catalog.lookup.items.0.mediaId}}',
              limit: 5,
            },
          },
        ],
      },
      {
        text: 'Planning the best release. ',
        toolCalls: [
          {
            capability: 'download.plan',
            input: {
              mediaSource: '{{catalog.lookup.items.0.mediaSource}}',
              mediaId: '{{catalog.lookup.items.0.mediaId}}',
              kind: '{{catalog.lookup.items.0.kind}}',
              releaseId: '{{release.search.releases.0.releaseId}}',
            },
          },
        ],
      },
      { text: 'Submitting the plan. ', toolCalls: [submit] },
      afterSubmit,
      afterSubmit,
      afterSubmit,
    ],
    finalText: 'Done.',
  };
}
