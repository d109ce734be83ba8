// The films of the scale-out scenario: one distinct title and one release per run, so the
// simulator's downloader must end with exactly one job per film.
import type { FakeScript, ScriptContext, ScriptStep, ScriptToolCall } from '@media-agent/sdk/testing';
import type { SimRelease, SimTitle } from '@media-agent/host-adapter-v3/testing';

/** One film of the scenario: its catalog entry, its one release and the goal of the run that adds it. */
export interface ScaleFilm {
  /** Display title, unique and not a substring of another (`Scale Film 0007`). */
  title: string;
  /** `themoviedb:<id>`, the simulator's identity of the title. */
  media: string;
  /** The run's goal. */
  goal: string;
  /** Its catalog entry in the simulator. */
  catalog: SimTitle;
  /** Its one release. */
  release: SimRelease;
}

/** The films `0 … count-1` (at most 9 999: the number is zero-padded to four digits so no title contains another). */
export function scaleFilms(count: number): ScaleFilm[] {
  if (!Number.isInteger(count) || count < 1 || count > 9_999)
    throw new RangeError(`scaleFilms: count must be 1–9 999, got ${count}`);
  return Array.from({ length: count }, (_, i) => {
    const n = String(i).padStart(4, '0');
    const title = `Scale Film ${n}`;
    const mediaId = String(9_000_000 + i);
    const media = `themoviedb:${mediaId}`;
    return {
      title,
      media,
      goal: `Add ${title} to the library`,
      catalog: {
        media_source: 'themoviedb',
        media_id: mediaId,
        title,
        original_title: title,
        cn_title: null,
        year: 2024,
        type: '电影',
        overview: `Film number ${n} of the scale-out scenario.`,
      },
      release: {
        media,
        title: `Scale.Film.${n}.2024.1080p.WEB-DL.H264-SO`,
        description: `Scale Film ${n} 1080p`,
        enclosure: `https://pt.example/download/scale-${n}`,
        site_name: 'PTSite',
        size: 8_589_934_592 + i,
        seeders: 100,
        resource_pix: '1080p',
        resource_type: 'WEB-DL',
        video_encode: 'H.264',
        pubdate: '2024-06-01 10:00:00',
      },
    };
  });
}

/** The outcome of the latest call of `capability` in the conversation (`succeeded`, `unknown`, …), or undefined. */
function lastOutcome(ctx: ScriptContext, capability: string): string | undefined {
  const result = [...ctx.request.messages].reverse().find((m) => m.role === 'tool' && m.name === capability);
  if (!result || typeof result.content !== 'string') return undefined;
  try {
    return (JSON.parse(result.content) as { status?: string }).status;
  } catch {
    return undefined;
  }
}

/** Whether a person approved something after the latest `download.submit` result. */
function approvedSinceSubmit(ctx: ScriptContext): boolean {
  const messages = ctx.request.messages;
  const last = messages.map((m) => m.role === 'tool' && m.name === 'download.submit').lastIndexOf(true);
  return messages
    .slice(last + 1)
    .some((m) => m.role === 'user' && typeof m.content === 'string' && / was approved\b/.test(m.content));
}

/**
 * The next call of the add-a-film flow, decided from what the conversation holds: the first step whose
 * result is missing is called (again) — so a read whose outcome is `unknown` (its process was killed
 * during the call: reads leave no ledger record) is simply repeated, and a submit whose outcome is
 * unknown is repeated so the ledger's verifier answers. Empty when the flow is done.
 */
function nextCalls(title: string, ctx: ScriptContext): ScriptToolCall[] {
  const r = ctx.results as Record<string, Record<string, unknown> | undefined>;
  if (!r['inventory.query']) return [{ capability: 'inventory.query', input: { query: title } }];
  if (r['inventory.query'].total) return [];
  if (!r['catalog.lookup']) return [{ capability: 'catalog.lookup', input: { query: title, limit: 1 } }];
  const ref = {
    mediaSource: '{{catalog.lookup.items.0.mediaSource}}',
    mediaId: '{{catalog.lookup.items.0.mediaId}}',
  };
  if (!r['release.search'])
    return [
      ...(r.update_plan
        ? []
        : [
            {
              capability: 'update_plan',
              input: {
                goal: `Add ${title} to the library`,
                steps: [
                  { title: 'Check the library', status: 'completed', evidence: 'inventory.query found nothing' },
                  { title: 'Find a release', status: 'in_progress' },
                  { title: 'Plan and submit the download', status: 'pending' },
                ],
              },
            },
          ]),
      { capability: 'release.search', input: { ...ref, limit: 5 } },
    ];
  if (!r['download.plan'])
    return [
      {
        capability: 'download.plan',
        input: {
          ...ref,
          kind: '{{catalog.lookup.items.0.kind}}',
          releaseId: '{{release.search.releases.0.releaseId}}',
        },
      },
    ];
  const submitted = lastOutcome(ctx, 'download.submit');
  if (submitted === undefined || submitted === 'unknown' || (submitted === 'denied' && approvedSinceSubmit(ctx)))
    return [{ capability: 'download.submit', input: { planId: '{{download.plan.plan.id}}' } }];
  return [];
}

/** Turns the add-a-film conversation may take: the 6 calls, repeats of interrupted ones, and the answer. */
const SCRIPT_TURNS = 24;

/**
 * The scripted model's conversations: one per film, chosen by the film's title in the goal. Like the
 * SDK's `addToLibraryScript` (check the library, look the title up, search releases, plan, submit), but
 * every turn decides from the conversation what to call next, so the run goes on after a process was
 * killed in the middle of any call.
 */
export function scaleScripts(films: readonly ScaleFilm[]): FakeScript[] {
  return films.map((f) => {
    const step: ScriptStep = {
      text: (ctx) => {
        const next = nextCalls(f.title, ctx)[0]?.capability;
        if (next === undefined) return `Done with "${f.title}": the download is submitted or nothing was needed.`;
        const outcome = lastOutcome(ctx, next);
        return outcome === 'unknown' ? `Calling ${next} again: its outcome is unknown. ` : `Calling ${next}. `;
      },
      toolCalls: (ctx) => nextCalls(f.title, ctx),
    };
    return {
      name: `add ${f.title}`,
      match: { regex: f.title },
      steps: Array.from({ length: SCRIPT_TURNS }, () => step),
      finalText: 'Done.',
    };
  });
}
