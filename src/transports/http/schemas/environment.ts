import { Type } from '@sinclair/typebox';
import type { Environment } from '../../../adapters/db/repositories/tenant.repository.js';
import { IsoDate } from './common.js';

export const EnvironmentSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    slug: Type.String({ description: 'Unique per account; `production` exists for every account and cannot be deleted' }),
    createdAt: IsoDate,
  },
  { $id: 'Environment', title: 'Environment' },
);

export function toEnvironmentView(environment: Environment) {
  const { tenantId: _tenantId, ...view } = environment;
  return view;
}
