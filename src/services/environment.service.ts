import { randomUUID } from 'node:crypto';
import type { Caller } from '../core/api-key.js';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError } from '../core/errors.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { Environment } from '../adapters/db/repositories/tenant.repository.js';
import { PRODUCTION_SLUG } from './tenant.service.js';

export interface CreateEnvironmentInput {
  name: string;
  slug?: string;
}

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

const environmentNotFound = (id: string) => new NotFoundError('ENVIRONMENT_NOT_FOUND', `Environment ${id} not found`);

/** `Staging EU` → `staging-eu`. */
export function slugOf(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
}

/**
 * Environments separate a tenant's inboxes, emails and events (production, staging, …). Every
 * tenant has `production`, which cannot be deleted. Creating and deleting environments is account
 * management: an environment-scoped key only sees its own environment and may not change the set.
 */
export class EnvironmentService {
  constructor(private readonly repos: Repositories) {}

  async list(caller: Caller): Promise<Environment[]> {
    const all = await this.repos.tenants.listEnvironments(caller.tenantId);
    return caller.environmentId === null ? all : all.filter((environment) => environment.id === caller.environmentId);
  }

  async create(caller: Caller, input: CreateEnvironmentInput): Promise<Environment> {
    this.assertAllEnvironments(caller);
    const name = input.name.trim();
    if (name.length === 0) throw new InvalidInputError('INVALID_NAME', 'name must not be blank', { field: 'name' });
    const slug = input.slug ?? slugOf(name);
    if (!SLUG.test(slug)) {
      throw new InvalidInputError('INVALID_SLUG', 'slug must be 1 to 64 lower-case letters, digits and inner hyphens', { field: input.slug === undefined ? 'name' : 'slug' });
    }
    const environment: Environment = { id: randomUUID(), tenantId: caller.tenantId, name, slug, createdAt: new Date().toISOString() };
    await this.assertSlugFree(caller.tenantId, slug);
    try {
      await this.repos.tenants.insertEnvironment(environment);
    } catch (error) {
      // Two requests raced for the same slug: the unique constraint let one through.
      await this.assertSlugFree(caller.tenantId, slug);
      throw error;
    }
    return environment;
  }

  /** Refused for production and while inboxes, emails or keys still belong to it (nothing is deleted by surprise). */
  async delete(caller: Caller, id: string): Promise<void> {
    this.assertAllEnvironments(caller);
    const environment = await this.repos.tenants.getEnvironment(caller.tenantId, id);
    if (environment === undefined) throw environmentNotFound(id);
    if (environment.slug === PRODUCTION_SLUG) {
      throw new InvalidInputError('PRODUCTION_ENVIRONMENT', 'The production environment cannot be deleted', { field: 'id' });
    }
    if (await this.repos.tenants.environmentInUse(caller.tenantId, id)) {
      throw new ConflictError('ENVIRONMENT_IN_USE', 'Delete the inboxes and API keys of this environment first');
    }
    if (!(await this.repos.tenants.deleteEnvironment(caller.tenantId, id))) throw environmentNotFound(id);
  }

  private assertAllEnvironments(caller: Caller): void {
    if (caller.environmentId !== null) {
      throw new ForbiddenError('ENVIRONMENT_KEY_FORBIDDEN', 'An environment-scoped key cannot create or delete environments');
    }
  }

  private async assertSlugFree(tenantId: string, slug: string): Promise<void> {
    if ((await this.repos.tenants.getEnvironmentBySlug(tenantId, slug)) !== undefined) {
      throw new ConflictError('ENVIRONMENT_EXISTS', `An environment with slug ${slug} already exists`);
    }
  }
}
