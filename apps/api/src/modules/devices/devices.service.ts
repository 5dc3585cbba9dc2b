import type { Db } from '@herald/db';

interface DeviceRow {
  id: string;
  userId: string;
  deviceToken: string;
  provider: string;
  platform: string;
  createdAt: Date;
  updatedAt: Date;
  lastSeenAt: Date;
}

export const toDeviceResponse = (d: DeviceRow) => ({
  id: d.id,
  userId: d.userId,
  deviceToken: d.deviceToken,
  provider: d.provider,
  platform: d.platform,
  createdAt: d.createdAt.toISOString(),
  updatedAt: d.updatedAt.toISOString(),
  lastSeenAt: d.lastSeenAt.toISOString(),
});

export class DeviceService {
  constructor(private readonly db: Db) {}

  /**
   * One row per (project, provider, token), whatever the concurrency: a single INSERT … ON CONFLICT.
   * Re-registering moves the token to the given user and platform (a phone changes hands, a user
   * signs out and another signs in). `inserted` tells 201 from 200 (xmax is 0 only for a fresh row).
   */
  async register(projectId: string, input: { userId: string; deviceToken: string; provider: string; platform: string }) {
    const rows = await this.db.$queryRaw<(DeviceRow & { inserted: boolean })[]>`
      INSERT INTO "Device" ("id", "projectId", "userId", "deviceToken", "provider", "platform", "createdAt", "updatedAt", "lastSeenAt")
      VALUES (gen_random_uuid(), ${projectId}::uuid, ${input.userId}, ${input.deviceToken}, ${input.provider}, ${input.platform}, now(), now(), now())
      ON CONFLICT ("projectId", "provider", "deviceToken") DO UPDATE
        SET "userId" = EXCLUDED."userId",
            "platform" = EXCLUDED."platform",
            "lastSeenAt" = now(),
            "updatedAt" = CASE WHEN "Device"."userId" IS DISTINCT FROM EXCLUDED."userId" OR "Device"."platform" IS DISTINCT FROM EXCLUDED."platform"
                               THEN now() ELSE "Device"."updatedAt" END
      RETURNING "id", "userId", "deviceToken", "provider", "platform", "createdAt", "updatedAt", "lastSeenAt", (xmax = 0) AS "inserted"`;
    const { inserted, ...device } = rows[0];
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
