import { randomBytes, randomUUID } from 'node:crypto';
import { sealSecret, type KeyRing } from '@herald/core';
import { closeDb, createDb, type Db } from './client';
import { failoverOrder, loadProviderCredentials, sealContext } from './provider-credentials';

/**
 * The failover order is written twice: as Prisma's `failoverOrder` (the API lists providers in it) and
 * as SQL in `loadProviderCredentials` (the worker fails over in it). Both must agree, ties included.
 */
const keys: KeyRing = { keys: new Map([['k1', randomBytes(32)]]), currentKeyId: 'k1' };
let db: Db;
beforeAll(() => {
  db = createDb(process.env.DATABASE_URL!, { poolSize: 2 });
});
afterAll(() => closeDb(db));

it('the worker loads enabled providers in the order the API lists them: priority, then creation, then id', async () => {
  const owner = await db.user.create({ data: { email: `${randomUUID()}@failover.test`, passwordHash: 'x', firstName: 'F', lastName: 'O' } });
  const project = await db.project.create({ data: { name: 'failover order', ownerId: owner.id } });
  const at = (s: number) => new Date(Date.UTC(2026, 10, 25, 12, 0, s));
  // Inserted out of order; two pairs share a priority, one pair also its creation time (the id decides).
  const rows = [
    { name: 'p2-late', priority: 2, createdAt: at(5) },
    { name: 'p1-late', priority: 1, createdAt: at(9) },
    { name: 'p1-early', priority: 1, createdAt: at(1) },
    { name: 'p2-early', priority: 2, createdAt: at(3) },
    { name: 'p3-tie-a', priority: 3, createdAt: at(7) },
    { name: 'p3-tie-b', priority: 3, createdAt: at(7) },
    { name: 'p0-disabled', priority: 0, createdAt: at(0), enabled: false },
  ];
  for (const r of rows) {
    const id = randomUUID();
    await db.providerConfig.create({
      data: { id, projectId: project.id, provider: 'fcm', config: { projectId: 'p', clientEmail: 'e' }, secrets: sealSecret(JSON.stringify({ privateKey: r.name }), keys, sealContext(id)), keyId: 'k1', ...r },
    });
  }
  try {
    const listed = await db.providerConfig.findMany({ where: { projectId: project.id, enabled: true }, orderBy: failoverOrder, select: { name: true } });
    const loaded = await loadProviderCredentials(db, keys, project.id);
    expect(loaded.map((p) => p.name)).toEqual(listed.map((p) => p.name));
    expect(loaded.map((p) => p.name).slice(0, 5)).toEqual(['p1-early', 'p1-late', 'p2-early', 'p2-late', expect.stringMatching(/^p3-tie-/)]);
    expect(loaded.map((p) => p.credentials.privateKey)).toEqual(loaded.map((p) => p.name));
  } finally {
    await db.project.delete({ where: { id: project.id } });
    await db.user.delete({ where: { id: owner.id } });
  }
});
