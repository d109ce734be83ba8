import type { Clock } from '../ports/clock';
import { DEFAULT_IDENTITY_RESOLVER, type IdentityResolver } from '../ports/identity';
import { requireAdministrator } from './roles';
import type { IdGenerator } from '../ports/id-generator';
import type { PolicyRevisionRecord } from '../core/records';
import type { StorageAdapter } from '../ports/storage-adapter';
import { parseActor } from '../core/actor';
import { AdministrationForbiddenError, InvalidRequestError, RecordNotFoundError } from './errors';

/**
 * Policy revisions that grants may be bound to. Publishing a revision retires the previously
 * published revision of the same kind, which ends every grant bound to it.
 * @public
 */
export class PolicyService {
  /**
   * @param storage - where revisions live; @param clock - time; @param ids - id source
   * @param identity - who is an administrator (default: every `user:*` actor, {@link DEFAULT_IDENTITY_RESOLVER})
   */
  constructor(
    private readonly storage: StorageAdapter,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly identity: IdentityResolver = DEFAULT_IDENTITY_RESOLVER,
  ) {}

  /**
   * Creates a draft revision of a policy kind.
   * @throws `ADMIN_FORBIDDEN` unless `actor` is an administrator (`user:*` with role `admin`), `REQUEST_INVALID` for an empty kind
   */
  async createRevision(kind: string, actor: string): Promise<PolicyRevisionRecord> {
    await requireAdministrator(this.identity, actor, 'edit policies');
    if (!kind) throw new InvalidRequestError('policy kind is required');
    const now = this.clock.now();
    const record: PolicyRevisionRecord = {
      id: this.ids.next('pol'),
      kind,
      status: 'draft',
      createdAt: now,
      updatedAt: now,
    };
    await this.storage.policies.put(record);
    return record;
  }

  /**
   * Publishes a revision, retiring the published one of the same kind.
   * @throws `ADMIN_FORBIDDEN`, `POLICY_REVISION_NOT_FOUND`
   */
  async publish(id: string, actor: string): Promise<PolicyRevisionRecord> {
    return this.#setStatus(id, actor, 'published');
  }

  /**
   * Retires a revision (grants bound to it stop authorizing).
   * @throws `ADMIN_FORBIDDEN`, `POLICY_REVISION_NOT_FOUND`
   */
  async retire(id: string, actor: string): Promise<PolicyRevisionRecord> {
    return this.#setStatus(id, actor, 'retired');
  }

  /**
   * The revision with this id.
   * @throws `POLICY_REVISION_NOT_FOUND`
   */
  async get(id: string): Promise<PolicyRevisionRecord> {
    const record = await this.storage.policies.get(id);
    if (!record) throw new RecordNotFoundError('policy revision', id);
    return record;
  }

  async #setStatus(id: string, actor: string, status: 'published' | 'retired'): Promise<PolicyRevisionRecord> {
    await requireAdministrator(this.identity, actor, 'edit policies');
    return this.storage.transaction(async (s) => {
      const current = await s.policies.get(id);
      if (!current) throw new RecordNotFoundError('policy revision', id);
      const now = this.clock.now();
      if (status === 'published') {
        for (const other of await s.policies.listByKind(current.kind)) {
          if (other.id !== id && other.status === 'published')
            await s.policies.put({ ...other, status: 'retired', updatedAt: now });
        }
      }
      const next = { ...current, status, updatedAt: now };
      await s.policies.put(next);
      return next;
    });
  }
}
