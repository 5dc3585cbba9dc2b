import pino from 'pino';
import { sqlPool, SYSTEM_AUDIT_SOURCE, writeAudit } from '@herald/db';
import { createProject, startApi, type Harness } from '@herald/testing';
import { Retention } from './retention';

/** AUDIT_RETENTION_DAYS: the retention job removes a project's oldest audit entries, and the chain stays verifiable. */
let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

const DAY = 86_400_000;

it('deletes entries older than AUDIT_RETENTION_DAYS (the only DELETE let through) and anchors the chain where it now starts', async () => {
  const admin = await h.user();
  const project = await createProject(h, admin);
  for (let i = 0; i < 4; i++) await writeAudit(h.db, SYSTEM_AUDIT_SOURCE, { projectId: project.id, action: 'settings.updated', target: { type: 'project', id: project.id }, changes: { n: { before: i, after: i + 1 } } });
  // The first two are made a year and a half old (as the owner, with the guard off: the trigger sets the time).
  await h.db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe('ALTER TABLE "AuditEntry" DISABLE TRIGGER "AuditEntry_append_only"');
    await tx.$executeRaw`UPDATE "AuditEntry" SET "createdAt" = ${new Date(Date.now() - 540 * DAY)} WHERE "projectId" = ${project.id}::uuid AND "number" <= 2`;
    await tx.$executeRawUnsafe('ALTER TABLE "AuditEntry" ENABLE TRIGGER "AuditEntry_append_only"');
  });
  const second = await h.db.auditEntry.findFirstOrThrow({ where: { projectId: project.id, number: 2 } });

  const retention = new Retention({ pool: sqlPool(h.db), queue: undefined as never, days: 0, auditDays: 365, logger: pino({ level: 'silent' }) });
  const purged = await retention.purge();
  expect(purged.auditEntries).toBeGreaterThanOrEqual(2);
  expect((await h.db.auditEntry.findMany({ where: { projectId: project.id }, orderBy: { number: 'asc' } })).map((e) => Number(e.number))).toEqual([3, 4]);
  expect(await h.db.auditAnchor.findUniqueOrThrow({ where: { projectId: project.id } })).toMatchObject({ number: 2n, hash: second.hash });

  const verify = await h.get(`/projects/${project.id}/audit-log/verify`, { token: admin.accessToken });
  expect(verify.body).toEqual({ valid: true, entries: 2 });
  // New entries go on from the chain's end.
  await writeAudit(h.db, SYSTEM_AUDIT_SOURCE, { projectId: project.id, action: 'settings.updated', target: { type: 'project', id: project.id } });
  expect((await h.get(`/projects/${project.id}/audit-log/verify`, { token: admin.accessToken })).body).toEqual({ valid: true, entries: 3 });

  // Without the retention job's setting, a DELETE is still refused.
  await expect(h.db.$executeRaw`DELETE FROM "AuditEntry" WHERE "projectId" = ${project.id}::uuid`).rejects.toThrow(/append-only/);
});

it('keeps every entry with AUDIT_RETENTION_DAYS=0', async () => {
  const retention = new Retention({ pool: sqlPool(h.db), queue: undefined as never, days: 0, auditDays: 0, logger: pino({ level: 'silent' }) });
  expect(await retention.purge()).toEqual({ notifications: 0, deliveries: 0, webhookEvents: 0, webhookDeliveries: 0, webhookAttempts: 0, activity: 0, auditEntries: 0 });
});
