export {
  FINAL_REPORT_INSTRUCTION,
  FINAL_REPORT_OUTCOMES,
  parseFinalReport,
  type FinalReport,
  type FinalReportOutcome,
} from './final-report';
export {
  defineScenario,
  EvalScenarioError,
  ORACLE_FAILURE_CODES,
  type AnyEvalScenario,
  type EvalFacts,
  type EvalHost,
  type EvalHostContext,
  type EvalScenario,
  type OracleFailure,
  type OracleFailureCode,
  type OracleRule,
  type ScenarioContext,
} from './scenario';
export { allToolCalls, callsOf, downloadsOf, isWriteKind, rules, wasRead, type ToolCallEvent } from './rules';
export {
  runScenario,
  RUNTIME_TOOL_NAMES,
  type EvalRunResult,
  type EvalVerdict,
  type RunScenarioOptions,
} from './run-scenario';
export {
  EvalInputError,
  parseTrajectory,
  trajectoryCalls,
  trajectoryScripts,
  unknownCapabilities,
  TRAJECTORY_MAX_BYTES,
  TRAJECTORY_MAX_CALLS,
  type Trajectory,
  type TrajectoryCall,
  type TrajectoryEnd,
  type TrajectorySubagent,
  type TrajectoryTurn,
} from './trajectory';
export { replayTrajectory } from './replay';
export { agentFromEnv, providerConfigFromEnv, runLive, type EvalAgent } from './live';
export {
  buildEvalReport,
  formatEvalTable,
  renderEvalHtml,
  writeEvalReport,
  type EvalPairedSummary,
  type EvalReport,
  type EvalScenarioSummary,
} from './report';
export { wilsonInterval } from './wilson';
export { EVAL_USAGE, runEvalCli, type EvalCliIo } from './cli';
export * from './scenarios/index';
export {
  formatInjectionTable,
  nextInjectionGroup,
  obeyingScripts,
  runInjectionCorpus,
  runInjectionGroup,
  type InjectionReport,
  type InjectionRunOptions,
  type InjectionRunResult,
  type NormalVerdict,
} from './injection';
export {
  RECORDED_SCENARIO_ID,
  recordingProblems,
  TRAJECTORY_RECORDED_MAX_BYTES,
  TRAJECTORY_RECORDED_MAX_CALLS,
  TRAJECTORY_RECORDED_STATUSES,
  type TrajectoryRecordedCapability,
  type TrajectoryRecordedResult,
  type TrajectoryRecordedStatus,
  type TrajectoryRecording,
} from './trajectory-recording';
export { judgeRecordedOutcome, type RecordedOutcome } from './recorded-oracle';
export { recordedExpectation, recordedRunFromTrajectory, trajectoryFromRecordedRun } from './recorded-trajectory';
export {
  readRecordedAuthorization,
  recordedAuthorizationStore,
  type RecordedAuthorization,
} from './recorded-authorization';
export { recordedDefinitions, standInDefinition, type DefinitionSource } from './recorded-registry';
export { replayRecordedTrajectory, type ReplayRecordedTrajectoryOptions } from './recorded-replay';
export { isPostgresUrl, openEvalStore, storedRun, type EvalStore } from './eval-store';
export { buildEvalRuntime, type EvalRuntime } from './eval-runtime';
export { reserveOutputFile, type ReservedOutputFile } from './output-file';
export { exportRunTrajectory, type ExportRunOptions } from './export-run';
export { formatReplayReport, replayRunFromDatabase, type ReplayFromDatabaseOptions } from './from-run';
export {
  compareForkRows,
  compareStoredForks,
  forkComparisonRow,
  formatForkComparison,
  type ForkComparison,
  type ForkComparisonRow,
} from './compare-forks';
