// media-agent web console: plain JavaScript, no framework, no network beyond this router's own API.
// Pages (hash routes): #/ runs, #/runs/<id> one run live, #/approvals, #/grants, #/decisions, #/schedules
// (next fire time, last run, pause and resume), #/memory (the person's pending memory proposals).
// A run page loads the run's stored events by per-run sequence, then follows the event stream
// (server-sent events; `id:` is the global sequence, so the browser resumes with Last-Event-ID) and
// falls back to polling while the stream is down. Every event is applied once, in per-run order.
// A conversation's run page can undo its last turn (a fork before the person's last message: the page switches to
// the fork with that message back in the box, and links the previous branch) and fork from any step.

const POLL_MS = 2500;
const EVENT_TYPES = [
  'run_status',
  'text_delta',
  'tool_call',
  'checklist_updated',
  'inbox_queued',
  'inbox_applied',
  'approval_requested',
  'approval_decided',
  'report',
  'budget_exceeded',
  'warning',
  'input_requested',
  'forked',
];

/** Text to put back in a run page's message box when it opens: run id → the undone message's text. */
const drafts = new Map();

/** Builds an element: h('p', { class: 'x', onclick: fn }, 'text', child). Text is never parsed as HTML. */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

const main = () => document.getElementById('main');
const when = (ms) => (ms ? new Date(ms).toLocaleString() : '—');
const badge = (status) => h('span', { class: `status ${status}` }, String(status).replace('_', ' '));

/** Calls the API (paths relative to the page, so the router may be mounted under any prefix). */
async function api(path, init = {}) {
  const response = await fetch(`api/${path}`, {
    ...init,
    credentials: 'same-origin',
    headers: { accept: 'application/json', ...(init.body ? { 'content-type': 'application/json' } : {}) },
  });
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const error = new Error(body?.detail ?? `${response.status} ${response.statusText}`);
    error.problem = body;
    error.status = response.status;
    throw error;
  }
  return body;
}

function showError(container, error) {
  const code = error.problem?.code ? `${error.problem.code}: ` : '';
  container.append(h('p', { class: 'error', role: 'alert' }, code + error.message));
  if (error.status === 401)
    container.append(
      h(
        'p',
        {},
        'You are not signed in: open the sign-in link of your host (the example console prints one, /login?token=…).',
      ),
    );
}

function setConnection(text) {
  document.getElementById('connection').textContent = text;
}

/** The page being shown; replaced on navigation (its `close` stops its stream and timers). */
let page = { close() {} };

function route() {
  page.close();
  page = { close() {} };
  setConnection('');
  const hash = location.hash || '#/';
  const section = hash.startsWith('#/runs/')
    ? 'runs'
    : hash.startsWith('#/approvals')
      ? 'approvals'
      : hash.startsWith('#/grants')
        ? 'grants'
        : hash.startsWith('#/decisions')
          ? 'decisions'
          : hash.startsWith('#/schedules')
            ? 'schedules'
            : hash.startsWith('#/memory')
              ? 'memory'
              : 'runs';
  for (const a of document.querySelectorAll('[data-nav]')) {
    if (a.dataset.nav === section) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  main().replaceChildren();
  if (hash.startsWith('#/runs/')) page = runPage(decodeURIComponent(hash.slice('#/runs/'.length)));
  else if (section === 'approvals') page = approvalsPage();
  else if (section === 'grants') page = grantsPage();
  else if (section === 'decisions') page = decisionsPage();
  else if (section === 'schedules') page = schedulesPage();
  else if (section === 'memory') page = memoryPage();
  else page = runsPage();
}

// ---------------------------------------------------------------- runs list

function runsPage() {
  let timer;
  const list = h('div', { id: 'runs' });
  const goal = h('textarea', { id: 'goal', name: 'goal', rows: 2, required: true, maxlength: 10000 });
  const mode = h(
    'select',
    { id: 'mode', name: 'mode' },
    h('option', { value: 'execute' }, 'execute'),
    h('option', { value: 'plan_only' }, 'plan only'),
  );
  const feedback = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    {
      'aria-labelledby': 'start-heading',
      onsubmit: async (event) => {
        event.preventDefault();
        feedback.replaceChildren();
        try {
          const { run } = await api('runs', {
            method: 'POST',
            body: JSON.stringify({ goal: goal.value, mode: mode.value }),
          });
          location.hash = `#/runs/${encodeURIComponent(run.id)}`;
        } catch (error) {
          showError(feedback, error);
        }
      },
    },
    h('label', { for: 'goal' }, 'Goal'),
    goal,
    h('label', { for: 'mode' }, 'Mode'),
    mode,
    h('div', { class: 'row' }, h('button', { type: 'submit' }, 'Start run')),
    feedback,
  );
  main().append(h('h2', { id: 'start-heading' }, 'Start a run'), h('section', {}, form), h('h2', {}, 'Runs'), list);
  const load = async () => {
    try {
      const { runs } = await api('runs?limit=50');
      const rows = runs.map((r) =>
        h(
          'tr',
          {},
          h('td', { 'data-label': 'Goal' }, h('a', { href: `#/runs/${encodeURIComponent(r.id)}` }, r.goal)),
          h('td', { 'data-label': 'Status' }, badge(r.status)),
          h('td', { 'data-label': 'Started by' }, r.startedBy),
          h('td', { 'data-label': 'Created' }, when(r.createdAt)),
        ),
      );
      list.replaceChildren(
        runs.length === 0
          ? h('p', { class: 'muted' }, 'No runs yet.')
          : h(
              'table',
              {},
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  h('th', {}, 'Goal'),
                  h('th', {}, 'Status'),
                  h('th', {}, 'Started by'),
                  h('th', {}, 'Created'),
                ),
              ),
              h('tbody', {}, rows),
            ),
      );
    } catch (error) {
      list.replaceChildren();
      showError(list, error);
    }
    timer = setTimeout(load, POLL_MS);
  };
  void load();
  return { close: () => clearTimeout(timer) };
}

// ---------------------------------------------------------------- one run, live

function runPage(runId) {
  let closed = false;
  let lastSeq = 0; // the run's last applied per-run sequence
  let lastGlobal = 0; // the global sequence of that event
  let source;
  let pollTimer;
  let reopenTimer;
  let catchingUp;
  let currentText; // the transcript item the model's text is streaming into
  const calls = new Map(); // callId -> transcript item
  const approvalCards = new Map(); // approvalId -> card
  let interactive = false; // a top-level run of a conversation: its last turn can be undone
  let personMessages = 0; // a person's messages after the goal that reached the model, here and before the fork

  const status = h('span', { id: 'run-status' });
  const goal = h('p', { id: 'run-goal' });
  const pruned = h('p', { id: 'run-pruned', class: 'muted' });
  const checklist = h('div', { id: 'plan' }, h('p', { class: 'muted' }, 'No plan yet.'));
  const transcript = h('ol', { id: 'transcript', class: 'transcript', 'aria-label': 'What the agent did' });
  const approvals = h('div', { id: 'run-approvals' });
  const report = h('div', { id: 'report' }, h('p', { class: 'muted' }, 'No report yet.'));
  const message = h('textarea', { id: 'message', rows: 2, maxlength: 10000 });
  // The text of a turn just undone comes back here, to be edited and sent again.
  if (drafts.has(runId)) {
    message.value = drafts.get(runId);
    drafts.delete(runId);
  }
  const feedback = h('div', { 'aria-live': 'polite' });
  const lineage = h('div', { id: 'run-lineage' });
  const undo = h(
    'button',
    {
      type: 'button',
      id: 'undo-turn',
      class: 'secondary',
      disabled: true,
      title: 'Go back to before your last message: the conversation continues in a fork, this one stays readable',
      onclick: async () => {
        feedback.replaceChildren();
        undo.disabled = true;
        try {
          const result = await api(`runs/${encodeURIComponent(runId)}/undo`, { method: 'POST', body: '{}' });
          drafts.set(result.run.id, result.undoneMessage.text);
          location.hash = `#/runs/${encodeURIComponent(result.run.id)}`;
        } catch (error) {
          showError(feedback, error);
          syncUndo();
        }
      },
    },
    'Undo last turn',
  );
  const syncUndo = () => {
    undo.disabled = !(interactive && personMessages > 0);
  };
  const steer = h(
    'form',
    {
      onsubmit: async (event) => {
        event.preventDefault();
        feedback.replaceChildren();
        try {
          await api(`runs/${encodeURIComponent(runId)}/messages`, {
            method: 'POST',
            body: JSON.stringify({ text: message.value }),
          });
          message.value = '';
        } catch (error) {
          showError(feedback, error);
        }
      },
    },
    h('label', { for: 'message' }, 'Message to the run'),
    message,
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'submit' }, 'Send'),
      undo,
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onclick: async () => {
            feedback.replaceChildren();
            try {
              await api(`runs/${encodeURIComponent(runId)}/abort`, { method: 'POST', body: '{}' });
            } catch (error) {
              showError(feedback, error);
            }
          },
        },
        'Abort run',
      ),
    ),
    feedback,
  );
  main().append(
    h('p', {}, h('a', { href: '#/' }, '← Runs')),
    h('h2', {}, 'Run ', h('code', {}, runId), ' ', status),
    goal,
    lineage,
    pruned,
    approvals,
    h('section', { 'aria-labelledby': 'plan-h' }, h('h3', { id: 'plan-h' }, 'Plan'), checklist),
    h('section', { 'aria-labelledby': 'log-h' }, h('h3', { id: 'log-h' }, 'Progress'), transcript),
    h('section', { 'aria-labelledby': 'report-h' }, h('h3', { id: 'report-h' }, 'Verified report'), report),
    h('section', {}, steer),
    forkPointsSection(runId),
  );

  const note = (text) => {
    currentText = undefined;
    transcript.append(h('li', { class: 'note' }, text));
  };

  /**
   * Applies one event of this run, exactly once and in order (by per-run sequence). `via` says how it came
   * (`stream` or `read`); each text piece leaves a `media-agent:text_delta` performance mark with its event time.
   */
  function apply(e, via) {
    if (e.seq !== lastSeq + 1) return false;
    lastSeq = e.seq;
    lastGlobal = Math.max(lastGlobal, e.globalSeq);
    const d = e.data;
    switch (e.type) {
      case 'run_status':
        status.replaceChildren(badge(d.status));
        note(`run ${d.status} (${d.step})${d.reason ? ` — ${d.reason}` : ''}`);
        break;
      case 'text_delta':
        if (!currentText) {
          currentText = h('li', { class: 'text' });
          transcript.append(currentText);
        }
        currentText.append(d.text);
        performance.mark('media-agent:text_delta', { detail: { globalSeq: e.globalSeq, at: e.at, via } });
        break;
      case 'tool_call': {
        currentText = undefined;
        let item = calls.get(d.callId);
        if (!item) {
          item = h('li', { class: 'tool', 'data-call-id': d.callId, 'data-phases': '' });
          calls.set(d.callId, item);
          transcript.append(item);
        }
        item.dataset.phases = item.dataset.phases ? `${item.dataset.phases} ${d.phase}` : d.phase;
        item.replaceChildren(
          `${d.capabilityId} `,
          badge(d.phase),
          d.error ? h('span', { class: 'error' }, ` ${d.error.code}: ${d.error.message}`) : '',
        );
        break;
      }
      case 'checklist_updated':
        renderChecklist(d.checklist);
        break;
      case 'inbox_queued':
        note(`message queued: ${d.text}`);
        break;
      case 'inbox_applied':
        note('messages reached the model');
        // A message that reached the model is a turn of the person's that can be undone (a queued one cannot yet).
        personMessages += d.inboxIds?.length ?? 0;
        syncUndo();
        break;
      case 'approval_requested':
        note(
          `approval asked for ${d.planType} plan ${d.planId} (${d.capabilityId})${d.impact?.summary ? `: ${d.impact.summary}` : ''}`,
        );
        if (!approvalCards.has(d.approvalId)) {
          const card = approvalCard(d.approvalId);
          approvalCards.set(d.approvalId, card);
          approvals.append(card);
        }
        break;
      case 'approval_decided':
        note(`approval ${d.approvalId} ${d.status}`);
        approvalCards.get(d.approvalId)?.refresh?.();
        break;
      case 'report':
        renderReport(d.report);
        break;
      case 'budget_exceeded':
        note(`budget ${d.budget} exceeded (limit ${d.limit}, used ${d.used})`);
        break;
      case 'warning':
        note(`warning ${d.code}: ${d.message}`);
        break;
      case 'input_requested':
        note(`the run asks: ${d.question}`);
        break;
      case 'forked':
        note(
          `${d.undo ? 'your last turn was undone: this conversation continues' : 'forked'} from run ${d.fromRunId} after event ${d.atSeq}` +
            (d.effectsAfter?.length
              ? `; ${d.effectsAfter.length} effect${d.effectsAfter.length === 1 ? '' : 's'} the previous branch performed after it stay done: ${d.effectsAfter.map((x) => `${x.capabilityId} (${x.outcome})`).join(', ')}`
              : ''),
        );
        break;
      default:
        break;
    }
    main().dataset.lastSeq = String(lastSeq);
    return true;
  }

  function renderChecklist(list) {
    if (!list?.steps?.length) {
      checklist.replaceChildren(h('p', { class: 'muted' }, 'No plan yet.'));
      return;
    }
    checklist.replaceChildren(
      h(
        'ol',
        { class: 'steps' },
        list.steps.map((s) => h('li', { 'data-status': s.status }, `${s.title} `, badge(s.status))),
      ),
    );
  }

  function renderReport(r) {
    if (!r) return;
    const facts = r.facts ?? {};
    report.replaceChildren(
      h(
        'p',
        {},
        badge(r.status),
        ' ',
        h('strong', { id: 'report-verified' }, r.verified ? 'verified' : 'not verified'),
        ' from the media manager’s records',
      ),
      h('p', { id: 'report-summary' }, r.summary ?? ''),
      h(
        'ul',
        {},
        (facts.downloads ?? []).map((d) => h('li', {}, `download ${d.id}: ${d.title} — `, badge(d.status))),
        (facts.organizes ?? []).map((o) =>
          h('li', {}, `organized ${o.mediaEntityId} → ${o.libraryPath ?? '?'} `, badge(o.status)),
        ),
      ),
      r.modelText?.text ? h('p', { class: 'muted' }, `The model said (unverified): ${r.modelText.text}`) : '',
    );
  }

  /** Reads the run's stored events after the last applied one (pages), then its snapshot. */
  function catchUp() {
    catchingUp ??= (async () => {
      try {
        for (;;) {
          const detail = await api(`runs/${encodeURIComponent(runId)}?afterSeq=${lastSeq}&limit=500`);
          if (!goal.textContent) goal.textContent = detail.run.goal;
          if (lastSeq === 0) {
            interactive = detail.run.origin === 'interactive' && !detail.run.depth;
            if (detail.run.forkedFrom && !lineage.dataset.from) {
              lineage.dataset.from = detail.run.forkedFrom.runId;
              void showLineage(lineage, detail.run.forkedFrom, (n) => {
                personMessages += n;
                syncUndo();
              });
            }
            syncUndo();
            status.replaceChildren(badge(detail.run.status));
            // Retention removed its events and messages: say so, and show the report it kept.
            if (detail.run.prunedAt) {
              pruned.textContent = `Events removed by retention on ${new Date(detail.run.prunedAt).toLocaleString()}.`;
              if (detail.report) renderReport(detail.report);
            }
          }
          for (const e of detail.events) apply(e, 'read');
          if (detail.events.length < 500) break;
        }
      } finally {
        catchingUp = undefined;
      }
    })();
    return catchingUp;
  }

  function onStreamEvent(message) {
    const e = JSON.parse(message.data);
    if (e.runId !== runId || e.seq <= lastSeq) return;
    if (!apply(e, 'stream')) void catchUp().catch(() => {});
  }

  function openStream() {
    if (closed) return;
    source?.close();
    source = new EventSource(`api/events?runId=${encodeURIComponent(runId)}&after=${lastGlobal}`);
    for (const type of EVENT_TYPES) source.addEventListener(type, onStreamEvent);
    source.onopen = () => {
      setConnection('live');
      stopPolling();
      // Anything stored while the stream was down and before the stream's resume point is read now.
      void catchUp().catch(() => {});
    };
    source.onerror = () => {
      setConnection('reconnecting… (polling)');
      startPolling();
      if (source.readyState === EventSource.CLOSED) {
        clearTimeout(reopenTimer);
        reopenTimer = setTimeout(openStream, POLL_MS);
      }
    };
  }

  function startPolling() {
    if (pollTimer || closed) return;
    const tick = async () => {
      try {
        await catchUp();
      } catch {
        // the server is down: try again
      }
      if (pollTimer) pollTimer = setTimeout(tick, POLL_MS);
    };
    pollTimer = setTimeout(tick, POLL_MS);
  }

  function stopPolling() {
    clearTimeout(pollTimer);
    pollTimer = undefined;
  }

  void (async () => {
    try {
      await catchUp();
    } catch (error) {
      showError(main(), error);
      return;
    }
    openStream();
  })();

  return {
    close() {
      closed = true;
      source?.close();
      stopPolling();
      clearTimeout(reopenTimer);
    },
  };
}

/** The events of a run with per-run sequence 1..`toSeq`, read in pages. */
async function eventsUpTo(runId, toSeq) {
  const events = [];
  for (;;) {
    const after = events.at(-1)?.seq ?? 0;
    if (after >= toSeq) break;
    const { events: page } = await api(
      `runs/${encodeURIComponent(runId)}?afterSeq=${after}&limit=${Math.min(500, toSeq - after)}`,
    );
    events.push(...page.filter((e) => e.seq <= toSeq));
    if (page.length === 0 || page.length < Math.min(500, toSeq - after)) break;
  }
  return events;
}

/**
 * A fork's lineage: the link to the previous branch (the run it was forked from, readable as it is) and, below it,
 * that branch's conversation up to the fork point, read-only. `onMessages` is told how many messages of a person it
 * shows (an undo can take those back too).
 */
async function showLineage(container, forkedFrom, onMessages) {
  const link = h(
    'a',
    { id: 'previous-branch', href: `#/runs/${encodeURIComponent(forkedFrom.runId)}` },
    'previous branch',
  );
  container.replaceChildren(
    h(
      'p',
      { class: 'lineage' },
      'Forked after event ',
      String(forkedFrom.atSeq),
      ' of the ',
      link,
      ' ',
      h('code', {}, forkedFrom.runId),
      '.',
    ),
  );
  try {
    const events = await eventsUpTo(forkedFrom.runId, forkedFrom.atSeq);
    const items = [];
    const queued = new Map(); // inbox id → text: a message is in the conversation once applied, where it was applied
    let text;
    let messages = 0;
    for (const e of events) {
      if (e.type === 'text_delta') {
        if (!text) items.push((text = h('li', { class: 'text' })));
        text.append(e.data.text);
        continue;
      }
      if (e.type === 'tool_call' && e.data.phase !== 'started') {
        text = undefined;
        items.push(h('li', { class: 'tool' }, `${e.data.capabilityId} `, badge(e.data.phase)));
      } else if (e.type === 'inbox_queued') {
        queued.set(e.data.inboxId, e.data.text);
      } else if (e.type === 'inbox_applied') {
        text = undefined;
        for (const id of e.data.inboxIds ?? []) {
          if (!queued.has(id)) continue;
          messages++;
          items.push(h('li', { class: 'note' }, `you wrote: ${queued.get(id)}`));
        }
      }
    }
    onMessages(messages);
    container.append(
      h(
        'details',
        { class: 'history' },
        h('summary', {}, `The conversation before the fork (${events.length} events)`),
        h('ol', { class: 'transcript', 'aria-label': 'The conversation before the fork' }, items),
      ),
    );
  } catch (error) {
    showError(container, error);
  }
}

/**
 * The run's fork points (step boundaries), read when opened: each can start a fork, a new run that continues the
 * conversation from there (effects performed after it are facts for the fork, never repeated or undone).
 */
function forkPointsSection(runId) {
  const list = h('div', { id: 'fork-points' });
  const feedback = h('div', { 'aria-live': 'polite' });
  const load = async () => {
    feedback.replaceChildren();
    try {
      const { forkPoints } = await api(`runs/${encodeURIComponent(runId)}/fork-points`);
      list.replaceChildren(
        forkPoints.length === 0
          ? h('p', { class: 'muted' }, 'No step has ended yet.')
          : h(
              'ol',
              { class: 'fork-points' },
              forkPoints.map((p) =>
                h(
                  'li',
                  { class: 'row', 'data-seq': p.seq },
                  h('span', {}, `after event ${p.seq}: ${p.label} `, h('span', { class: 'muted' }, when(p.at))),
                  h(
                    'button',
                    {
                      type: 'button',
                      class: 'secondary',
                      onclick: async () => {
                        feedback.replaceChildren();
                        try {
                          const { run } = await api(`runs/${encodeURIComponent(runId)}/fork`, {
                            method: 'POST',
                            body: JSON.stringify({ atSeq: p.seq }),
                          });
                          location.hash = `#/runs/${encodeURIComponent(run.id)}`;
                        } catch (error) {
                          showError(feedback, error);
                        }
                      },
                    },
                    'Fork from here',
                  ),
                ),
              ),
            ),
      );
    } catch (error) {
      list.replaceChildren();
      showError(feedback, error);
    }
  };
  const details = h(
    'details',
    { id: 'fork-points-section' },
    h('summary', {}, 'Fork from a step'),
    h(
      'p',
      { class: 'muted' },
      'A fork is a new run that continues this conversation from the step you choose. What this run did after that step stays done: the fork is told, and never repeats or undoes it.',
    ),
    list,
    feedback,
  );
  details.addEventListener('toggle', () => {
    if (details.open) void load();
  });
  return h('section', { 'aria-label': 'Fork points' }, details);
}

// ---------------------------------------------------------------- approvals

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];

/** Bytes in decimal units with one decimal below 100 (`58.2 GB`, `412 GB`): the SDK's formatBytes, as summaries read. */
function formatBytes(bytes) {
  if (typeof bytes !== 'number' || !Number.isFinite(bytes)) return 'unknown size';
  const sign = bytes < 0 ? '-' : '';
  let value = Math.abs(bytes);
  let unit = 0;
  while (value >= 1000 && unit < BYTE_UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  const shown = unit === 0 || value >= 100 ? Math.round(value).toString() : value.toFixed(1).replace(/\.0$/, '');
  return `${sign}${shown} ${BYTE_UNITS[unit]}`;
}

/** A duration in the largest whole unit people read (`45 s`, `12 min`, `3 h`): the SDK's formatDuration. */
function formatDuration(ms) {
  if (ms < 60_000) return `${Math.max(1, Math.round(ms / 1000))} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 360_000) / 10} h`;
}

/** The rows of an impact's table: [label, value] for each field the capability filled in, with units. */
function impactRows(impact) {
  const rows = [];
  const bytes = (label, value) => value !== undefined && rows.push([label, formatBytes(value)]);
  const count = (label, value) => value !== undefined && rows.push([label, `${value} file${value === 1 ? '' : 's'}`]);
  bytes('Download', impact.downloadBytes);
  bytes('Write', impact.writeBytes);
  bytes('Delete', impact.deleteBytes);
  count('Files created', impact.filesCreated);
  count('Files moved', impact.filesMoved);
  count('Files overwritten', impact.filesOverwritten);
  count('Files deleted', impact.filesDeleted);
  if (impact.path !== undefined) rows.push(['Path', h('code', {}, impact.path)]);
  if (impact.transferMode !== undefined) rows.push(['Transfer mode', impact.transferMode]);
  bytes('Free before', impact.freeBytesBefore);
  if (impact.freeBytesAfter !== undefined)
    rows.push([
      'Free after',
      impact.freeBytesAfter < 0
        ? h('span', { class: 'error' }, `does not fit: ${formatBytes(-impact.freeBytesAfter)} short`)
        : formatBytes(impact.freeBytesAfter),
    ]);
  if (impact.quota)
    rows.push([
      `Quota ${impact.quota.name}`,
      `${impact.quota.used} of ${impact.quota.limit} ${impact.quota.unit} used after`,
    ]);
  if (impact.estimatedDurationMs !== undefined)
    rows.push(['Duration', `about ${formatDuration(impact.estimatedDurationMs)}`]);
  rows.push([
    'Can be undone',
    !impact.reversible
      ? h('span', { class: 'error' }, 'no')
      : impact.reversibleBy === 'quarantine'
        ? `yes: kept in quarantine${impact.quarantineDays !== undefined ? ` for ${impact.quarantineDays} days` : ''}`
        : impact.reversibleBy === 'inverse'
          ? 'yes: by its inverse'
          : 'yes',
  ]);
  return rows;
}

/** What the call will do: the summary line first, then each field with its unit; or why the impact is unknown. */
function impactView(report) {
  if (!report)
    return h(
      'div',
      { class: 'impact unknown' },
      h('p', { class: 'impact-summary' }, 'Impact unknown: none was computed for this approval.'),
    );
  if (report.status !== 'known')
    return h(
      'div',
      { class: 'impact unknown' },
      h(
        'p',
        { class: 'impact-summary' },
        h('strong', {}, 'Impact unknown'),
        `: ${report.reason} `,
        h('code', {}, report.code),
      ),
    );
  const { impact } = report;
  return h(
    'div',
    { class: 'impact' },
    h('p', { class: 'impact-summary' }, h('strong', {}, report.summary)),
    h(
      'table',
      { class: 'impact-facts', 'aria-label': 'Impact' },
      h(
        'tbody',
        {},
        impactRows(impact).map(([label, value]) => h('tr', {}, h('th', { scope: 'row' }, label), h('td', {}, value))),
      ),
    ),
    impact.notes?.length
      ? h(
          'ul',
          { class: 'impact-notes' },
          impact.notes.map((n) => h('li', {}, n)),
        )
      : '',
  );
}

/**
 * The plan's steps as checkboxes: while the approval is open every step starts checked (approve all, or uncheck
 * some to approve only the rest); once decided they show what was approved. Returns the element and the ids checked.
 */
function stepsView(approval, open, onChange) {
  const approved = approval.approvedSteps ?? approval.steps.map((s) => s.id);
  // The bytes of each step, when the impact lists them.
  const bytesOf = new Map(
    approval.impact?.status === 'known' ? (approval.impact.impact.steps ?? []).map((s) => [s.id, s.bytes]) : [],
  );
  const boxes = approval.steps.map((step, i) => {
    const id = `step-${approval.id}-${i}`;
    const box = h('input', {
      type: 'checkbox',
      id,
      value: step.id,
      checked:
        open || (approval.status !== 'requested' && approval.status !== 'rejected' && approved.includes(step.id)),
      disabled: !open,
    });
    box.addEventListener('change', onChange);
    return {
      box,
      row: h(
        'li',
        { class: 'row', 'data-step-id': step.id },
        box,
        h(
          'label',
          { for: id },
          step.label,
          ' ',
          h('code', { class: 'muted' }, step.id),
          typeof bytesOf.get(step.id) === 'number' ? ` — ${formatBytes(bytesOf.get(step.id))}` : '',
        ),
      ),
    };
  });
  const decided = approval.status === 'approved' || approval.status === 'consumed';
  const element = h(
    'fieldset',
    { class: 'plan-steps' },
    h('legend', {}, open ? 'Steps to approve' : 'Steps'),
    h(
      'ul',
      {},
      boxes.map((b) => b.row),
    ),
    decided
      ? h(
          'p',
          { class: 'approved-steps' },
          approval.approvedSteps === null
            ? approval.steps.length === 1
              ? 'The step is approved.'
              : `All ${approval.steps.length} steps approved.`
            : `Approved ${approval.approvedSteps.length} of ${approval.steps.length} steps: ${approval.approvedSteps.join(', ')}.`,
        )
      : '',
  );
  return { element, checked: () => boxes.filter((b) => b.box.checked).map((b) => b.box.value) };
}

/** The proposed, approved (possibly edited) and executed payloads apart, each with its hash, once there is more than one. */
function payloadsView(approval) {
  const edited = approval.approvedPayload !== null && approval.approvedPayload !== undefined;
  const decided = approval.status === 'approved' || approval.status === 'consumed';
  const rows = [];
  const proposedHash = approval.proposedPayloadHash || approval.payloadHash;
  if (edited) rows.push(['proposed', proposedHash, h('span', { class: 'muted' }, 'shown below')]);
  if (edited)
    rows.push(['approved (edited)', approval.payloadHash, h('span', { class: 'muted' }, 'the payload above')]);
  else if (decided) rows.push(['approved', approval.payloadHash, h('span', { class: 'muted' }, 'as proposed')]);
  if (approval.executedPayloadHash)
    rows.push([
      'executed',
      approval.executedPayloadHash,
      approval.executedPayloadHash === approval.payloadHash
        ? h('span', { class: 'muted' }, 'the approved payload')
        : h('span', { class: 'error' }, 'differs from the approved payload'),
    ]);
  if (rows.length === 0) return '';
  const table = h(
    'table',
    { class: 'payloads', 'aria-label': 'Payloads' },
    h('thead', {}, h('tr', {}, h('th', {}, 'Payload'), h('th', {}, 'Hash'), h('th', {}, ''))),
    h(
      'tbody',
      {},
      rows.map(([label, hash, extra]) =>
        h(
          'tr',
          { 'data-payload': label.split(' ')[0] },
          h('td', { 'data-label': 'Payload' }, label),
          h('td', { 'data-label': 'Hash' }, h('code', { class: 'payload-hash' }, hash)),
          h('td', {}, extra),
        ),
      ),
    ),
  );
  if (!edited || approval.proposedPayload === null) return table;
  // One node: the card's replaceChildren takes nodes, and an array would be printed as "[object …]".
  return h(
    'div',
    {},
    table,
    h(
      'details',
      { class: 'proposed' },
      h('summary', {}, 'Proposed payload (before the edit)'),
      h('pre', { tabindex: 0, 'aria-label': 'Proposed payload' }, JSON.stringify(approval.proposedPayload, null, 2)),
    ),
  );
}

/**
 * A card that shows an approval: its impact, the plan's payload and hash, its steps; approving echoes that hash (with
 * the steps checked when not all are), or approves an edited payload ("Edit"). A refused decision shows its code.
 */
function approvalCard(approvalId) {
  const card = h('section', { class: 'card approval', 'data-approval-id': approvalId, 'aria-live': 'polite' });
  const load = async () => {
    try {
      const { approval, plan } = await api(`approvals/${encodeURIComponent(approvalId)}`);
      const open = approval.status === 'requested';
      const confirmId = `confirm-${approvalId}`;
      const confirm = h('input', { type: 'checkbox', id: confirmId });
      const approve = h('button', { type: 'button', disabled: true }, 'Approve');
      const reject = h('button', { type: 'button', class: 'secondary' }, 'Reject');
      const edit = h('button', { type: 'button', class: 'secondary' }, 'Edit');
      const feedback = h('div', {});
      const steps = approval.steps?.length ? stepsView(approval, open, () => sync()) : undefined;
      const sync = () => {
        approve.disabled = !confirm.checked || (steps !== undefined && steps.checked().length === 0);
        approve.textContent =
          steps && steps.checked().length < approval.steps.length
            ? `Approve ${steps.checked().length} of ${approval.steps.length} steps`
            : 'Approve';
      };
      confirm.addEventListener('change', sync);
      const decide = async (body) => {
        feedback.replaceChildren();
        try {
          await api(`approvals/${encodeURIComponent(approvalId)}`, { method: 'PATCH', body: JSON.stringify(body) });
          await load();
        } catch (error) {
          showError(feedback, error);
        }
      };
      approve.addEventListener('click', () => {
        const chosen = steps?.checked();
        void decide({
          status: 'approved',
          payloadHash: plan.payloadHash,
          ...(chosen && chosen.length < approval.steps.length ? { steps: chosen } : {}),
        });
      });
      reject.addEventListener('click', () => decide({ status: 'rejected' }));

      // Edit: the payload as editable JSON; approving sends it as the edit, with the proposed payload's hash.
      const editorId = `edit-${approvalId}`;
      const editor = h('textarea', { id: editorId, rows: 10, spellcheck: 'false', class: 'payload-editor' });
      editor.value = JSON.stringify(plan.payload, null, 2);
      const approveEdited = h('button', { type: 'button' }, 'Approve with edits');
      const cancelEdit = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
      const editForm = h(
        'div',
        { class: 'edit', hidden: true },
        h(
          'label',
          { for: editorId },
          'Edited payload (JSON): it is checked against the capability’s schema and policy',
        ),
        editor,
        h('div', { class: 'row' }, approveEdited, cancelEdit),
      );
      edit.addEventListener('click', () => {
        editForm.hidden = false;
        edit.disabled = true;
        editor.focus();
      });
      cancelEdit.addEventListener('click', () => {
        editForm.hidden = true;
        edit.disabled = false;
        editor.value = JSON.stringify(plan.payload, null, 2);
      });
      approveEdited.addEventListener('click', () => {
        feedback.replaceChildren();
        let payload;
        try {
          payload = JSON.parse(editor.value);
        } catch (error) {
          feedback.append(
            h('p', { class: 'error', role: 'alert' }, `The edited payload is not JSON: ${error.message}`),
          );
          return;
        }
        void decide({
          status: 'approved',
          payloadHash: approval.payloadHash,
          edits: { payload, ...(approval.capabilityId ? { capabilityId: approval.capabilityId } : {}) },
        });
      });

      card.replaceChildren(
        h(
          'h3',
          {},
          `Approval for ${approval.planType} plan `,
          h('code', {}, approval.planId),
          ' ',
          badge(approval.status),
        ),
        impactView(approval.impact),
        approval.reason ? h('p', {}, approval.reason) : '',
        h(
          'p',
          {},
          'Asked by ',
          h('code', {}, approval.requestedBy),
          approval.capabilityId ? [' for ', h('code', {}, approval.capabilityId)] : '',
          `; expires ${when(approval.expiresAt)}`,
        ),
        h('p', {}, 'Payload (revision ', String(plan.revision), '):'),
        h('pre', { tabindex: 0, 'aria-label': 'Plan payload' }, JSON.stringify(plan.payload, null, 2)),
        h('p', {}, 'Payload hash: ', h('code', { class: 'hash' }, plan.payloadHash)),
        payloadsView(approval),
        steps ? steps.element : '',
        open
          ? h(
              'div',
              {},
              h(
                'div',
                { class: 'row' },
                confirm,
                h('label', { for: confirmId }, 'I reviewed this payload; approve exactly this hash'),
              ),
              // Only an approval asked for by a capability can be edited (its plan payload schema checks the edit).
              h('div', { class: 'row' }, approve, reject, approval.capabilityId ? edit : ''),
              editForm,
            )
          : h('p', {}, `Decided by ${approval.decidedBy ?? '—'} at ${when(approval.decidedAt)}`),
        feedback,
      );
    } catch (error) {
      card.replaceChildren();
      showError(card, error);
    }
  };
  card.refresh = load;
  void load();
  return card;
}

function approvalsPage() {
  const list = h('div', {});
  main().append(h('h2', {}, 'Approvals waiting for a decision'), list);
  const load = async () => {
    try {
      const { approvals } = await api('approvals?status=requested');
      // replaceChildren takes nodes, not an array: an array would be printed as "[object HTMLElement]".
      list.replaceChildren(
        ...(approvals.length === 0
          ? [h('p', { class: 'muted' }, 'Nothing waits for approval.')]
          : approvals.map((a) => approvalCard(a.id))),
      );
    } catch (error) {
      showError(list, error);
    }
  };
  void load();
  return { close() {} };
}

// ---------------------------------------------------------------- grants

function grantsPage() {
  const list = h('div', {});
  const action = h('input', {
    id: 'grant-action',
    required: true,
    placeholder: 'download.plan',
    list: 'grant-actions',
  });
  // The capabilities the caller's role may call (api/capabilities), offered as actions.
  const actions = h('datalist', { id: 'grant-actions' });
  void api('capabilities')
    .then(({ capabilities }) =>
      actions.replaceChildren(...capabilities.map((c) => h('option', { value: c.id }, `${c.title} (${c.kind})`))),
    )
    .catch(() => undefined);
  const hours = h('input', { id: 'grant-hours', type: 'number', min: 1, value: 24 });
  const reason = h('input', { id: 'grant-reason' });
  const feedback = h('div', { 'aria-live': 'polite' });
  const load = async () => {
    try {
      const { grants } = await api('grants');
      list.replaceChildren(
        grants.length === 0
          ? h('p', { class: 'muted' }, 'No grants.')
          : h(
              'table',
              {},
              h(
                'thead',
                {},
                h('tr', {}, h('th', {}, 'Action'), h('th', {}, 'Status'), h('th', {}, 'Expires'), h('th', {}, '')),
              ),
              h(
                'tbody',
                {},
                grants.map((g) =>
                  h(
                    'tr',
                    {},
                    h('td', { 'data-label': 'Action' }, h('code', {}, g.action), g.reason ? ` — ${g.reason}` : ''),
                    h('td', { 'data-label': 'Status' }, badge(g.status)),
                    h('td', { 'data-label': 'Expires' }, when(g.expiresAt)),
                    h(
                      'td',
                      {},
                      g.status === 'active'
                        ? h(
                            'button',
                            {
                              type: 'button',
                              class: 'secondary',
                              onclick: async () => {
                                try {
                                  await api(`grants/${encodeURIComponent(g.id)}`, {
                                    method: 'PATCH',
                                    body: JSON.stringify({ status: 'revoked' }),
                                  });
                                  await load();
                                } catch (error) {
                                  showError(feedback, error);
                                }
                              },
                            },
                            'Revoke',
                          )
                        : '',
                    ),
                  ),
                ),
              ),
            ),
      );
    } catch (error) {
      list.replaceChildren();
      showError(list, error);
    }
  };
  const form = h(
    'form',
    {
      onsubmit: async (event) => {
        event.preventDefault();
        feedback.replaceChildren();
        try {
          await api('grants', {
            method: 'POST',
            body: JSON.stringify({
              action: action.value,
              expiresAt: Date.now() + Number(hours.value) * 3_600_000,
              ...(reason.value ? { reason: reason.value } : {}),
            }),
          });
          await load();
        } catch (error) {
          showError(feedback, error);
        }
      },
    },
    h('label', { for: 'grant-action' }, 'Action (capability id or family.*)'),
    action,
    actions,
    h('label', { for: 'grant-hours' }, 'Expires in hours'),
    hours,
    h('label', { for: 'grant-reason' }, 'Reason'),
    reason,
    h('div', { class: 'row' }, h('button', { type: 'submit' }, 'Create grant')),
    feedback,
  );
  main().append(h('h2', {}, 'Grants'), list, h('h2', {}, 'New grant'), h('section', {}, form));
  void load();
  return { close() {} };
}

// ---------------------------------------------------------------- decisions

function decisionsPage() {
  const list = h('div', {});
  main().append(h('h2', {}, 'Decisions'), list);
  const send = async (d, path, body, feedback) => {
    feedback.replaceChildren();
    try {
      await api(`decisions/${encodeURIComponent(d.id)}/${path}`, { method: 'POST', body: JSON.stringify(body) });
      await load();
    } catch (error) {
      showError(feedback, error);
    }
  };
  const load = async () => {
    try {
      const { decisions } = await api('decisions');
      list.replaceChildren(
        ...(decisions.length === 0 ? [h('p', { class: 'muted' }, 'No decisions.')] : []),
        ...decisions.map((d) => {
          const feedback = h('div', { 'aria-live': 'polite' });
          const open = d.status === 'open' || d.status === 'awaiting_user';
          const chosen = d.options.find((o) => o.id === d.resolution?.optionId);
          const subject =
            d.subjectType === 'run'
              ? h('a', { href: `#/runs/${encodeURIComponent(d.subjectId)}` }, d.subjectId)
              : h('code', {}, `${d.subjectType} ${d.subjectId}`);
          return h(
            'section',
            { class: 'card', 'data-decision-id': d.id },
            h('h3', {}, `${d.kind} `, badge(d.status)),
            h('p', {}, d.reason),
            h('p', {}, 'About ', subject, `; raised by ${d.raisedBy} at ${when(d.createdAt)}`),
            d.evidence && Object.keys(d.evidence).length > 0
              ? h('pre', { tabindex: 0, 'aria-label': 'Evidence' }, JSON.stringify(d.evidence, null, 2))
              : '',
            d.resolution
              ? h(
                  'p',
                  { class: 'resolution' },
                  `Closed by ${d.resolvedBy ?? 'the system'}`,
                  chosen ? ` choosing “${chosen.label}”` : '',
                  d.resolution.note ? `: ${d.resolution.note}` : '',
                )
              : '',
            open
              ? h(
                  'div',
                  { class: 'row' },
                  d.options.map((option) =>
                    h(
                      'button',
                      {
                        type: 'button',
                        title: option.capabilityId ? `runs ${option.capabilityId}` : 'records the choice',
                        onclick: () => send(d, 'choice', { option: option.id }, feedback),
                      },
                      option.label,
                    ),
                  ),
                  h(
                    'button',
                    { type: 'button', class: 'secondary', onclick: () => send(d, 'dismiss', {}, feedback) },
                    'Dismiss',
                  ),
                )
              : '',
            feedback,
          );
        }),
      );
    } catch (error) {
      list.replaceChildren();
      showError(list, error);
    }
  };
  void load();
  return { close() {} };
}

// ---------------------------------------------------------------- schedules

/** A schedule's timing in words: its cron expression and zone, or its interval. */
function timing(s) {
  if (s.cron) return [h('code', {}, s.cron), ` (${s.timezone})`];
  const ms = s.everyMs;
  const every =
    ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`;
  return `every ${every}`;
}

function schedulesPage() {
  let timer;
  let closed = false;
  const list = h('div', { id: 'schedules' });
  const feedback = h('div', { 'aria-live': 'polite' });
  main().append(
    h('h2', {}, 'Schedules'),
    h(
      'p',
      { class: 'muted' },
      'Recurring goals: each tick starts one background run. A paused schedule starts nothing until it is resumed.',
    ),
    feedback,
    list,
  );
  const act = async (s, verb) => {
    feedback.replaceChildren();
    try {
      await api(`schedules/${encodeURIComponent(s.id)}/${verb}`, { method: 'POST', body: '{}' });
    } catch (error) {
      showError(feedback, error);
    }
    await load();
  };
  /** Reads the list, then again every 10 s while the page is shown (at once after a pause or resume). */
  const load = async () => {
    clearTimeout(timer);
    try {
      const { schedules } = await api('schedules?limit=200');
      list.replaceChildren(
        schedules.length === 0
          ? h('p', { class: 'muted' }, 'No schedules.')
          : h(
              'table',
              {},
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  h('th', {}, 'Goal'),
                  h('th', {}, 'When'),
                  h('th', {}, 'Next fire'),
                  h('th', {}, 'Last run'),
                  h('th', {}, 'Status'),
                  h('th', {}, ''),
                ),
              ),
              h(
                'tbody',
                {},
                schedules.map((s) =>
                  h(
                    'tr',
                    { 'data-schedule-id': s.id },
                    h('td', { 'data-label': 'Goal' }, s.goal, h('span', { class: 'muted' }, ` — ${s.owner}`)),
                    h('td', { 'data-label': 'When' }, timing(s)),
                    h(
                      'td',
                      { 'data-label': 'Next fire', class: 'next-fire' },
                      s.nextFireAt
                        ? h('time', { datetime: s.nextFireAt }, new Date(s.nextFireAt).toLocaleString())
                        : '—',
                    ),
                    h(
                      'td',
                      { 'data-label': 'Last run', class: 'last-run' },
                      s.lastRunId
                        ? [
                            h('a', { href: `#/runs/${encodeURIComponent(s.lastRunId)}` }, s.lastRunId),
                            ' ',
                            s.lastRunStatus ? badge(s.lastRunStatus) : h('span', { class: 'muted' }, 'removed'),
                          ]
                        : h('span', { class: 'muted' }, 'none yet'),
                    ),
                    h('td', { 'data-label': 'Status', class: 'schedule-status' }, badge(s.status)),
                    h(
                      'td',
                      {},
                      h(
                        'button',
                        {
                          type: 'button',
                          class: s.status === 'active' ? 'secondary' : undefined,
                          onclick: () => act(s, s.status === 'active' ? 'pause' : 'resume'),
                        },
                        s.status === 'active' ? 'Pause' : 'Resume',
                      ),
                    ),
                  ),
                ),
              ),
            ),
      );
    } catch (error) {
      list.replaceChildren();
      showError(list, error);
    }
    clearTimeout(timer);
    if (!closed) timer = setTimeout(load, POLL_MS * 4);
  };
  void load();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
    },
  };
}

// ---------------------------------------------------------------- memory proposals

/** One operation of a memory proposal in words: what it adds, or which whole original entry it replaces or removes. */
function describeOperation(op, previous) {
  const quote = (text) => h('span', { class: 'entry' }, `“${text ?? ''}”`);
  if (op.action === 'add') return ['add ', quote(op.content ?? op.new_text)];
  if (op.action === 'remove') return ['remove ', quote(previous ?? op.old_text)];
  return ['replace ', quote(previous ?? op.old_text), ' with ', quote(op.content ?? op.new_text)];
}

function memoryPage() {
  const list = h('div', { id: 'proposals' });
  const done = h('div', { 'aria-live': 'polite' });
  main().append(
    h('h2', {}, 'Memory proposals'),
    h(
      'p',
      { class: 'muted' },
      'Changes a background run wants to make to your memory. Approving applies one only if every entry it replaces is still there exactly.',
    ),
    done,
    list,
  );
  const act = async (p, verb, feedback) => {
    feedback.replaceChildren();
    done.replaceChildren();
    try {
      const body = await api(`memory/proposals/${encodeURIComponent(p.id)}/${verb}`, { method: 'POST', body: '{}' });
      const file = p.target === 'user' ? 'USER.md' : 'MEMORY.md';
      done.append(
        h(
          'p',
          { class: 'note', 'data-proposal-done': p.id },
          verb === 'approve'
            ? `Proposal ${p.id} applied to ${file}${body?.result?.usage ? ` (${body.result.usage})` : ''}.`
            : `Proposal ${p.id} discarded.`,
        ),
      );
      await load();
    } catch (error) {
      showError(feedback, error);
    }
  };
  const card = (summary) => {
    const feedback = h('div', { 'aria-live': 'polite' });
    const operations = h('ol', { class: 'operations' }, h('li', {}, summary.preview));
    // The summary's preview is cut at 120 characters: the card shows each whole operation once it is read.
    void api(`memory/proposals/${encodeURIComponent(summary.id)}`)
      .then(({ proposal }) =>
        operations.replaceChildren(
          ...proposal.operations.map((op, i) => h('li', {}, describeOperation(op, proposal.previous[i]))),
        ),
      )
      .catch((error) => showError(feedback, error));
    return h(
      'section',
      { class: 'card proposal', 'data-proposal-id': summary.id },
      h(
        'h3',
        {},
        `Change to ${summary.target === 'user' ? 'USER.md' : 'MEMORY.md'} `,
        badge('pending'),
        ' ',
        h('code', {}, summary.id),
      ),
      h(
        'p',
        {},
        `${summary.operationCount} operation${summary.operationCount === 1 ? '' : 's'}, proposed ${when(summary.createdAt)}`,
      ),
      operations,
      h(
        'div',
        { class: 'row' },
        h('button', { type: 'button', onclick: () => act(summary, 'approve', feedback) }, 'Approve'),
        h(
          'button',
          { type: 'button', class: 'secondary', onclick: () => act(summary, 'discard', feedback) },
          'Discard',
        ),
      ),
      feedback,
    );
  };
  const load = async () => {
    try {
      const { proposals } = await api('memory/proposals');
      list.replaceChildren(
        ...(proposals.length === 0 ? [h('p', { class: 'muted' }, 'No memory proposals.')] : proposals.map(card)),
      );
    } catch (error) {
      list.replaceChildren();
      if (error.problem?.code === 'HTTP_ROUTE_NOT_FOUND')
        list.append(h('p', { class: 'muted' }, 'This host keeps no memory.'));
      else showError(list, error);
    }
  };
  void load();
  return { close() {} };
}

window.addEventListener('hashchange', route);
route();
