import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import { NOTIFICATIONS_QUEUE } from '@herald/core';
import { loadApiConfig, loadMigrateConfig, loadWorkerConfig } from '@herald/config';
import { createWorkerMetrics } from '../../apps/worker/src/metrics';
import { isKustomization, kubectlKustomize, kustomize, loadYaml, schemaErrors, unknownFields, yamlFiles, type K8sObject } from '../../test/kubernetes';

/**
 * The Kubernetes manifests, offline: every file against the Kubernetes and KEDA schemas (unknown fields
 * included), then the example overlay rendered and its objects checked against each other and against
 * Herald itself (its settings, ports, entry points and metrics).
 *
 * Not checked here: that a cluster accepts them (admission webhooks, quotas, the KEDA and Kubernetes
 * versions installed), that the image runs, or that Prometheus and KEDA reach what the ScaledObject names.
 */

const root = path.join(__dirname, '../..');
const overlay = path.join(__dirname, 'overlays/example');
const files = yamlFiles(__dirname);
const manifests = files.filter((f) => !isKustomization(f)).flatMap((file) => loadYaml(file).map((object, index) => ({ file: path.relative(root, file), index, object: object as K8sObject })));
const rendered = kustomize(overlay);

const describeObject = (o: K8sObject) => `${o.kind}/${o.metadata?.name}`;
const find = (kind: string, name: string) => rendered.find((o) => o.kind === kind && o.metadata.name === name);
const podSpecOf = (o: K8sObject) => (o.spec as { template: { metadata: { labels: Record<string, string>; annotations?: Record<string, string> }; spec: IPodSpec } }).template;
const workloads = rendered.filter((o) => o.kind === 'Deployment' || o.kind === 'Job');
const containers = workloads.flatMap((w) => podSpecOf(w).spec.containers.map((c) => ({ workload: w, container: c })));
const matches = (selector: Record<string, string>, labels: Record<string, string> = {}) => Object.entries(selector).every(([k, v]) => labels[k] === v);

describe('every manifest file', () => {
  it('parses, and each object validates against its Kubernetes or KEDA schema, with no unknown field', () => {
    expect(files.length).toBeGreaterThanOrEqual(7);
    expect(manifests.length).toBeGreaterThanOrEqual(10);
    const unknown = unknownFields(manifests.map((m) => m.object));
    const problems = manifests.flatMap((m, i) => [
      ...schemaErrors(m.object).map((e) => `${m.file}#${m.index} ${describeObject(m.object)}: ${e}`),
      ...unknown[i].map((f) => `${m.file}#${m.index} ${describeObject(m.object)}: unknown field ${f}`),
    ]);
    expect(problems).toEqual([]);
  });

  it('the checks find a misspelt field, a wrong type and an unknown kind (so a typo fails this test)', () => {
    const api = structuredClone(find('Deployment', 'herald-api')!) as K8sObject & { spec: { template: { spec: { containers: Record<string, unknown>[] } } } };
    api.spec.template.spec.containers[0].readinesProbe = api.spec.template.spec.containers[0].readinessProbe;
    (api.spec as Record<string, unknown>).replicas = 'two';
    const so = structuredClone(find('ScaledObject', 'herald-worker')!) as K8sObject & { spec: Record<string, unknown> };
    so.spec.minReplicaCont = 1;
    expect(unknownFields([api, so])).toEqual([['spec.template.spec.containers[0].readinesProbe'], ['spec.minReplicaCont']]);
    expect(schemaErrors(api).join()).toMatch(/replicas must be integer/);
    expect(schemaErrors({ ...api, apiVersion: 'apps/v1beta9' })[0]).toMatch(/no model/);
  });

  it('every kustomization uses only what the renderer below implements, and every file is used by one', () => {
    const used = new Set<string>();
    const visit = (dir: string): void => {
      const k = loadYaml(path.join(dir, 'kustomization.yaml'))[0] as { resources: string[] };
      used.add(path.join(dir, 'kustomization.yaml'));
      for (const r of k.resources) {
        const p = path.resolve(dir, r);
        if (existsSync(path.join(p, 'kustomization.yaml'))) visit(p);
        else used.add(p);
      }
    };
    visit(overlay);
    expect(files.filter((f) => !used.has(f))).toEqual([]);
  });
});

describe('the example overlay', () => {
  it('renders the API, the worker, the migration, their autoscalers and budgets, the settings and the Secret, all in one namespace', () => {
    expect(rendered.map(describeObject).sort()).toEqual(
      [
        'ConfigMap/herald-config',
        'Deployment/herald-api',
        'Deployment/herald-worker',
        'HorizontalPodAutoscaler/herald-api',
        'Job/herald-migrate',
        'PodDisruptionBudget/herald-api',
        'PodDisruptionBudget/herald-worker',
        'ScaledObject/herald-worker',
        'Secret/herald-secrets',
        'Service/herald-api',
      ].sort(),
    );
    expect(new Set(rendered.map((o) => o.metadata.namespace))).toEqual(new Set(['herald']));
    const unknown = unknownFields(rendered);
    expect(rendered.flatMap((o, i) => [...schemaErrors(o), ...unknown[i]].map((e) => `${describeObject(o)}: ${e}`))).toEqual([]);
  });

  const kubectl = kubectlKustomize(overlay);
  (kubectl ? it : it.skip)('renders as `kubectl kustomize` does (run where kubectl with Kustomize v5 is installed)', () => {
    const key = (o: K8sObject) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`;
    const byKey = (list: K8sObject[]) => Object.fromEntries(list.map((o) => [key(o), o]));
    expect(byKey(rendered)).toEqual(byKey(kubectl!));
  });

  it('runs one image everywhere: the overlay\'s, with the entry points package.json names', () => {
    expect(new Set(containers.map(({ container }) => container.image))).toEqual(new Set(['registry.example.com/herald:0.1.0']));
    const scripts = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const command = (name: string) => podSpecOf(find(name.includes('migrate') ? 'Job' : 'Deployment', name)!).spec.containers[0].command!.join(' ');
    expect(command('herald-api')).toBe(scripts['start:api']);
    expect(command('herald-worker')).toBe(scripts['start:worker']);
    expect(command('herald-migrate')).toBe(scripts['db:migrate']);
    expect(command('herald-worker')).toContain('--max-old-space-size=96');
  });

  it('every Secret and ConfigMap a container reads exists, with every key it reads (unless optional)', () => {
    const missing: string[] = [];
    for (const { workload, container } of containers) {
      const at = `${describeObject(workload)} ${container.name}`;
      for (const from of container.envFrom ?? []) {
        if (from.configMapRef && !find('ConfigMap', from.configMapRef.name!)) missing.push(`${at}: ConfigMap ${from.configMapRef.name}`);
        if (from.secretRef && !find('Secret', from.secretRef.name!)) missing.push(`${at}: Secret ${from.secretRef.name}`);
      }
      for (const e of container.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef ?? e.valueFrom?.configMapKeyRef;
        if (!ref) continue;
        const kind = e.valueFrom?.secretKeyRef ? 'Secret' : 'ConfigMap';
        const source = find(kind, ref.name!);
        if (!source) missing.push(`${at}: ${kind} ${ref.name}`);
        else if (!(ref.key in dataOf(source)) && !ref.optional) missing.push(`${at}: ${kind} ${ref.name} has no key ${ref.key}`);
      }
    }
    expect(missing).toEqual([]);
    // The required ones are referenced: the four the issue names, and the mail server's URL.
    const secretKeys = (name: string) => podSpecOf(find('Deployment', name)!).spec.containers[0].env!.filter((e) => e.valueFrom?.secretKeyRef).map((e) => e.name);
    expect(secretKeys('herald-api')).toEqual(expect.arrayContaining(['JWT_SECRET', 'CREDENTIALS_ENCRYPTION_KEY', 'DATABASE_URL', 'REDIS_URL', 'SMTP_URL']));
    expect(secretKeys('herald-worker')).toEqual(expect.arrayContaining(['CREDENTIALS_ENCRYPTION_KEY', 'DATABASE_URL', 'REDIS_URL', 'SMTP_URL']));
  });

  it('the steps before a rollout apply the Job and all it reads: component=config, then component=migrate', () => {
    const component = (value: string) => rendered.filter((o) => o.metadata.labels?.['app.kubernetes.io/component'] === value).map(describeObject);
    expect(component('migrate')).toEqual(['Job/herald-migrate']);
    const job = podSpecOf(find('Job', 'herald-migrate')!).spec.containers[0];
    const read = [
      ...(job.envFrom ?? []).flatMap((f) => [f.configMapRef && `ConfigMap/${f.configMapRef.name}`, f.secretRef && `Secret/${f.secretRef.name}`]),
      ...(job.env ?? []).flatMap((e) => [e.valueFrom?.configMapKeyRef && `ConfigMap/${e.valueFrom.configMapKeyRef.name}`, e.valueFrom?.secretKeyRef && `Secret/${e.valueFrom.secretKeyRef.name}`]),
    ].filter((r): r is string => !!r);
    expect(read.length).toBeGreaterThan(0);
    expect(component('config')).toEqual(expect.arrayContaining(read));
  });

  it('the example Secret holds placeholders only, which Herald refuses to start with', () => {
    const secret = dataOf(find('Secret', 'herald-secrets')!);
    for (const value of Object.values(secret)) expect(value).toContain('REPLACE-ME');
    expect(() => loadApiConfig(containerEnv(find('Deployment', 'herald-api')!))).toThrow(/CREDENTIALS_ENCRYPTION_KEY must be 32 bytes/);
  });

  it('every variable a container is given is a documented setting of its process, and its configuration loads', () => {
    const documented = documentedSettings();
    const filled = { JWT_SECRET: randomBytes(48).toString('base64'), CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
    for (const { workload, container } of containers) {
      const role = roleOf(container);
      const env = containerEnv(workload, filled);
      const undocumented = Object.keys(env).filter((name) => !documented.has(name));
      expect({ container: container.name, undocumented }).toEqual({ container: container.name, undocumented: [] });
      // Explicit variables must be read by this process; the shared ConfigMap's by the API or the worker.
      const wrongProcess = (container.env ?? []).map((e) => e.name).filter((name) => role !== 'migrate' && !['both', role].includes(documented.get(name)!));
      expect({ container: container.name, wrongProcess }).toEqual({ container: container.name, wrongProcess: [] });
      if (role === 'api') {
        const config = loadApiConfig(env);
        expect(config.env).toBe('production');
        expect(config.port).toBe(portNumber(container, 'http'));
      } else if (role === 'worker') {
        const config = loadWorkerConfig(env);
        expect(config.env).toBe('production');
        expect(config).toMatchObject({ metricsEnabled: true, metricsHost: '0.0.0.0', metricsPort: portNumber(container, 'metrics') });
      } else {
        expect(loadMigrateConfig(env).databaseUrl).toMatch(/^postgresql:\/\//);
      }
    }
  });

  it('selectors: each Deployment selects its own pods, the Service and the budgets select exactly one Deployment\'s pods', () => {
    const podLabels = workloads.map((w) => ({ w, labels: podSpecOf(w).metadata.labels }));
    for (const d of rendered.filter((o) => o.kind === 'Deployment')) {
      expect(matches((d.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels, podSpecOf(d).metadata.labels)).toBe(true);
    }
    const selected = (selector: Record<string, string>) => podLabels.filter(({ labels }) => matches(selector, labels)).map(({ w }) => describeObject(w));
    expect(selected((find('Service', 'herald-api')!.spec as { selector: Record<string, string> }).selector)).toEqual(['Deployment/herald-api']);
    for (const name of ['herald-api', 'herald-worker']) {
      expect(selected((find('PodDisruptionBudget', name)!.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels)).toEqual([`Deployment/${name}`]);
    }
  });

  it('ports: the Service and every probe name a port the container declares', () => {
    const api = podSpecOf(find('Deployment', 'herald-api')!).spec.containers[0];
    const service = find('Service', 'herald-api')!.spec as { ports: { targetPort: string | number }[] };
    for (const p of service.ports) expect(portNumber(api, p.targetPort)).toBeDefined();
    for (const { container } of containers) {
      for (const probe of [container.startupProbe, container.readinessProbe, container.livenessProbe].filter((p): p is IProbe => !!p)) {
        expect(portNumber(container, probe.httpGet!.port)).toBeDefined();
      }
    }
    expect(api.readinessProbe!.httpGet!.path).toBe('/ready');
    expect(api.livenessProbe!.httpGet!.path).toBe('/health');
    const worker = podSpecOf(find('Deployment', 'herald-worker')!).spec.containers[0];
    for (const probe of [worker.startupProbe, worker.readinessProbe, worker.livenessProbe]) expect(probe!.httpGet).toEqual({ path: '/health', port: 'metrics' });
    // The scrape annotations name the ports the metrics are served on.
    for (const [name, port] of [['herald-api', 'http'], ['herald-worker', 'metrics']] as const) {
      const d = find('Deployment', name)!;
      const annotations = podSpecOf(d).metadata.annotations ?? {};
      expect(Number(annotations['prometheus.io/port'])).toBe(portNumber(podSpecOf(d).spec.containers[0], port));
    }
  });

  it('autoscaling: one autoscaler per Deployment, on a Deployment without replicas, whose pods request CPU', () => {
    const hpa = find('HorizontalPodAutoscaler', 'herald-api')!.spec as { scaleTargetRef: { kind: string; name: string }; minReplicas: number };
    const so = find('ScaledObject', 'herald-worker')!.spec as { scaleTargetRef: { kind?: string; name: string }; minReplicaCount: number };
    expect(hpa.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: 'herald-api' });
    expect(so.scaleTargetRef.kind ?? 'Deployment').toBe('Deployment');
    expect(so.scaleTargetRef.name).toBe('herald-worker');
    expect(hpa.minReplicas).toBeGreaterThanOrEqual(2);
    // At least one worker always: it exports the queue's depth, and moves delayed jobs and the sweeper along.
    expect(so.minReplicaCount).toBeGreaterThanOrEqual(1);
    for (const name of ['herald-api', 'herald-worker']) {
      const d = find('Deployment', name)!;
      expect((d.spec as Record<string, unknown>).replicas).toBeUndefined();
      expect(podSpecOf(d).spec.containers[0].resources?.requests?.cpu).toBeDefined();
    }
  });

  it('the ScaledObject queries a metric the worker exports, with states it exports, in the overlay\'s namespace', async () => {
    const [trigger, ...others] = (find('ScaledObject', 'herald-worker')!.spec as { triggers: { type: string; metadata: Record<string, string> }[] }).triggers;
    expect(others).toEqual([]);
    expect(trigger.type).toBe('prometheus');
    // KEDA's prometheus scaler parameters (a misspelt one is ignored by KEDA, so it is caught here).
    const parameters = ['serverAddress', 'query', 'queryParameters', 'threshold', 'activationThreshold', 'namespace', 'customHeaders', 'ignoreNullValues', 'unsafeSsl', 'timeout', 'authModes'];
    expect(Object.keys(trigger.metadata).filter((k) => !parameters.includes(k))).toEqual([]);
    expect(Number(trigger.metadata.threshold)).toBeGreaterThan(0);
    expect(trigger.metadata.serverAddress).toMatch(/^https?:\/\/[^/]+/);

    const selector = /(herald_[a-z_]+)\{([^}]*)\}/.exec(trigger.metadata.query);
    expect(selector).not.toBeNull();
    const [, metric, labels] = selector!;
    const matchers = Object.fromEntries([...labels.matchAll(/(\w+)\s*(=~|=)\s*"([^"]*)"/g)].map(([, k, , v]) => [k, v]));
    expect(matchers.namespace).toBe('herald');
    const states = matchers.state.split('|');
    expect(states).toEqual(expect.arrayContaining(['waiting', 'active']));

    const exported = await scrapeWorkerMetrics();
    const series = [...exported.matchAll(new RegExp(`^${metric}\\{state="([a-z]+)"\\} `, 'gm'))].map((m) => m[1]);
    expect(series.length).toBeGreaterThan(0);
    expect(states.filter((s) => !series.includes(s))).toEqual([]);
  });

  it('hardening: non-root, read-only, no capabilities, RuntimeDefault seccomp, no service account token, requests and memory limits', () => {
    const problems: string[] = [];
    for (const w of workloads) {
      const spec = podSpecOf(w).spec;
      const at = describeObject(w);
      if (spec.securityContext?.runAsNonRoot !== true) problems.push(`${at}: runAsNonRoot`);
      // The image's user is `node` by name: a numeric one lets the kubelet check runAsNonRoot.
      if (spec.securityContext?.runAsUser !== 1000) problems.push(`${at}: runAsUser`);
      if (spec.securityContext?.seccompProfile?.type !== 'RuntimeDefault') problems.push(`${at}: seccomp`);
      if (spec.automountServiceAccountToken !== false) problems.push(`${at}: automountServiceAccountToken`);
      if (spec.enableServiceLinks !== false) problems.push(`${at}: enableServiceLinks`);
      for (const c of spec.containers) {
        const sc = c.securityContext;
        if (sc?.readOnlyRootFilesystem !== true) problems.push(`${at} ${c.name}: readOnlyRootFilesystem`);
        if (sc?.allowPrivilegeEscalation !== false) problems.push(`${at} ${c.name}: allowPrivilegeEscalation`);
        if (JSON.stringify(sc?.capabilities?.drop) !== '["ALL"]') problems.push(`${at} ${c.name}: capabilities`);
        if (!c.resources?.requests?.cpu || !c.resources?.requests?.memory) problems.push(`${at} ${c.name}: requests`);
        if (!c.resources?.limits?.memory) problems.push(`${at} ${c.name}: memory limit`);
      }
    }
    expect(problems).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------

function dataOf(o: K8sObject): Record<string, string> {
  const decoded = Object.fromEntries(Object.entries((o.data ?? {}) as Record<string, string>).map(([k, v]) => [k, o.kind === 'Secret' ? Buffer.from(v, 'base64').toString() : v]));
  return { ...decoded, ...((o.stringData ?? {}) as Record<string, string>) };
}

/** The environment a workload's (first) container starts with, as the kubelet assembles it; `override` replaces Secret values. */
function containerEnv(workload: K8sObject, override: Record<string, string> = {}): Record<string, string> {
  const container = podSpecOf(workload).spec.containers[0];
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    if (from.configMapRef) Object.assign(env, dataOf(find('ConfigMap', from.configMapRef.name!)!));
    if (from.secretRef) Object.assign(env, dataOf(find('Secret', from.secretRef.name!)!));
  }
  for (const e of container.env ?? []) {
    if (e.value !== undefined) env[e.name] = e.value;
    const ref = e.valueFrom?.secretKeyRef ?? e.valueFrom?.configMapKeyRef;
    if (!ref) continue;
    const value = e.valueFrom?.secretKeyRef ? (override[ref.key] ?? dataOf(find('Secret', ref.name!)!)[ref.key]) : dataOf(find('ConfigMap', ref.name!)!)[ref.key];
    if (value !== undefined) env[e.name] = value;
  }
  return env;
}

function roleOf(c: IContainer): 'api' | 'worker' | 'migrate' {
  const command = (c.command ?? []).join(' ');
  if (command.includes('apps/api/')) return 'api';
  if (command.includes('apps/worker/')) return 'worker';
  if (command.includes('migrate-cli')) return 'migrate';
  throw new Error(`unknown container ${c.name}: ${command}`);
}

function portNumber(c: IContainer, port: string | number): number | undefined {
  return c.ports?.find((p) => p.name === port || p.containerPort === port)?.containerPort;
}

/** docs/operations.md's configuration table: variable → `API`, `worker` or `both`. */
function documentedSettings(): Map<string, string> {
  const doc = readFileSync(path.join(root, 'docs/operations.md'), 'utf8');
  const table = doc.slice(doc.indexOf('## Configuration'), doc.indexOf('\n## ', doc.indexOf('## Configuration') + 1));
  const rows = [...table.matchAll(/^\| `([A-Z0-9_]+)` \| (both|API|worker) \|/gm)];
  expect(rows.length).toBeGreaterThan(40);
  return new Map(rows.map(([, name, process]) => [name, process === 'API' ? 'api' : process]));
}

/** What the worker's metrics server serves, its queue gauges read from the test Redis. */
async function scrapeWorkerMetrics(): Promise<string> {
  const connection = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  const queue = new Queue(NOTIFICATIONS_QUEUE, { connection, prefix: `${process.env.QUEUE_PREFIX}-k8s` });
  try {
    return await createWorkerMetrics(() => queue, () => queue).registry.metrics();
  } finally {
    await queue.close();
    connection.disconnect();
  }
}
