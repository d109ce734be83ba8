// Public exports of the model layer that belong to `@media-agent/sdk/testing` (the scripted provider).
export {
  WireReplayServer,
  encodeSse,
  transcriptEvents,
  type RecordedRequest,
  type ReplayEvent,
  type ReplayResponse,
} from './replay-server';
export {
  DEFAULT_FAKE_SCRIPT,
  resolveTemplates,
  ScriptedProvider,
  type FakeScript,
  type ScriptCallRecord,
  type ScriptContext,
  type ScriptedProviderOptions,
  type ScriptStep,
  type ScriptToolCall,
} from './scripted';
