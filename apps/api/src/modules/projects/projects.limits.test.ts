import { expectError, startApi, type Harness } from '@herald/testing';
import { tooManyProjects } from './projects.service';

/** Every per-project bound multiplies with the projects an account owns: they are bounded too (PROJECTS_PER_ACCOUNT, 3 here). */
let h: Harness;
beforeAll(async () => {
  h = await startApi({ PROJECTS_PER_ACCOUNT: '3' });
});
afterAll(() => h.close());

it('an account owns at most 3 projects, even created at once: the next is a 409, nothing written', async () => {
  const owner = await h.user();
  const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => h.post('/projects', { token: owner.accessToken, body: { name: `p${i}` } })));
  expect(answers.filter((r) => r.status === 201)).toHaveLength(3);
  for (const res of answers.filter((r) => r.status !== 201)) expectError(res, 409, tooManyProjects(3));
  expect(await h.db.project.count({ where: { ownerId: owner.id } })).toBe(3);
  // Deleting one makes room; another account has its own.
  const first = answers.find((r) => r.status === 201)!.body.id as string;
  expect((await h.delete(`/projects/${first}`, { token: owner.accessToken })).status).toBe(200);
  expect((await h.post('/projects', { token: owner.accessToken, body: { name: 'again' } })).status).toBe(201);
  const other = await h.user();
  expect((await h.post('/projects', { token: other.accessToken, body: { name: 'theirs' } })).status).toBe(201);
});
