import type { DeviceAttributesPatch, TagValue } from '@herald/core';
import { sqlPool, type Db } from '@herald/db';
import { assignments, attributeParams, nextAttributes, tagsOverflow, touchedAt } from '../attributes/attributes.sql';

export interface DeviceRow {
  id: string;
  userId: string;
  deviceToken: string;
  provider: string;
  platform: string;
  createdAt: Date;
  updatedAt: Date;
  lastSeenAt: Date;
  tags: unknown;
  timezone: string | null;
  locale: string | null;
  appVersion: string | null;
}

/** The columns of a device's answer, for a RETURNING or SELECT over "Device" d. */
export const DEVICE_COLUMNS = `d."id", d."userId", d."deviceToken", d."provider", d."platform", d."createdAt", d."updatedAt", d."lastSeenAt", d."tags", d."timezone", d."locale", d."appVersion"`;

export const toDeviceResponse = (d: DeviceRow) => ({
  id: d.id,
  userId: d.userId,
  deviceToken: d.deviceToken,
  provider: d.provider,
  platform: d.platform,
  createdAt: d.createdAt.toISOString(),
  updatedAt: d.updatedAt.toISOString(),
  lastSeenAt: d.lastSeenAt.toISOString(),
  tags: d.tags as Record<string, TagValue>,
  timezone: d.timezone,
  locale: d.locale,
  appVersion: d.appVersion,
});

/**
 * One row per (project, provider, token), whatever the concurrency: a single INSERT … ON CONFLICT.
 * Re-registering moves the token to the given user and platform (a phone changes hands, a user signs
 * out and another signs in) and applies the attributes sent: tags merge into the stored ones, except
 * when the token moves to another user, whose tags they were not (docs/audiences.md#device-attributes).
 * `updatedAt` moves only when something changed; `inserted` tells 201 from 200 (xmax is 0 only for a
 * fresh row).
 */
const REGISTER = (() => {
  const param = (n: number, type: string) => `$${n}::${type}`;
  const input = {
    setTags: param(6, 'jsonb'),
    unsetTags: param(7, 'text[]'),
    hasTimezone: param(8, 'boolean'),
    timezone: param(9, 'text'),
    hasLocale: param(10, 'boolean'),
    locale: param(11, 'text'),
    hasAppVersion: param(12, 'boolean'),
    appVersion: param(13, 'text'),
    appVersionKey: param(14, 'text'),
  };
  const next = { userId: 'EXCLUDED."userId"', platform: 'EXCLUDED."platform"', ...nextAttributes((name) => input[name], 'd."userId" = EXCLUDED."userId"') };
  return `
    INSERT INTO "Device" AS d ("id", "projectId", "userId", "deviceToken", "provider", "platform", "createdAt", "updatedAt", "lastSeenAt", "tags", "timezone", "locale", "appVersion", "appVersionKey")
    VALUES (gen_random_uuid(), $1::uuid, $2, $3, $4, $5, now(), now(), now(), ${input.setTags}, ${input.timezone}, ${input.locale}, ${input.appVersion}, ${input.appVersionKey})
    ON CONFLICT ("projectId", "provider", "deviceToken") DO UPDATE
      SET ${assignments(next)}, "lastSeenAt" = now(), ${touchedAt(next)}
    RETURNING ${DEVICE_COLUMNS}, (xmax = 0) AS "inserted"`;
})();

export class DeviceService {
  constructor(private readonly db: Db) {}

  async register(projectId: string, input: { userId: string; deviceToken: string; provider: string; platform: string } & DeviceAttributesPatch) {
    const a = attributeParams(input);
    const rows = await sqlPool(this.db)
      .query<DeviceRow & { inserted: boolean }>(REGISTER, [
        projectId,
        input.userId,
        input.deviceToken,
        input.provider,
        input.platform,
        a.setTags,
        a.unsetTags,
        a.hasTimezone,
        a.timezone,
        a.hasLocale,
        a.locale,
        a.hasAppVersion,
        a.appVersion,
        a.appVersionKey,
      ])
      .catch(tagsOverflow('tags'));
    const { inserted, ...device } = rows.rows[0];
    return { inserted, device: toDeviceResponse(device) };
  }

  async listForUser(projectId: string, userId: string) {
    const devices = await this.db.device.findMany({ where: { projectId, userId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    return devices.map(toDeviceResponse);
  }

  async unregister(projectId: string, provider: string, deviceToken: string) {
    const { count } = await this.db.device.deleteMany({ where: { projectId, provider, deviceToken } });
    return count;
  }
}
