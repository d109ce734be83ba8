CREATE SCHEMA __MEDIA_AGENT_SNAPSHOT_SCHEMA__;
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.approvals (
    id text NOT NULL,
    plan_type text NOT NULL,
    plan_id text NOT NULL,
    payload_hash text NOT NULL,
    revision bigint NOT NULL,
    status text NOT NULL,
    requested_by text NOT NULL,
    reason text,
    requested_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    decided_by text,
    decided_at bigint,
    consumed_by text,
    consumed_at bigint,
    capability_id text,
    impact json,
    steps json DEFAULT '[]'::json NOT NULL,
    approved_steps json,
    proposed_payload json,
    proposed_payload_hash text NOT NULL,
    approved_payload json,
    executed_payload_hash text,
    CONSTRAINT approvals_status_check CHECK ((status = ANY (ARRAY['requested'::text, 'approved'::text, 'rejected'::text, 'revoked'::text, 'consumed'::text])))
);
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.audit (
    seq bigint NOT NULL,
    id text NOT NULL,
    at bigint NOT NULL,
    action text NOT NULL,
    actor text NOT NULL,
    capability_id text NOT NULL,
    invocation_id text NOT NULL,
    run_id text,
    task_id text,
    outcome text NOT NULL,
    approval_id text,
    grant_id text,
    idempotency_key text,
    input_summary text NOT NULL,
    reason text,
    prev_hash text,
    hash text
);
ALTER TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.audit ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME __MEDIA_AGENT_SNAPSHOT_SCHEMA__.audit_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.budget_reservations (
    key text NOT NULL,
    subject text NOT NULL,
    run_id text NOT NULL,
    state text NOT NULL,
    day bigint NOT NULL,
    month bigint NOT NULL,
    runs bigint NOT NULL,
    model_calls bigint NOT NULL,
    tokens bigint NOT NULL,
    cost_usd double precision NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    CONSTRAINT budget_reservations_state_check CHECK ((state = ANY (ARRAY['reserved'::text, 'settled'::text, 'released'::text])))
);
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.budget_usage (
    subject text NOT NULL,
    period text NOT NULL,
    start bigint NOT NULL,
    runs bigint NOT NULL,
    model_calls bigint NOT NULL,
    tokens bigint NOT NULL,
    cost_usd double precision NOT NULL,
    CONSTRAINT budget_usage_period_check CHECK ((period = ANY (ARRAY['day'::text, 'month'::text])))
);
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.decisions (
    id text NOT NULL,
    kind text NOT NULL,
    dedupe_key text NOT NULL,
    subject_id text NOT NULL,
    status text NOT NULL,
    reason text NOT NULL,
    evidence json NOT NULL,
    created_at bigint NOT NULL,
    resolved_at bigint,
    subject_type text DEFAULT 'run'::text NOT NULL,
    root_cause text,
    options json DEFAULT '[]'::json NOT NULL,
    raised_by text NOT NULL,
    resolved_by text,
    resolution json,
    revision bigint DEFAULT 1 NOT NULL,
    updated_at bigint NOT NULL,
    CONSTRAINT decisions_status_check CHECK ((status = ANY (ARRAY['open'::text, 'awaiting_user'::text, 'resolved'::text, 'dismissed'::text])))
);
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.event_sequence (
    id integer NOT NULL,
    value bigint NOT NULL,
    CONSTRAINT event_sequence_id_check CHECK ((id = 1))
);
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.grant_usage (
    grant_id text NOT NULL,
    day bigint NOT NULL,
    invocations bigint NOT NULL,
    bytes bigint NOT NULL
);
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.grants (
    id text NOT NULL,
    action text NOT NULL,
    status text NOT NULL,
    expires_at bigint,
    policy_revision_id text,
    scope json NOT NULL,
    budget json NOT NULL,
    reason text,
    created_by text NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    CONSTRAINT grants_status_check CHECK ((status = ANY (ARRAY['active'::text, 'revoked'::text])))
);
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.inbox (
    id text NOT NULL,
    run_id text NOT NULL,
    text text NOT NULL,
    actor text NOT NULL,
    status text NOT NULL,
    created_at bigint NOT NULL,
    applied_at bigint,
    CONSTRAINT inbox_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'applied'::text])))
);
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.intents (
    key text NOT NULL,
    media_entity_id text NOT NULL,
    effect_class text NOT NULL,
    holder_run_id text,
    holder_actor text NOT NULL,
    capability_id text NOT NULL,
    plan_id text,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL
);
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.leases (
    name text NOT NULL,
    owner text NOT NULL,
    expires_at bigint NOT NULL
);
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.ledger (
    key text NOT NULL,
    capability_id text NOT NULL,
    capability_version bigint NOT NULL,
    scope_id text NOT NULL,
    call_id text,
    args_hash text NOT NULL,
    state text NOT NULL,
    token text NOT NULL,
    actor text NOT NULL,
    invocation_id text NOT NULL,
    run_id text,
    task_id text,
    approval_id text,
    grant_id text,
    bytes bigint NOT NULL,
    output json,
    error json,
    input_summary text NOT NULL,
    attempts bigint NOT NULL,
    claimed_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    settled_at bigint,
    CONSTRAINT ledger_state_check CHECK ((state = ANY (ARRAY['running'::text, 'succeeded'::text, 'failed'::text, 'pending'::text, 'unknown'::text])))
);
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.plans (
    id text NOT NULL,
    type text NOT NULL,
    payload json NOT NULL,
    payload_hash text NOT NULL,
    revision bigint NOT NULL,
    media_entity_id text,
    media_kind text,
    bytes bigint NOT NULL,
    created_by text NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
);
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.policies (
    id text NOT NULL,
    kind text NOT NULL,
    status text NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    CONSTRAINT policies_status_check CHECK ((status = ANY (ARRAY['draft'::text, 'published'::text, 'retired'::text])))
);
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.run_events (
    global_seq bigint NOT NULL,
    run_id text NOT NULL,
    seq bigint NOT NULL,
    type text NOT NULL,
    at bigint NOT NULL,
    data json NOT NULL,
    message_count bigint
);
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.run_messages (
    run_id text NOT NULL,
    seq bigint NOT NULL,
    message json NOT NULL,
    at bigint NOT NULL
);
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.runs (
    id text NOT NULL,
    goal text NOT NULL,
    mode text NOT NULL,
    status text NOT NULL,
    step text NOT NULL,
    started_by text NOT NULL,
    session_id text,
    capability_allowlist json,
    budgets json NOT NULL,
    usage json NOT NULL,
    checklist json,
    report json,
    final_text text,
    error json,
    abort_requested boolean NOT NULL,
    abort_reason text,
    wake_requested boolean NOT NULL,
    lease_owner text,
    lease_expires_at bigint,
    not_before bigint,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    started_at bigint,
    ended_at bigint,
    origin text DEFAULT 'interactive'::text NOT NULL,
    parent_run_id text,
    depth bigint DEFAULT 0 NOT NULL,
    runtime_state json,
    pruned_at bigint,
    forked_from_run_id text,
    forked_at_seq bigint,
    CONSTRAINT runs_mode_check CHECK ((mode = ANY (ARRAY['execute'::text, 'plan_only'::text]))),
    CONSTRAINT runs_origin_check CHECK ((origin = ANY (ARRAY['interactive'::text, 'background'::text, 'channel'::text, 'schedule'::text]))),
    CONSTRAINT runs_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'running'::text, 'waiting'::text, 'succeeded'::text, 'failed'::text, 'cancelled'::text, 'budget_exceeded'::text]))),
    CONSTRAINT runs_step_check CHECK ((step = ANY (ARRAY['drive'::text, 'goal_settled'::text, 'finalize'::text])))
);
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schedule_ticks (
    schedule_id text NOT NULL,
    tick_at bigint NOT NULL,
    outcome text NOT NULL,
    run_id text,
    reason text,
    first_tick_at bigint NOT NULL,
    ticks bigint NOT NULL,
    handled_at bigint NOT NULL,
    handled_by text NOT NULL,
    CONSTRAINT schedule_ticks_outcome_check CHECK ((outcome = ANY (ARRAY['fired'::text, 'skipped'::text]))),
    CONSTRAINT schedule_ticks_reason_check CHECK ((reason = ANY (ARRAY['missed'::text, 'daily_budget'::text, 'refused'::text])))
);
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schedules (
    id text NOT NULL,
    owner text NOT NULL,
    created_by text NOT NULL,
    client_key text,
    cron text,
    every_ms bigint,
    anchor_at bigint NOT NULL,
    timezone text NOT NULL,
    goal text NOT NULL,
    mode text NOT NULL,
    capability_allowlist json,
    budgets json NOT NULL,
    missed text NOT NULL,
    status text NOT NULL,
    next_tick_at bigint,
    last_tick_at bigint,
    last_run_id text,
    revision bigint NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    CONSTRAINT schedules_missed_check CHECK ((missed = ANY (ARRAY['skip'::text, 'catch_up_one'::text]))),
    CONSTRAINT schedules_mode_check CHECK ((mode = ANY (ARRAY['execute'::text, 'plan_only'::text]))),
    CONSTRAINT schedules_status_check CHECK ((status = ANY (ARRAY['active'::text, 'paused'::text])))
);
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    applied_at bigint NOT NULL
);
CREATE TABLE __MEDIA_AGENT_SNAPSHOT_SCHEMA__.settings (
    key text NOT NULL,
    value json NOT NULL
);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.approvals VALUES ('snap-appr-requested', 'download', 'snap-plan-1', 'ph-0', 1, 'requested', 'agent:snap-run-2', NULL, 2000000000000, 2000086400000, NULL, NULL, NULL, NULL, NULL, NULL, '[]', NULL, NULL, 'ph-0', NULL, NULL);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.approvals VALUES ('snap-appr-approved', 'download', 'snap-plan-1', 'ph-1', 2, 'approved', 'agent:snap-run-2', NULL, 2000000000001, 2000086400000, 'user:alice', 2000000000101, NULL, NULL, 'download.submit', '{"status":"known","impact":{"downloadBytes":9007199254740991,"path":"/media/整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash","reversible":true,"notes":["整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"]},"summary":"downloads to /media/整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', '[{"id":"s1","hash":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","label":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"},{"id":"s2","hash":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","label":"s2"}]', '["s1"]', '{"steps":[{"id":"s1","title":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"},{"id":"s2"}],"nested":{"max":9007199254740991}}', 'ph-proposed-1', '{"steps":[{"id":"s1","title":"edited"}]}', NULL);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.approvals VALUES ('snap-appr-rejected', 'download', 'snap-plan-2', 'ph-2', 3, 'rejected', 'agent:snap-run-2', '整理 電影 — ünïcödé 🎬 "quotes" \ back
slash', 2000000000002, 2000086400000, 'user:alice', 2000000000102, NULL, NULL, 'download.submit', '{"status":"known","impact":{"downloadBytes":9007199254740991,"path":"/media/整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash","reversible":true,"notes":["整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"]},"summary":"downloads to /media/整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', '[{"id":"s1","hash":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","label":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"},{"id":"s2","hash":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","label":"s2"}]', NULL, '{"steps":[{"id":"s1","title":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"},{"id":"s2"}],"nested":{"max":9007199254740991}}', 'ph-2', NULL, NULL);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.approvals VALUES ('snap-appr-revoked', 'download', 'snap-plan-3', 'ph-3', 4, 'revoked', 'agent:snap-run-2', NULL, 2000000000003, 2000086400000, 'user:alice', 2000000000103, NULL, NULL, 'download.submit', '{"status":"unknown","code":"IMPACT_FAILED","reason":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash","summary":"impact unknown"}', '[{"id":"s1","hash":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","label":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"},{"id":"s2","hash":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","label":"s2"}]', NULL, '{"steps":[{"id":"s1","title":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"},{"id":"s2"}],"nested":{"max":9007199254740991}}', 'ph-3', NULL, NULL);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.approvals VALUES ('snap-appr-consumed', 'download', 'snap-plan-4', 'ph-4', 5, 'consumed', 'agent:snap-run-2', NULL, 2000000000004, 2000086400000, 'user:alice', 2000000000104, 'agent:snap-run-2', 2000000000200, 'download.submit', '{"status":"known","impact":{"downloadBytes":9007199254740991,"path":"/media/整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash","reversible":true,"notes":["整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"]},"summary":"downloads to /media/整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', '[{"id":"s1","hash":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","label":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"},{"id":"s2","hash":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","label":"s2"}]', '["s1"]', '{"steps":[{"id":"s1","title":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"},{"id":"s2"}],"nested":{"max":9007199254740991}}', 'ph-proposed-4', '{"steps":[{"id":"s1","title":"edited"}]}', 'ph-4');
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.audit OVERRIDING SYSTEM VALUE VALUES (1, 'snap-audit-0', 2000000000000, 'capability.invoke', 'agent:run-1', 'snap.cap', 'snap-inv-0', 'snap-run-2', NULL, 'succeeded', NULL, NULL, 'snap.cap:v1:run:snap-run-2:hash-1', '{"query":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', NULL, '0000000000000000000000000000000000000000000000000000000000000000', 'e50f05a74d7e3f45f9e9b4ca9d1f9a0c9d52ba1789d8aa3662bd239df0fc6f5a');
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.audit OVERRIDING SYSTEM VALUE VALUES (2, 'snap-audit-1', 2000000000001, 'capability.invoke', 'agent:run-1', 'snap.cap', 'snap-inv-1', NULL, NULL, 'failed', 'snap-appr-approved', 'snap-grant-active', NULL, '{"query":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', '整理 電影 — ünïcödé 🎬 "quotes" \ back
slash', 'e50f05a74d7e3f45f9e9b4ca9d1f9a0c9d52ba1789d8aa3662bd239df0fc6f5a', 'f05c9a892557b13e1442e7a6f2acb0b6ac8c77cb45fa0316d354164dbbf5df49');
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.audit OVERRIDING SYSTEM VALUE VALUES (3, 'snap-audit-2', 2000000000002, 'capability.denied', 'user:bob', 'snap.cap', 'snap-inv-2', NULL, 'task-1', 'denied', NULL, NULL, NULL, '{"query":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', 'no grant', 'f05c9a892557b13e1442e7a6f2acb0b6ac8c77cb45fa0316d354164dbbf5df49', 'cbdd09010f665b058935bc621eb30d05eff0f1acd5b2d91165b4a8898af43004');
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.budget_reservations VALUES ('snap-run-2:call:0:0', 'user:alice', 'snap-run-2', 'reserved', 1999987200000, 1998518400000, 1, 1, 4096, 0.0625, 2000000000000, 2000000000000);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.budget_reservations VALUES ('snap-run-2:call:1:0', 'user:alice', 'snap-run-2', 'settled', 1999987200000, 1998518400000, 0, 1, 3000, 0.05, 2000000000001, 2000000000011);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.budget_reservations VALUES ('snap-run-2:call:2:0', 'user:alice', 'snap-run-2', 'released', 1999987200000, 1998518400000, 0, 0, 0, 0, 2000000000002, 2000000000012);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.budget_usage VALUES ('user:alice', 'day', 1999987200000, 2, 7, 12345, 0.125);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.budget_usage VALUES ('household', 'month', 1998518400000, 40, 900, 4000000000, 12.5);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.decisions VALUES ('snap-dec-open', 'agent_budget', 'snap:open', 'snap-run-0', 'open', '整理 電影 — ünïcödé 🎬 "quotes" \ back
slash', '{"budget":"maxToolCalls","note":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', 2000000000050, NULL, 'run', NULL, '[]', 'agent:snap-run-0', NULL, NULL, 1, 2000000000060);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.decisions VALUES ('snap-dec-awaiting_user', 'host_approval', 'snap:awaiting_user', 'snap-run-1', 'awaiting_user', 'reason 1', '{"budget":"maxToolCalls","note":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', 2000000000051, NULL, 'run', 'snap-dec-open', '[{"id":"raise","label":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"},{"id":"stop","label":"stop the run"}]', 'agent:snap-run-0', NULL, NULL, 2, 2000000000061);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.decisions VALUES ('snap-dec-resolved', 'agent_budget', 'snap:resolved', 'snap-run-2', 'resolved', 'reason 2', '{"budget":"maxToolCalls","note":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', 2000000000052, 2000000000062, 'run', NULL, '[]', 'agent:snap-run-0', 'user:alice', '{"optionId":"raise","note":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', 3, 2000000000062);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.decisions VALUES ('snap-dec-dismissed', 'host_approval', 'snap:dismissed', 'snap-run-3', 'dismissed', 'reason 3', '{"budget":"maxToolCalls","note":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', 2000000000053, 2000000000063, 'run', NULL, '[]', 'agent:snap-run-0', 'user:alice', NULL, 4, 2000000000063);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.event_sequence VALUES (1, 4);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.grant_usage VALUES ('snap-grant-active', 1999987200000, 3, 4096);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.grant_usage VALUES ('snap-grant-active', 1999900800000, 1, 9007199254740991);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.grants VALUES ('snap-grant-active', 'media.*', 'active', 2002592000000, 'snap-policy-published', '{"mediaEntityIds":["tmdb:1","tmdb:2"],"mediaKinds":["movie"],"capabilities":["download.submit"]}', '{"maxInvocations":10,"maxBytes":9007199254740991,"maxInvocationsPerDay":3}', '整理 電影 — ünïcödé 🎬 "quotes" \ back
slash', 'console:admin', 2000000000000, 2000000000001);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.grants VALUES ('snap-grant-revoked', 'subscribe.*', 'revoked', NULL, NULL, '{}', '{}', NULL, 'console:admin', 2000000000000, 2000000000000);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.inbox VALUES ('snap-msg-0', 'snap-run-1', 'also get subtitles', 'user:alice', 'queued', 2000000000030, NULL);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.inbox VALUES ('snap-msg-1', 'snap-run-1', '整理 電影 — ünïcödé 🎬 "quotes" \ back
slash', 'user:alice', 'queued', 2000000000031, NULL);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.inbox VALUES ('snap-msg-applied', 'snap-run-1', 'also get subtitles', 'user:alice', 'applied', 2000000000029, 2000000000040);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.intents VALUES ('tmdb:438631|download', 'tmdb:438631', 'download', 'snap-run-1', 'user:alice', 'download.plan', 'snap-plan-1', 2000000000000, 2000021600000);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.intents VALUES ('整理 電影 — ünïcödé 🎬 "quotes" \ back
slash|organize', '整理 電影 — ünïcödé 🎬 "quotes" \ back
slash', 'organize', NULL, 'user:bob', 'organize.execute', NULL, 2000000000001, 2000000000002);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.ledger VALUES ('snap.cap:v1:run:snap-run-2:hash-0', 'media.search', 1, 'run:snap-run-2', NULL, 'hash-0', 'running', 'token-0', 'user:ünïcödé', 'snap-inv-0', 'snap-run-2', NULL, NULL, 'snap-grant-active', 0, NULL, NULL, '{"query":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', 1, 2000000000000, 2000000000500, NULL);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.ledger VALUES ('snap.cap:v1:run:snap-run-2:hash-1', 'snap.cap', 2, 'run:snap-run-2', 'call-1', 'hash-1', 'succeeded', 'token-1', 'agent:snap-run-2', 'snap-inv-1', 'snap-run-2', 'task-1', NULL, 'snap-grant-active', 9007199254740991, '{"title":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash","body":"line \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\n","ids":[1,2,3]}', NULL, '{"query":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', 2, 2000000001000, 2000000001500, 2000000001500);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.ledger VALUES ('snap.cap:v1:run:snap-run-2:hash-2', 'media.search', 3, 'run:snap-run-2', NULL, 'hash-2', 'failed', 'token-2', 'agent:snap-run-2', 'snap-inv-2', 'snap-run-2', NULL, 'snap-appr-approved', 'snap-grant-active', 2000, NULL, '{"code":"HOST_REJECTED","message":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', '{"query":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', 3, 2000000002000, 2000000002500, 2000000002500);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.ledger VALUES ('snap.cap:v1:run:snap-run-2:hash-3', 'snap.cap', 4, 'run:snap-run-2', 'call-3', 'hash-3', 'pending', 'token-3', 'agent:snap-run-2', 'snap-inv-3', 'snap-run-2', NULL, NULL, NULL, 3000, NULL, NULL, '{"query":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', 4, 2000000003000, 2000000003500, NULL);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.ledger VALUES ('snap.cap:v1:run:snap-run-2:hash-4', 'media.search', 5, 'run:snap-run-2', NULL, 'hash-4', 'unknown', 'token-4', 'agent:snap-run-2', 'snap-inv-4', NULL, NULL, NULL, NULL, 4000, NULL, '{"code":"HOST_REJECTED","message":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', '{"query":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', 5, 2000000004000, 2000000004500, NULL);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.plans VALUES ('snap-plan-1', 'download', '{"torrents":[{"title":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash","size":9007199254740991}],"note":"line \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline"}', 'ph-0', 1, 'tmdb:603', 'movie', 4000000000, 'agent:run-1', 2000000000000, 2000000000000);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.plans VALUES ('snap-plan-2', 'organize', 'null', 'ph-2', 2, NULL, NULL, 0, 'agent:run-1', 2000000000000, 2000000000005);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.policies VALUES ('snap-policy-draft', 'acquisition', 'draft', 2000000000000, 2000000000001);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.policies VALUES ('snap-policy-published', 'acquisition', 'published', 2000000000000, 2000000000001);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.policies VALUES ('snap-policy-retired', 'acquisition', 'retired', 2000000000000, 2000000000001);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.run_events VALUES (1, 'snap-run-1', 1, 'run_status', 2000000000020, '{"status":"running"}', NULL);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.run_events VALUES (2, 'snap-run-1', 2, 'tool_call', 2000000000021, '{"name":"media.search","args":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', NULL);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.run_events VALUES (3, 'snap-run-3', 1, 'run_status', 2000000000020, '{"status":"running"}', NULL);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.run_events VALUES (4, 'snap-run-3', 2, 'tool_call', 2000000000021, '{"name":"media.search","args":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', NULL);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.run_messages VALUES ('snap-run-1', 1, '{"role":"user","content":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', 2000000000020);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.run_messages VALUES ('snap-run-1', 2, '{"role":"assistant","content":[{"type":"text","text":"line \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nli"}]}', 2000000000022);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.run_messages VALUES ('snap-run-3', 1, '{"role":"user","content":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', 2000000000020);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.run_messages VALUES ('snap-run-3', 2, '{"role":"assistant","content":[{"type":"text","text":"line \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nli"}]}', 2000000000022);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.runs VALUES ('snap-run-0', '整理 電影 — ünïcödé 🎬 "quotes" \ back
slash', 'execute', 'queued', 'drive', 'user:alice', 'snap-session', NULL, '{"maxToolCalls":20,"maxCostUsd":1.5}', '{"toolCalls":0,"inputTokens":0,"outputTokens":0,"costUsd":0,"modelCalls":0}', NULL, NULL, NULL, NULL, false, NULL, false, NULL, NULL, NULL, 2000000000000, 2000000000010, NULL, NULL, 'interactive', NULL, 0, NULL, NULL, NULL, NULL);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.runs VALUES ('snap-run-1', 'goal 1', 'execute', 'running', 'drive', 'user:alice', 'snap-session', NULL, '{"maxToolCalls":20,"maxCostUsd":1.5}', '{"toolCalls":1,"inputTokens":1000,"outputTokens":100,"costUsd":0.01,"modelCalls":1}', NULL, NULL, NULL, NULL, false, NULL, false, 'worker-1', 2000000060000, NULL, 2000000000001, 2000000000011, 2000000000002, NULL, 'interactive', NULL, 0, '{"turn":3,"pending":["整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"]}', NULL, NULL, NULL);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.runs VALUES ('snap-run-2', 'goal 2', 'plan_only', 'waiting', 'drive', 'user:alice', 'snap-session', NULL, '{"maxToolCalls":20,"maxCostUsd":1.5}', '{"toolCalls":2,"inputTokens":2000,"outputTokens":200,"costUsd":0.02,"modelCalls":2}', NULL, NULL, NULL, NULL, false, NULL, true, NULL, NULL, 2000003600000, 2000000000002, 2000000000012, 2000000000003, NULL, 'interactive', NULL, 0, NULL, NULL, NULL, NULL);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.runs VALUES ('snap-run-3', 'goal 3', 'execute', 'succeeded', 'finalize', 'user:alice', 'snap-session', NULL, '{"maxToolCalls":20,"maxCostUsd":1.5}', '{"toolCalls":3,"inputTokens":3000,"outputTokens":300,"costUsd":0.03,"modelCalls":3}', '[{"id":"c1","text":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash","done":true}]', '{"summary":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash","outcome":"succeeded","details":"line \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"qu"}', '整理 電影 — ünïcödé 🎬 "quotes" \ back
slash', NULL, false, NULL, false, NULL, NULL, NULL, 2000000000003, 2000000000013, 2000000000004, 2000000000013, 'interactive', NULL, 0, NULL, NULL, NULL, NULL);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.runs VALUES ('snap-run-4', 'goal 4', 'execute', 'failed', 'finalize', 'user:alice', NULL, '["media.search"]', '{"maxToolCalls":20,"maxCostUsd":1.5}', '{"toolCalls":4,"inputTokens":4000,"outputTokens":400,"costUsd":0.04,"modelCalls":4}', NULL, '{"summary":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash","outcome":"failed","details":"line \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"qu"}', NULL, '{"code":"HOST_REJECTED","message":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}', false, NULL, false, NULL, NULL, NULL, 2000000000004, 2000000000014, 2000000000005, 2000000000014, 'interactive', 'snap-run-3', 1, NULL, NULL, NULL, NULL);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.runs VALUES ('snap-run-5', 'goal 5', 'execute', 'cancelled', 'finalize', 'user:alice', NULL, NULL, '{"maxToolCalls":20,"maxCostUsd":1.5}', '{"toolCalls":5,"inputTokens":5000,"outputTokens":500,"costUsd":0.05,"modelCalls":5}', NULL, '{"summary":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash","outcome":"cancelled","details":"line \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"qu"}', NULL, NULL, true, 'user asked', false, NULL, NULL, NULL, 2000000000005, 2000000000015, 2000000000006, 2000000000015, 'interactive', NULL, 0, NULL, NULL, NULL, NULL);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.runs VALUES ('snap-run-6', 'goal 6', 'execute', 'budget_exceeded', 'finalize', 'user:alice', NULL, NULL, '{"maxToolCalls":20,"maxCostUsd":1.5}', '{"toolCalls":6,"inputTokens":6000,"outputTokens":600,"costUsd":0.06,"modelCalls":6}', NULL, '{"summary":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash","outcome":"budget_exceeded","details":"line \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"qu"}', NULL, NULL, false, NULL, false, NULL, NULL, NULL, 2000000000006, 2000000000016, 2000000000007, 2000000000016, 'background', NULL, 0, NULL, NULL, NULL, NULL);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schedule_ticks VALUES ('snap-sch-cron', 2000000000000, 'fired', 'snap-run-1', NULL, 2000000000000, 1, 2000000000005, '整理 電影 — ünïcödé 🎬 "quotes" \ back
slash');
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schedule_ticks VALUES ('snap-sch-cron', 1999913600000, 'skipped', NULL, 'missed', 1999740800000, 3, 1999913600005, 'worker-a');
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schedules VALUES ('snap-sch-cron', 'user:alice', 'user:alice', '整理 電影 — ünïcödé 🎬 "quotes" \ back
slash', '0 3 * * 1-5', NULL, 1700000000000, 'Europe/Berlin', '整理 電影 — ünïcödé 🎬 "quotes" \ back
slash', 'execute', '["media.search","download.*"]', '{"maxRunsPerDay":2,"maxCostUsdPerDay":0.5}', 'catch_up_one', 'active', 2000086400000, 2000000000000, 'snap-run-1', 3, 2000000000000, 2000000000010);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schedules VALUES ('snap-sch-every', 'user:bob', 'user:alice', NULL, NULL, 3600000, 2000000000001, 'UTC', 'check the downloads', 'execute', NULL, '{}', 'skip', 'paused', NULL, NULL, NULL, 1, 2000000000001, 2000000000001);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schema_migrations VALUES (1, 'initial', 1796303441700);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schema_migrations VALUES (2, 'runs', 1796303441725);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schema_migrations VALUES (3, 'subagents and runtime state', 1796303441737);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schema_migrations VALUES (4, 'grant usage counters', 1796303441742);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schema_migrations VALUES (5, 'run checklist', 1796303441743);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schema_migrations VALUES (6, 'decisions as records people resolve', 1796303441761);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schema_migrations VALUES (7, 'budget counters and reservations', 1796303441769);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schema_migrations VALUES (8, 'ledger entries by run', 1796303441771);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schema_migrations VALUES (9, 'drop indexes no query uses', 1796303441773);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schema_migrations VALUES (10, 'nas operations', 1796303441794);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schema_migrations VALUES (11, 'schedules', 1796303441805);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schema_migrations VALUES (12, 'approvals a household can trust', 1796303441812);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schema_migrations VALUES (13, 'intents', 1796303441816);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schema_migrations VALUES (14, 'forks', 1796303441818);
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.settings VALUES ('snap.unicode', '"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"');
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.settings VALUES ('snap.nested', '{"list":[1,"two",null,true,{"deep":"整理 電影 — ünïcödé 🎬 \"quotes\" \\ back\nslash"}],"empty":{}}');
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.settings VALUES ('snap.max-int', '9007199254740991');
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.settings VALUES ('snap.null', 'null');
INSERT INTO __MEDIA_AGENT_SNAPSHOT_SCHEMA__.settings VALUES ('snap.huge', '"line \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\nline \"quoted\" ''single'' — ü 🎬\n"');
SELECT pg_catalog.setval('__MEDIA_AGENT_SNAPSHOT_SCHEMA__.audit_seq_seq', 3, true);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.approvals
    ADD CONSTRAINT approvals_pkey PRIMARY KEY (id);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.audit
    ADD CONSTRAINT audit_id_key UNIQUE (id);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.audit
    ADD CONSTRAINT audit_pkey PRIMARY KEY (seq);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.budget_reservations
    ADD CONSTRAINT budget_reservations_pkey PRIMARY KEY (key);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.budget_usage
    ADD CONSTRAINT budget_usage_pkey PRIMARY KEY (subject, period, start);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.decisions
    ADD CONSTRAINT decisions_dedupe_key_key UNIQUE (dedupe_key);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.decisions
    ADD CONSTRAINT decisions_pkey PRIMARY KEY (id);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.event_sequence
    ADD CONSTRAINT event_sequence_pkey PRIMARY KEY (id);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.grant_usage
    ADD CONSTRAINT grant_usage_pkey PRIMARY KEY (grant_id, day);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.grants
    ADD CONSTRAINT grants_pkey PRIMARY KEY (id);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.inbox
    ADD CONSTRAINT inbox_pkey PRIMARY KEY (id);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.intents
    ADD CONSTRAINT intents_pkey PRIMARY KEY (key);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.leases
    ADD CONSTRAINT leases_pkey PRIMARY KEY (name);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.ledger
    ADD CONSTRAINT ledger_pkey PRIMARY KEY (key);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.plans
    ADD CONSTRAINT plans_pkey PRIMARY KEY (id);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.policies
    ADD CONSTRAINT policies_pkey PRIMARY KEY (id);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.run_events
    ADD CONSTRAINT run_events_pkey PRIMARY KEY (global_seq);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.run_events
    ADD CONSTRAINT run_events_run_id_seq_key UNIQUE (run_id, seq);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.run_messages
    ADD CONSTRAINT run_messages_pkey PRIMARY KEY (run_id, seq);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.runs
    ADD CONSTRAINT runs_pkey PRIMARY KEY (id);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schedule_ticks
    ADD CONSTRAINT schedule_ticks_pkey PRIMARY KEY (schedule_id, tick_at);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schedules
    ADD CONSTRAINT schedules_pkey PRIMARY KEY (id);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);
ALTER TABLE ONLY __MEDIA_AGENT_SNAPSHOT_SCHEMA__.settings
    ADD CONSTRAINT settings_pkey PRIMARY KEY (key);
CREATE INDEX approvals_plan ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.approvals USING btree (plan_id, requested_at);
CREATE INDEX approvals_status ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.approvals USING btree (status, requested_at);
CREATE INDEX budget_reservations_by_run ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.budget_reservations USING btree (run_id);
CREATE INDEX budget_usage_start ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.budget_usage USING btree (start);
CREATE INDEX decisions_root_cause ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.decisions USING btree (root_cause, created_at) WHERE (root_cause IS NOT NULL);
CREATE INDEX decisions_status_created ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.decisions USING btree (status, created_at);
CREATE INDEX decisions_subject_created ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.decisions USING btree (subject_id, created_at);
CREATE INDEX grant_usage_day ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.grant_usage USING btree (day);
CREATE INDEX grants_status ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.grants USING btree (status, created_at);
CREATE INDEX inbox_run_status ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.inbox USING btree (run_id, status, created_at, id);
CREATE INDEX intents_by_run ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.intents USING btree (holder_run_id) WHERE (holder_run_id IS NOT NULL);
CREATE INDEX ledger_grant_claimed ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.ledger USING btree (grant_id, claimed_at, bytes) WHERE (grant_id IS NOT NULL);
CREATE INDEX ledger_run ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.ledger USING btree (run_id, claimed_at) WHERE (run_id IS NOT NULL);
CREATE UNIQUE INDEX ledger_scope_call ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.ledger USING btree (scope_id, call_id) WHERE (call_id IS NOT NULL);
CREATE INDEX ledger_state_settled ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.ledger USING btree (state, settled_at);
CREATE INDEX plans_updated ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.plans USING btree (updated_at, id);
CREATE INDEX policies_kind ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.policies USING btree (kind, created_at);
CREATE INDEX runs_by_parent ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.runs USING btree (parent_run_id) WHERE (parent_run_id IS NOT NULL);
CREATE INDEX runs_created ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.runs USING btree (created_at, id);
CREATE INDEX runs_ended ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.runs USING btree (ended_at, id) WHERE ((ended_at IS NOT NULL) AND (pruned_at IS NULL));
CREATE INDEX runs_pruned ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.runs USING btree (ended_at, id) WHERE (pruned_at IS NOT NULL);
CREATE INDEX runs_session_created ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.runs USING btree (session_id, created_at, id) WHERE (session_id IS NOT NULL);
CREATE INDEX runs_status_created ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.runs USING btree (status, created_at, id);
CREATE INDEX schedules_created ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schedules USING btree (created_at, id);
CREATE INDEX schedules_due ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schedules USING btree (status, next_tick_at);
CREATE UNIQUE INDEX schedules_owner_client ON __MEDIA_AGENT_SNAPSHOT_SCHEMA__.schedules USING btree (owner, client_key) WHERE (client_key IS NOT NULL);
