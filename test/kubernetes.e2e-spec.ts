/**
 * The Kubernetes manifests (deploy/kubernetes): every overlay renders with
 * `kubectl kustomize`, every object is valid against the Kubernetes API
 * schemas, and the checker that guards them rejects the usual mistakes. The
 * checker is an ES module (its schema models ship only as such), so it runs
 * in its own Node process, as CI and `pnpm k8s:check` run it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';

const ROOT = join(__dirname, '..');
const CHECK = join(ROOT, 'deploy/kubernetes/check.mjs');
const OVERLAYS = readdirSync(join(ROOT, 'deploy/kubernetes/overlays'));
const SERVICES = ['gateway', 'search', 'session', 'router', 'worker'];

interface Report {
  source: string;
  objects: string[];
  errors: string[];
}

/** Runs the checker on `sources` (all overlays when empty) and returns its JSON report, whatever its exit code. */
function check(...sources: string[]): Report[] {
  try {
    return JSON.parse(
      execFileSync(process.execPath, [CHECK, '--json', ...sources], { cwd: ROOT, encoding: 'utf8' }),
    ) as Report[];
  } catch (err) {
    const stdout = (err as { stdout?: string }).stdout;
    if (!stdout) throw err;
    return JSON.parse(stdout) as Report[];
  }
}

type Obj = Record<string, any>;

function render(overlay: string): Obj[] {
  const text = execFileSync('kubectl', ['kustomize', join(ROOT, 'deploy/kubernetes/overlays', overlay)], {
    encoding: 'utf8',
  });
  return parseAllDocuments(text).map((d) => d.toJS() as Obj);
}

describe('Kubernetes manifests', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rota-k8s-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('has a production and a dev overlay', () => {
    expect(OVERLAYS).toEqual(expect.arrayContaining(['production', 'dev']));
  });

  it('renders every overlay to objects valid against the API schemas, with no problem found', () => {
    const reports = check();
    expect(reports.map((r) => r.source.split('/').pop()).sort()).toEqual([...OVERLAYS].sort());
    for (const r of reports) {
      expect(r.errors).toEqual([]);
      for (const s of SERVICES)
        for (const kind of ['Deployment', 'PodDisruptionBudget', 'HorizontalPodAutoscaler', 'Service'])
          expect(r.objects).toContain(`${kind}/rota-${s}`);
      expect(r.objects).toEqual(
        expect.arrayContaining(['Job/rota-migrate', 'ServiceMonitor/rota', 'NetworkPolicy/rota-metrics']),
      );
      // The ConfigMap's name carries a hash of its content, so a change of settings rolls every Deployment.
      expect(r.objects.filter((o) => /^ConfigMap\/rota-config-[a-z0-9]{10}$/.test(o))).toHaveLength(1);
      expect(r.objects.filter((o) => o.startsWith('Secret/'))).toEqual([]);
    }
  });

  it.each(OVERLAYS)(
    '%s: secrets by reference to rota-secrets, images pinned, the backlog metric on every transport service',
    (overlay) => {
      const objects = render(overlay);
      const namespaces = new Set(objects.map((o) => o.metadata.namespace));
      expect(namespaces.size).toBe(1);
      const pods = objects.filter((o) => o.kind === 'Deployment' || o.kind === 'Job').map((o) => o.spec.template.spec);
      const containers = pods.flatMap((p) => [...(p.initContainers ?? []), ...p.containers]);
      for (const c of containers) {
        expect(c.image).toMatch(/^[^:]+:\d+\.\d+\.\d+$/);
        for (const e of c.env ?? [])
          if (e.valueFrom?.secretKeyRef) expect(e.valueFrom.secretKeyRef.name).toBe('rota-secrets');
      }
      const refs = (name: string) =>
        containers.flatMap((c) =>
          (c.env ?? [])
            .filter((e: Obj) => e.name === name)
            .map((e: Obj) => e.valueFrom?.secretKeyRef?.key as string | undefined),
        );
      expect(new Set(refs('DATABASE_URL'))).toEqual(new Set(['database-url']));
      expect(new Set(refs('ROTA_CREDENTIALS_KEY'))).toEqual(new Set(['credentials-key']));

      // What the deploy step applies first (`-l 'app.kubernetes.io/component in (config,migration)'`): the Job and the ConfigMap it reads.
      const first = objects.filter((o) =>
        ['config', 'migration'].includes(o.metadata.labels?.['app.kubernetes.io/component']),
      );
      expect(first.map((o) => o.kind).sort()).toEqual(['ConfigMap', 'Job']);
      const job = first.find((o) => o.kind === 'Job')!;
      expect(job.spec.template.spec.containers[0].envFrom).toEqual([
        { configMapRef: { name: first.find((o) => o.kind === 'ConfigMap')!.metadata.name } },
      ]);

      // Every pod of a new version applies pending migrations before its app container starts.
      for (const d of objects.filter((o) => o.kind === 'Deployment'))
        expect(d.spec.template.spec.initContainers.map((c: Obj) => c.name)).toEqual(['migrate']);

      const hpa = (s: string) =>
        objects.find((o) => o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === `rota-${s}`)!;
      for (const s of ['search', 'session', 'router']) {
        const external = hpa(s).spec.metrics.find((m: Obj) => m.type === 'External');
        expect(external.external.metric).toEqual({
          name: 'rota_transport_backlog',
          selector: { matchLabels: { group: s } },
        });
      }
      expect(hpa('worker').spec.metrics.map((m: Obj) => m.external?.metric.name ?? m.resource.name)).toEqual([
        'cpu',
        'rota_queue_waiting',
      ]);
    },
  );

  it('rejects the usual mistakes', () => {
    const objects = render('production');
    const find = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name)!;
    const gateway = find('Deployment', 'rota-gateway').spec.template.spec;
    gateway.containers[0].image = 'ghcr.io/rota/rota:latest';
    delete gateway.containers[0].readinessProbe;
    delete gateway.initContainers[0].resources.limits;
    const search = find('Deployment', 'rota-search').spec.template.spec.containers[0];
    search.env.find((e: Obj) => e.name === 'DATABASE_URL').valueFrom = undefined;
    search.env.find((e: Obj) => e.name === 'DATABASE_URL').value = 'postgresql://rota:hunter2@postgres/rota';
    find('Deployment', 'rota-router').spec.replicas = 'three';
    delete find('Deployment', 'rota-worker').spec.template.spec.topologySpreadConstraints;
    const withoutPdb = objects.filter((o) => !(o.kind === 'PodDisruptionBudget' && o.metadata.name === 'rota-session'));
    find('NetworkPolicy', 'rota-metrics').spec.ingress[0].from = [];
    withoutPdb.push({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'rota-secrets' },
      stringData: { 'credentials-key': 'x' },
    });
    const config = objects.find((o) => o.kind === 'ConfigMap')!;
    config.data.ROTA_WEBHOOK_KEY = 'x';
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, withoutPdb.map((o) => stringify(o)).join('---\n'));

    const [report] = check(file);
    expect(report!.errors).toEqual(
      expect.arrayContaining([
        'Deployment/rota-gateway container gateway: image ghcr.io/rota/rota:latest uses the tag latest',
        'Deployment/rota-gateway container gateway: no readinessProbe',
        'Deployment/rota-gateway container migrate: no limits.cpu',
        'Deployment/rota-gateway container migrate: no limits.memory',
        'Deployment/rota-search container search: DATABASE_URL is not set through a secretKeyRef',
        'Deployment/rota-router: data/spec/replicas must be integer',
        'Deployment/rota-worker: no topologySpreadConstraints',
        'Deployment/rota-session: no PodDisruptionBudget selects its pods',
        'NetworkPolicy/rota-metrics: opens the metrics port to every source',
        'no NetworkPolicy admits Prometheus to the metrics port',
        'Secret/rota-secrets: secrets are created by the operator, never kept in the manifests',
        `ConfigMap/${config.metadata.name}: ROTA_WEBHOOK_KEY belongs in a Secret`,
      ]),
    );
    expect(report!.errors).toHaveLength(12);
  });
});
