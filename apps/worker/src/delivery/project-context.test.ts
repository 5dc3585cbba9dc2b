import { createTemplateCompiler } from '@herald/core';
import { loadProviderCredentials, sqlPool } from '@herald/db';
import { ProjectReads } from '@herald/project-state';
import { serviceAccount, startPipeline, type Pipeline } from '@herald/testing';
import { ProjectContexts } from './project-context';

let p: Pipeline;
beforeAll(async () => {
  p = await startPipeline();
});
afterAll(() => p.close());

function contexts(prepared: string[], prepare = (provider: { id: string }) => void prepared.push(provider.id)) {
  const compiler = createTemplateCompiler();
  return new ProjectContexts({
    redis: p.h.container.redis,
    prefix: p.queuePrefix,
    reads: new ProjectReads(sqlPool(p.h.db)),
    loadProviders: (projectId) => loadProviderCredentials(p.h.db, p.h.config.encryption, projectId),
    compile: (source) => compiler.compile(source),
    prepare,
  });
}

describe('ProjectContexts.prepare', () => {
  it("makes the project's first provider ready when its providers are read, not at every notification", async () => {
    const t = await p.project([serviceAccount(), serviceAccount()]);
    const [first, second] = t.providers.map((pr) => pr.id);
    const prepared: string[] = [];
    const cache = contexts(prepared);
    for (let i = 0; i < 3; i++) expect(await cache.get(t.project.id, t.templateId)).toHaveProperty('providers');
    expect(prepared).toEqual([first]);

    // The second provider first now: a change through the API is read at the next notification, whose
    // first provider is the one made ready.
    const res = await p.h.put('/push-config/providers/priorities', {
      token: t.owner.accessToken,
      query: { projectId: t.project.id },
      body: { providers: [{ id: first, priority: 5 }, { id: second, priority: 1 }] },
    });
    expect(res.status).toBe(200);
    const context = await cache.get(t.project.id, t.templateId);
    expect('providers' in context && context.providers.map((pr) => pr.id)).toEqual([second, first]);
    expect(prepared).toEqual([first, second]);
  });

  it('delivers as before when getting a provider ready fails', async () => {
    const t = await p.project();
    const failing = contexts([], () => {
      throw new Error('no client for this provider');
    });
    const context = await failing.get(t.project.id, t.templateId);
    expect('providers' in context && context.providers.map((pr) => pr.id)).toEqual([t.providers[0].id]);
  });

  it('makes nothing ready for a project that cannot deliver', async () => {
    const t = await p.project([]);
    const prepared: string[] = [];
    expect(await contexts(prepared).get(t.project.id, t.templateId)).toEqual({ error: expect.stringMatching(/provider/i) });
    expect(prepared).toEqual([]);
  });
});
