import { AppError, MAX_TAGS, type DeviceAttributesPatch } from '@herald/core';
import { sqlPool, type Db } from '@herald/db';
import { DEVICE_COLUMNS, toDeviceResponse, type DeviceRow } from '../devices/devices.service';
import { TAGS_OVERFLOW, assignments, attributeParams, isTagsOverflow, nextAttributes, tagsOverflow, touchedAt, type AttributeParams } from './attributes.sql';

const INPUT_COLUMNS: Record<keyof AttributeParams, string> = {
  setTags: 'jsonb',
  unsetTags: 'text[]',
  hasTimezone: 'boolean',
  timezone: 'text',
  hasLocale: 'boolean',
  locale: 'text',
  hasAppVersion: 'boolean',
  appVersion: 'text',
  appVersionKey: 'text',
};
const NAMES = Object.keys(INPUT_COLUMNS) as (keyof AttributeParams)[];

/** One user's devices: the write's values are $3… in INPUT_COLUMNS' order. */
const FOR_USER = (() => {
  const next = nextAttributes((name) => `$${NAMES.indexOf(name) + 3}::${INPUT_COLUMNS[name]}`);
  return `UPDATE "Device" d SET ${assignments(next)}, ${touchedAt(next)}
    WHERE d."projectId" = $1::uuid AND d."userId" = $2
    RETURNING ${DEVICE_COLUMNS}`;
})();

/** Many users' devices: the users travel as one JSON recordset `x`, in request order (`i`). */
const USERS = `jsonb_to_recordset($2::jsonb) AS x("i" int, "userId" text, ${NAMES.map((n) => `"${n}" ${INPUT_COLUMNS[n]}`).join(', ')})`;
const FOR_USERS = (() => {
  const next = nextAttributes((name) => `x."${name}"`);
  return `WITH x AS (SELECT * FROM ${USERS}),
    updated AS (
      UPDATE "Device" d SET ${assignments(next)}, ${touchedAt(next)}
      FROM x WHERE d."projectId" = $1::uuid AND d."userId" = x."userId"
      RETURNING d."userId")
    SELECT x."userId", count(updated."userId")::int AS "updated" FROM x LEFT JOIN updated ON updated."userId" = x."userId"
    GROUP BY x."i", x."userId" ORDER BY x."i"`;
})();
/** After a refused bulk write: which users' devices would have held too many tags. */
const OVERFLOWING = `SELECT DISTINCT x."i" FROM ${USERS} JOIN "Device" d ON d."projectId" = $1::uuid AND d."userId" = x."userId"
  WHERE herald_tag_count(${nextAttributes((name) => `x."${name}"`).tags}) > ${MAX_TAGS} ORDER BY x."i"`;

/**
 * Attributes of a user's devices, set by the customer's backend (docs/audiences.md#device-attributes):
 * every device of the user, for one user or up to 1,000 per call, each call one statement.
 */
export class AttributesService {
  constructor(private readonly db: Db) {}

  async setForUser(projectId: string, userId: string, patch: DeviceAttributesPatch) {
    const a = attributeParams(patch);
    const { rows } = await sqlPool(this.db)
      .query<DeviceRow>(FOR_USER, [projectId, userId, ...NAMES.map((n) => a[n])])
      .catch(tagsOverflow('tags'));
    rows.sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime() || x.id.localeCompare(y.id));
    return { userId, updated: rows.length, devices: rows.map(toDeviceResponse) };
  }

  async setForUsers(projectId: string, users: ({ userId: string } & DeviceAttributesPatch)[]) {
    const input = JSON.stringify(users.map((u, i) => ({ i, userId: u.userId, ...attributeParams(u) })));
    try {
      const { rows } = await sqlPool(this.db).query<{ userId: string; updated: number }>(FOR_USERS, [projectId, input]);
      return { updated: rows.reduce((sum, r) => sum + r.updated, 0), users: rows };
    } catch (err) {
      if (!isTagsOverflow(err)) throw err;
      const { rows } = await sqlPool(this.db).query<{ i: number }>(OVERFLOWING, [projectId, input]);
      const paths = rows.length ? rows.map((r) => `users.${r.i}.tags`) : ['users'];
      throw AppError.badRequest(`Invalid request body: ${paths[0]}: ${TAGS_OVERFLOW}`, paths.map((path) => ({ path, message: TAGS_OVERFLOW })));
    }
  }
}
