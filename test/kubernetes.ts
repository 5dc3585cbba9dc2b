import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { applyPatch, type Operation } from 'fast-json-patch';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';

/**
 * Offline checks of Kubernetes manifests (deploy/kubernetes): YAML loading, a renderer for the part of
 * Kustomize the manifests use, and validation against the Kubernetes and KEDA models of the
 * `kubernetes-models` packages.
 *
 * The models' JSON schemas check types, enums and required fields, but let unknown fields through; the
 * models' TypeScript declarations list every field, so unknown ones (a misspelt `readinesProbe`) are
 * found by walking each object along its declared type.
 */

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** Every document of YAML text (empty documents skipped); a YAML error throws, naming `where`. */
export function parseYaml(text: string, where: string): unknown[] {
  const out: unknown[] = [];
  for (const doc of parseAllDocuments(text, { prettyErrors: true, uniqueKeys: true })) {
    if (doc.errors.length) throw new Error(`${where}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value = doc.toJS() as unknown;
    if (value !== null && value !== undefined) out.push(value);
  }
  return out;
}

export const loadYaml = (file: string) => parseYaml(readFileSync(file, 'utf8'), file);

/** Every .yaml / .yml file under `dir`, recursively, sorted. */
export function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) return yamlFiles(p);
      return /\.ya?ml$/.test(e.name) ? [p] : [];
    })
    .sort();
}

export const isKustomization = (file: string) => /^kustomization\.ya?ml$/.test(path.basename(file));

// ---------------------------------------------------------------------------------------------
// Kustomize, the subset the manifests use

/** The Kustomization fields this renderer implements; any other field fails the render. */
const KUSTOMIZATION_FIELDS = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'images', 'patches']);
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'PriorityClass', 'StorageClass', 'PersistentVolume', 'ClusterTriggerAuthentication']);

interface Kustomization {
  apiVersion: string;
  kind: string;
  resources?: string[];
  namespace?: string;
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
  patches?: { path?: string; patch?: string; target: { kind?: string; name?: string; group?: string; version?: string } }[];
}

function readKustomization(dir: string): Kustomization {
  const file = ['kustomization.yaml', 'kustomization.yml'].map((f) => path.join(dir, f)).find((f) => existsSync(f));
  if (!file) throw new Error(`${dir}: no kustomization.yaml`);
  const [k] = loadYaml(file) as Kustomization[];
  if (k.apiVersion !== 'kustomize.config.k8s.io/v1beta1' || k.kind !== 'Kustomization') throw new Error(`${file}: not a kustomize.config.k8s.io/v1beta1 Kustomization`);
  const unsupported = Object.keys(k).filter((f) => !KUSTOMIZATION_FIELDS.has(f));
  if (unsupported.length) throw new Error(`${file}: this renderer does not implement ${unsupported.join(', ')} (test/kubernetes.ts)`);
  return k;
}

const matchesTarget = (o: K8sObject, t: NonNullable<Kustomization['patches']>[number]['target']) => {
  const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : ['', o.apiVersion];
  return (!t.kind || t.kind === o.kind) && (!t.name || t.name === o.metadata.name) && (t.group === undefined || t.group === group) && (!t.version || t.version === version);
};

/** Sets every `image` of a container list (containers, initContainers) anywhere in the object. */
function setImages(node: unknown, images: NonNullable<Kustomization['images']>): void {
  if (Array.isArray(node)) return node.forEach((n) => setImages(n, images));
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if ((key === 'containers' || key === 'initContainers') && Array.isArray(value)) {
      for (const c of value as { image?: string }[]) {
        if (!c.image) continue;
        const [, name, rest = ''] = /^([^@:]+(?::\d+\/[^@:]+)?)(.*)$/.exec(c.image) ?? [];
        const rule = images.find((i) => i.name === name);
        if (!rule) continue;
        const suffix = rule.digest ? `@${rule.digest}` : rule.newTag !== undefined ? `:${rule.newTag}` : rest;
        c.image = `${rule.newName ?? name}${suffix}`;
      }
    }
    setImages(value, images);
  }
}

/**
 * Renders a kustomization directory as `kustomize build` does for the fields it implements:
 * `resources` (files and directories), `patches` (JSON 6902, inline or from a file, by target),
 * `namespace` and `images`. Objects keep the order of their resources.
 */
export function kustomize(dir: string): K8sObject[] {
  const k = readKustomization(dir);
  let out: K8sObject[] = [];
  for (const resource of k.resources ?? []) {
    const p = path.resolve(dir, resource);
    out.push(...(statSync(p).isDirectory() ? kustomize(p) : (loadYaml(p) as K8sObject[])));
  }
  for (const patch of k.patches ?? []) {
    const ops = (patch.path ? loadYaml(path.resolve(dir, patch.path)) : parseYaml(patch.patch ?? '', `${dir}: an inline patch`))[0] as Operation[];
    if (!Array.isArray(ops)) throw new Error(`${dir}: only JSON 6902 patches (a list of operations) are implemented`);
    if (!out.some((o) => matchesTarget(o, patch.target))) throw new Error(`${dir}: a patch's target ${JSON.stringify(patch.target)} matches no object`);
    out = out.map((o) => (matchesTarget(o, patch.target) ? applyPatch(o, ops, true, false).newDocument : o));
  }
  return out.map((original) => {
    const o = structuredClone(original);
    if (k.namespace && !CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace = k.namespace;
    if (k.images) setImages(o, k.images);
    return o;
  });
}

/** `kubectl kustomize <dir>` when a kubectl with Kustomize v5 is installed, else undefined. */
export function kubectlKustomize(dir: string): K8sObject[] | undefined {
  const version = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  if (version.status !== 0 || !/Kustomize Version: v5\./.test(version.stdout)) return undefined;
  const built = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`kubectl kustomize ${dir}: ${built.stderr}`);
  return parseYaml(built.stdout, `kubectl kustomize ${dir}`) as K8sObject[];
}

// ---------------------------------------------------------------------------------------------
// Validation

/** The npm package of the models of an API group that `kubernetes-models` does not cover. */
const CRD_PACKAGES: Record<string, string> = { 'keda.sh': '@kubernetes-models/keda' };

/** `kubernetes-models/apps/v1/Deployment`, `kubernetes-models/v1/Service`, `@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject`. */
function modelModule(apiVersion: string, kind: string): string {
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  return `${CRD_PACKAGES[group] ?? 'kubernetes-models'}/${apiVersion}/${kind}`;
}

/** Validates against the model's JSON schema: types, enums, formats, required fields. Returns the errors. */
export function schemaErrors(object: K8sObject): string[] {
  if (typeof object?.apiVersion !== 'string' || typeof object?.kind !== 'string') return ['apiVersion and kind are required strings'];
  let Model: new (data: unknown) => { validate(): void };
  try {
    Model = (require(modelModule(object.apiVersion, object.kind)) as Record<string, typeof Model>)[object.kind];
  } catch {
    return [`no model for ${object.apiVersion} ${object.kind}: an unknown kind or API version`];
  }
  try {
    new Model(object).validate();
    return [];
  } catch (err) {
    return [(err as Error).message];
  }
}

/**
 * The models' declared types, from one TypeScript program over their declarations (loading them is the
 * slow part, so a program is kept and made anew only for a model it lacks).
 */
let declarations: { modules: Set<string>; checker: ts.TypeChecker; types: Map<string, ts.Type> } | undefined;

function declaredTypes(modules: string[]) {
  if (declarations && modules.every((m) => declarations!.modules.has(m))) return declarations;
  const all = [...new Set([...(declarations?.modules ?? []), ...modules])];
  const file = path.join(__dirname, '..', '__kubernetes_models__.ts');
  const source = all.map((m, i) => `export type T${i} = import(${JSON.stringify(m)}).I${m.slice(m.lastIndexOf('/') + 1)};`).join('\n');
  const options: ts.CompilerOptions = { noEmit: true, strict: true, skipLibCheck: true, types: [], lib: ['lib.es2022.d.ts'], module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10 };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.getSourceFile = (name, language, ...rest) => (name === file ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest));
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  const checker = program.getTypeChecker();
  const aliases = program.getSourceFile(file)!.statements.filter(ts.isTypeAliasDeclaration);
  declarations = { modules: new Set(all), checker, types: new Map(all.map((m, i) => [m, checker.getTypeAtLocation(aliases[i].name)])) };
  return declarations;
}

/** Fields that the model's TypeScript declaration does not have, as paths (`spec.template.spec.containers[0].readinesProbe`), per object. */
export function unknownFields(objects: K8sObject[]): string[][] {
  const modules = objects.map((o) => modelModule(o.apiVersion, o.kind));
  const { checker, types } = declaredTypes(modules);

  const walk = (type: ts.Type, value: unknown, at: string, out: string[]): void => {
    if (value === null || typeof value !== 'object') return;
    const nonNull = checker.getNonNullableType(type);
    const members = nonNull.isUnion() ? nonNull.types : [nonNull];
    if (Array.isArray(value)) {
      const element = members.map((t) => checker.getIndexTypeOfType(t, ts.IndexKind.Number)).find(Boolean);
      if (element) value.forEach((v, i) => walk(element, v, `${at}[${i}]`, out));
      return;
    }
    // any, unknown and primitives have no fields to check (the JSON schema checks the value's type).
    const objectTypes = members.filter((t) => t.flags & ts.TypeFlags.Object);
    if (!objectTypes.length) return;
    for (const [key, v] of Object.entries(value)) {
      let next: ts.Type | undefined;
      for (const t of objectTypes) {
        const property = t.getProperty(key);
        next = property ? checker.getTypeOfSymbol(property) : checker.getIndexTypeOfType(t, ts.IndexKind.String);
        if (next) break;
      }
      const where = at ? `${at}.${key}` : key;
      if (next) walk(next, v, where, out);
      else out.push(where);
    }
  };

  return objects.map((o, i) => {
    const type = types.get(modules[i])!;
    if (type.flags & ts.TypeFlags.Any) return [`no type declaration I${o.kind} in ${modules[i]}`];
    const out: string[] = [];
    walk(type, o, '', out);
    return out;
  });
}
