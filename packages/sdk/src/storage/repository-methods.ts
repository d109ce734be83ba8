/**
 * What the stores know about the repository methods of a session, by name.
 * @packageDocumentation
 */
import type { StorageSession } from '../ports/storage-adapter';

/** The repositories of a session, by property name. @internal */
export const REPOSITORY_NAMES: ReadonlyArray<keyof StorageSession> = [
  'ledger',
  'approvals',
  'grants',
  'plans',
  'policies',
  'audit',
  'settings',
  'runs',
  'events',
  'messages',
  'inbox',
  'decisions',
  'grantUsage',
  'budgetUsage',
  'maintenance',
  'schedules',
  'intents',
  'outbox',
];

/**
 * Repository methods that only read: called on an adapter, they need no write transaction (SQLite) and may run
 * again on another connection (PostgreSQL).
 * @internal
 */
export const READ_METHODS: ReadonlySet<string> = new Set([
  'get',
  'getByKey',
  'findByCall',
  'listByState',
  'usageForGrant',
  'list',
  'listByKind',
  'totalsBetween',
  'listByRun',
  'listAfter',
  'listQueued',
  'getEach',
  'reservation',
  'reservations',
  'estimate',
  'usage',
  'findByClientKey',
  'due',
  'ticks',
  'firedBetween',
  'listByChat',
  'dueChats',
]);
