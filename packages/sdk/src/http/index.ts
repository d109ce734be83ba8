export type { AgentRouter, AgentRouterOptions, HttpAuthenticate } from './router';
export { hostDecisions, type HttpDecisionSource } from './decisions';
export { HttpRequestError, PROBLEM_CONTENT_TYPE, problemStatus, toProblem, type HttpProblem } from './problem';
export type { ScheduleView } from './schedules';
