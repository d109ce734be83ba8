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
