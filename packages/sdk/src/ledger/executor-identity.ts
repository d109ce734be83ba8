// Who issued a ledger claim, and whether that executor can still be running. A process id alone
// proves nothing: in a container the app is PID 1 again after every restart, and any busy machine
// reuses pids. A process is identified by its pid together with its start time (clock ticks after
// boot, field 22 of /proc/<pid>/stat, proc(5)) and the kernel's boot id
// (/proc/sys/kernel/random/boot_id, random(4)): a restarted process never has both.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * One executor (a process that claims ledger entries).
 * @internal
 */
export interface ExecutorIdentity {
  /** Host name of the machine. */
  host: string;
  /** Process id (in the process's own PID namespace). */
  pid: number;
  /** Start time of the process in clock ticks after boot, when the platform tells (`/proc`). */
  startTicks?: string;
  /** The kernel's boot id, when the platform tells (`/proc`). */
  bootId?: string;
}

/**
 * What {@link isExecutorAlive} asks the machine it runs on.
 * @internal
 */
export interface ExecutorProbe {
  /** The process asking. */
  self: ExecutorIdentity;
  /** Whether a process with this pid exists in the asker's PID namespace. */
  pidAlive(pid: number): boolean;
  /** Start time in clock ticks of the process with this pid, or undefined when unknown. */
  startTicksOf(pid: number): string | undefined;
}

const TOKEN = /^([^:~]+):(\d+)(?:@([0-9a-f-]*)\.(\d*))?~/;

/**
 * The token prefix of an executor: `<host>:<pid>@<boot id>.<start ticks>` (the part after `@` is
 * empty where the platform does not tell).
 * @param identity - the executor
 * @returns the prefix (contains no `~`)
 * @internal
 */
export function formatExecutor(identity: ExecutorIdentity): string {
  return `${identity.host}:${identity.pid}@${identity.bootId ?? ''}.${identity.startTicks ?? ''}`;
}

/**
 * Reads the executor prefix of a claim token (`<prefix>~<id>`); tokens of older versions
 * (`<host>:<pid>~<id>`) parse without start time and boot id.
 * @param token - a claim's executor token
 * @returns the identity, or undefined for a token without an executor prefix
 * @internal
 */
export function parseExecutor(token: string): ExecutorIdentity | undefined {
  const m = TOKEN.exec(token);
  if (!m) return undefined;
  const identity: ExecutorIdentity = { host: m[1]!, pid: Number(m[2]) };
  if (m[3]) identity.bootId = m[3];
  if (m[4]) identity.startTicks = m[4];
  return identity;
}

/**
 * Whether the executor that issued `token` may still be running — the rule cold-start recovery
 * uses before turning a `running` claim into `unknown`. Pure: the machine is asked through `probe`.
 *
 * @remarks
 * Not alive: a token without an executor prefix; another host (it cannot be checked from here); another
 * boot of this machine; this process's pid with another start time (a restart that got the same pid,
 * e.g. PID 1 in a container); a pid that no longer exists; a pid now held by a process with another
 * start time (pid reuse); a token of an older version that names this process's pid (this version
 * never issues those). Alive: this very process; a live pid whose start time matches, or cannot be
 * read (platforms without `/proc`).
 *
 * @param token - the claim's executor token
 * @param probe - the asking process and its view of the machine
 * @returns whether the claim must be left to its executor
 * @internal
 */
export function isExecutorAlive(token: string, probe: ExecutorProbe): boolean {
  const owner = parseExecutor(token);
  const self = probe.self;
  if (!owner || owner.host !== self.host) return false;
  if (owner.bootId && self.bootId && owner.bootId !== self.bootId) return false;
  const legacy = !/^[^~]*@/.test(token); // `<host>:<pid>~…`, issued by versions before start times were recorded
  if (owner.pid === self.pid) return !legacy && owner.startTicks === self.startTicks;
  if (!probe.pidAlive(owner.pid)) return false;
  if (owner.startTicks === undefined) return true;
  const now = probe.startTicksOf(owner.pid);
  return now === undefined || now === owner.startTicks;
}

/**
 * How long a claim made on another machine is left to its executor before recovery on this machine
 * turns it into `unknown`, in ms (10 minutes). A store shared by hosts on several machines (PostgreSQL)
 * holds claims whose process cannot be checked from here: a host starting on one machine must not
 * take the calls another machine is running; a claim still `running` after this long is taken as
 * left by a crash. Claims of a run are also recovered when another worker takes over the run's lease.
 * @internal
 */
export const FOREIGN_CLAIM_GRACE_MS = 600_000;

/**
 * Whether recovery may turn a `running` claim into `unknown` now: never while its executor is alive
 * on this machine ({@link isExecutorAlive}); a claim of another machine only after
 * {@link FOREIGN_CLAIM_GRACE_MS}; any other claim at once.
 *
 * @param entry - the claim's executor token and claim time (ms since the epoch)
 * @param probe - the asking process and its view of the machine
 * @param now - the current time in ms since the epoch
 * @param graceMs - how long another machine's claim is left alone
 * @internal
 */
export function isClaimAbandoned(
  entry: { token: string; claimedAt: number },
  probe: ExecutorProbe,
  now: number,
  graceMs = FOREIGN_CLAIM_GRACE_MS,
): boolean {
  const owner = parseExecutor(entry.token);
  if (owner && owner.host !== probe.self.host) return now - entry.claimedAt >= graceMs;
  return !isExecutorAlive(entry.token, probe);
}

/** Start time (field 22) of `/proc/<pid>/stat`, read after the command name, which may contain spaces. */
function readStartTicks(pid: number | 'self'): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = fields[19]; // field 22 overall; fields[0] is field 3 (state)
    return ticks && /^\d+$/.test(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

function readBootId(): string | undefined {
  try {
    const id = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return /^[0-9a-f-]+$/.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

let current: ExecutorIdentity | undefined;

/**
 * This process as an executor (read once).
 * @returns host, pid, and start time and boot id where `/proc` tells
 * @internal
 */
export function currentExecutor(): ExecutorIdentity {
  if (!current) {
    const startTicks = readStartTicks('self');
    const bootId = readBootId();
    current = {
      host: hostname(),
      pid: process.pid,
      ...(startTicks ? { startTicks } : {}),
      ...(bootId ? { bootId } : {}),
    };
  }
  return current;
}

/**
 * The probe of the machine this process runs on: `kill(pid, 0)` for existence (EPERM counts as
 * alive) and `/proc/<pid>/stat` for start times.
 * @returns a probe for {@link isExecutorAlive}
 * @internal
 */
export function localExecutorProbe(): ExecutorProbe {
  return {
    self: currentExecutor(),
    pidAlive(pid) {
      try {
        process.kill(pid, 0);
        return true;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'EPERM';
      }
    },
    startTicksOf: (pid) => readStartTicks(pid),
  };
}
