#!/usr/bin/env node
/**
 * Renders the Kubernetes manifests and checks them:
 *
 *   node deploy/kubernetes/check.mjs                 every overlay under overlays/
 *   node deploy/kubernetes/check.mjs overlays/dev    one overlay (or any kustomization directory)
 *   node deploy/kubernetes/check.mjs some.yaml       an already rendered file
 *   add --json for one JSON report on stdout; --render prints the rendered YAML instead
 *
 * Each object is validated against the Kubernetes API schema of its kind
 * (kubernetes-models, and @kubernetes-models/prometheus-operator for the
 * ServiceMonitor); then the mistakes a schema does not catch: images without
 * a pinned tag, containers without probes or resources, secrets set in
 * clear, a Deployment without its PodDisruptionBudget, HorizontalPodAutoscaler
 * or topology spread, a metrics port open beyond Prometheus. Exits 1 when
 * anything fails.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

const here = dirname(fileURLToPath(import.meta.url));
const METRICS_PORT = 9464;
/** Environment variables that hold a secret: set only through secretKeyRef. */
const SECRET_NAME = /(^|_)(KEY|KEYS|SECRET|SECRETS|PASSWORD|TOKEN|CREDENTIALS)$|^(DATABASE_URL|REDIS_URL)$/;

/** The module holding the model classes of one apiVersion. */
function modelModule(apiVersion) {
  if (apiVersion.startsWith('monitoring.coreos.com/')) return `@kubernetes-models/prometheus-operator/${apiVersion}`;
  return `kubernetes-models/${apiVersion}`;
}

async function validateSchema(obj) {
  const where = `${obj.kind}/${obj.metadata?.name}`;
  let mod;
  try {
    mod = await import(modelModule(String(obj.apiVersion)));
  } catch {
    return [`${where}: no schema for apiVersion ${obj.apiVersion}`];
  }
  const Model = mod[obj.kind];
  if (typeof Model !== 'function') return [`${where}: no schema for kind ${obj.kind} in ${obj.apiVersion}`];
  try {
    new Model(obj).validate();
    return [];
  } catch (err) {
    return [`${where}: ${err instanceof Error ? err.message : String(err)}`];
  }
}

function imageErrors(where, image) {
  if (typeof image !== 'string' || !image) return [`${where}: no image`];
  if (image.includes('@sha256:')) return [];
  const last = image.split('/').pop();
  const tag = last.includes(':') ? last.split(':').pop() : undefined;
  if (!tag) return [`${where}: image ${image} has no tag`];
  if (tag === 'latest') return [`${where}: image ${image} uses the tag latest`];
  return [];
}

function resourceErrors(where, resources) {
  const out = [];
  for (const kind of ['requests', 'limits'])
    for (const r of ['cpu', 'memory']) if (resources?.[kind]?.[r] === undefined) out.push(`${where}: no ${kind}.${r}`);
  return out;
}

function envErrors(where, container) {
  const out = [];
  for (const e of container.env ?? []) {
    if (!SECRET_NAME.test(e.name)) continue;
    if (!e.valueFrom?.secretKeyRef) out.push(`${where}: ${e.name} is not set through a secretKeyRef`);
  }
  return out;
}

const matches = (selector, labels) => Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v);

/** The checks beyond the schema, over every object of one rendering. */
export function lint(objects) {
  const errors = [];
  const byKind = (kind) => objects.filter((o) => o.kind === kind);
  const deployments = byKind('Deployment');
  const pdbs = byKind('PodDisruptionBudget');
  const hpas = byKind('HorizontalPodAutoscaler');

  for (const p of pdbs)
    if (p.spec?.minAvailable === undefined && p.spec?.maxUnavailable === undefined)
      errors.push(`PodDisruptionBudget/${p.metadata?.name}: sets neither minAvailable nor maxUnavailable`);
  for (const o of byKind('Secret'))
    errors.push(`Secret/${o.metadata?.name}: secrets are created by the operator, never kept in the manifests`);
  for (const o of byKind('ConfigMap'))
    for (const key of Object.keys(o.data ?? {}))
      if (SECRET_NAME.test(key)) errors.push(`ConfigMap/${o.metadata?.name}: ${key} belongs in a Secret`);

  const podSpecs = [
    ...deployments.map((o) => ({ owner: o, spec: o.spec?.template?.spec, serving: true })),
    ...byKind('Job').map((o) => ({ owner: o, spec: o.spec?.template?.spec, serving: false })),
    ...byKind('CronJob').map((o) => ({ owner: o, spec: o.spec?.jobTemplate?.spec?.template?.spec, serving: false })),
  ];
  for (const { owner, spec, serving } of podSpecs) {
    const name = `${owner.kind}/${owner.metadata?.name}`;
    const containers = spec?.containers ?? [];
    if (!containers.length) errors.push(`${name}: no containers`);
    for (const c of [...(spec?.initContainers ?? []), ...containers]) {
      const where = `${name} container ${c.name}`;
      errors.push(...imageErrors(where, c.image), ...resourceErrors(where, c.resources), ...envErrors(where, c));
      for (const e of c.envFrom ?? [])
        if (e.secretRef && !e.secretRef.name) errors.push(`${where}: envFrom secretRef without a name`);
    }
    if (serving)
      for (const c of containers) {
        if (!c.readinessProbe) errors.push(`${name} container ${c.name}: no readinessProbe`);
        if (!c.livenessProbe) errors.push(`${name} container ${c.name}: no livenessProbe`);
      }
  }

  for (const d of deployments) {
    const name = `Deployment/${d.metadata?.name}`;
    const labels = d.spec?.template?.metadata?.labels;
    if (!matches(d.spec?.selector?.matchLabels, labels)) errors.push(`${name}: selector does not match its pod labels`);
    if (!pdbs.some((p) => p.spec?.selector?.matchLabels && matches(p.spec.selector.matchLabels, labels)))
      errors.push(`${name}: no PodDisruptionBudget selects its pods`);
    if (
      !hpas.some(
        (h) => h.spec?.scaleTargetRef?.kind === 'Deployment' && h.spec.scaleTargetRef.name === d.metadata?.name,
      )
    )
      errors.push(`${name}: no HorizontalPodAutoscaler targets it`);
    if (!(d.spec?.template?.spec?.topologySpreadConstraints ?? []).length)
      errors.push(`${name}: no topologySpreadConstraints`);
  }

  // The metrics port answers without a key: every ingress rule that opens it
  // (naming it, or naming no port at all) must say who may connect.
  const policies = byKind('NetworkPolicy');
  const metricsPortNamed = (p) => p.port === 'metrics' || p.port === METRICS_PORT;
  let metricsAdmitted = false;
  for (const np of policies)
    for (const rule of np.spec?.ingress ?? []) {
      const opensMetrics = !rule.ports?.length || rule.ports.some(metricsPortNamed);
      if (!opensMetrics) continue;
      if (!rule.from?.length) errors.push(`NetworkPolicy/${np.metadata?.name}: opens the metrics port to every source`);
      else metricsAdmitted = true;
    }
  if (
    deployments.length &&
    !policies.some((np) => !np.spec?.ingress?.length && (np.spec?.policyTypes ?? []).includes('Ingress'))
  )
    errors.push('no default-deny ingress NetworkPolicy');
  if (deployments.length && !metricsAdmitted) errors.push('no NetworkPolicy admits Prometheus to the metrics port');

  const monitors = byKind('ServiceMonitor');
  if (deployments.length && !monitors.length) errors.push('no ServiceMonitor');
  for (const d of deployments) {
    const labels = d.spec?.template?.metadata?.labels;
    const svc = byKind('Service').find(
      (s) =>
        matches(s.spec?.selector, labels) &&
        (s.spec?.ports ?? []).some((p) => p.name === 'metrics') &&
        monitors.some((m) => matches(m.spec?.selector?.matchLabels, s.metadata?.labels)),
    );
    if (!svc)
      errors.push(`Deployment/${d.metadata?.name}: no Service with a metrics port that a ServiceMonitor selects`);
  }
  return errors;
}

function render(source) {
  if (statSync(source).isDirectory()) {
    try {
      return execFileSync('kubectl', ['kustomize', source], {
        encoding: 'utf8',
        maxBuffer: 64 << 20,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err) {
      if (err.code === 'ENOENT')
        throw new Error('kubectl is not installed: it renders the overlays (`kubectl kustomize`)');
      throw new Error(`kubectl kustomize ${source} failed: ${String(err.stderr || err.message).trim()}`);
    }
  }
  return readFileSync(source, 'utf8');
}

function parse(text) {
  const objects = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) throw new Error(doc.errors[0].message);
    const obj = doc.toJS();
    if (obj) objects.push(obj);
  }
  return objects;
}

export async function check(source) {
  const report = { source: relative(process.cwd(), source) || '.', objects: [], errors: [] };
  let objects;
  try {
    objects = parse(render(source));
  } catch (err) {
    report.errors.push(err instanceof Error ? err.message : String(err));
    return report;
  }
  report.objects = objects.map((o) => `${o.kind}/${o.metadata?.name}`);
  for (const o of objects) report.errors.push(...(await validateSchema(o)));
  report.errors.push(...lint(objects));
  return report;
}

async function main() {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const printRendered = args.includes('--render');
  let sources = args.filter((a) => !a.startsWith('--')).map((a) => resolve(a));
  if (!sources.length) {
    const overlays = join(here, 'overlays');
    sources = readdirSync(overlays)
      .filter((d) => statSync(join(overlays, d)).isDirectory())
      .map((d) => join(overlays, d));
  }
  if (printRendered) {
    for (const s of sources) process.stdout.write(`# ${relative(process.cwd(), s)}\n---\n${render(s)}`);
    return 0;
  }
  const reports = [];
  for (const s of sources) reports.push(await check(s));
  if (json) process.stdout.write(JSON.stringify(reports, null, 2) + '\n');
  else
    for (const r of reports) {
      process.stdout.write(
        `${r.source}: ${r.objects.length} objects, ${r.errors.length ? `${r.errors.length} problem(s)` : 'valid'}\n`,
      );
      for (const e of r.errors) process.stdout.write(`  - ${e}\n`);
    }
  return reports.some((r) => r.errors.length) ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(2);
    },
  );
}
