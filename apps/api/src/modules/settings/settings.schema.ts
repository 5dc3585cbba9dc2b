import { z } from 'zod';
import { projectSettingsShape } from '@herald/schemas';

// The request body, which the dashboard validates with too, is defined in @herald/schemas.
export { updateSettingsBody } from '@herald/schemas';
export { projectParams } from '../projects/projects.schema';

export const settingsResponse = z.object({
  defaultTimezone: z.string().describe(projectSettingsShape.defaultTimezone.description ?? ''),
  quietHours: projectSettingsShape.quietHours,
  deliveryIdInData: projectSettingsShape.deliveryIdInData,
  updatedAt: z.iso.datetime().nullable().describe('Null while the project has never written its settings (the defaults apply)'),
});
