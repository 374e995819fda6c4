import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { parseAllDocuments } from 'yaml';
import { SECRET_VARIABLES, validateEnvironment } from '../../src/config/env.schema';

/**
 * deploy/kubernetes: every manifest valid against the Kubernetes schemas (kubernetes-models), and
 * consistent with the server: the ConfigMap and the Secret cover `.env.example`, secrets in the
 * Secret only, the probes on the health routes, a termination grace that outlasts the preStop sleep
 * and the server's shutdown timeout, the replicas without migrations and the Job running them.
 */
const ROOT = join(__dirname, '..', '..');
const DIR = join(ROOT, 'deploy', 'kubernetes');

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
};

interface Manifest {
  file: string;
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  [field: string]: any;
}

const files = readdirSync(DIR).filter((file) => file.endsWith('.yaml'));
const manifests: Manifest[] = files.flatMap((file) =>
  parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((document): Manifest => {
    if ('errors' in document && document.errors.length > 0) throw new Error(`${file}: ${document.errors[0].message}`);
    return { ...(document.toJS() as Manifest), file };
  }),
);
const only = (kind: string): Manifest => {
  const found = manifests.filter((manifest) => manifest.kind === kind);
  expect(found).toHaveLength(1);
  return found[0];
};

/** Every variable `.env.example` names, set or commented out. */
const exampleVariables = [...readFileSync(join(ROOT, '.env.example'), 'utf8').matchAll(/^(?:#\s*)?([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]);

describe('Kubernetes manifests (deploy/kubernetes)', () => {
  it('are each valid against the Kubernetes schema of their kind', () => {
    const resources = manifests.filter((manifest) => manifest.kind !== 'Kustomization');
    expect(resources.map((manifest) => manifest.kind).sort()).toEqual(
      ['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'Job', 'PodDisruptionBudget', 'Secret', 'Service'].sort(),
    );
    for (const { file, ...data } of resources) {
      const Model = MODELS[`${data.apiVersion}/${data.kind}`];
      expect(Model).toBeDefined();
      expect(() => new Model(data as never).validate()).not.toThrow();
      expect(file).toBeTruthy();
    }
  });

  it('the schema check catches a broken manifest (the validation is not a no-op)', () => {
    const { file: _file, ...deployment } = only('Deployment');
    const broken = JSON.parse(JSON.stringify(deployment));
    broken.spec.replicas = 'three';
    expect(() => new Deployment(broken).validate()).toThrow(/replicas/);
    const { file: _hpaFile, ...hpa } = only('HorizontalPodAutoscaler');
    const noMax = JSON.parse(JSON.stringify(hpa));
    delete noMax.spec.maxReplicas;
    expect(() => new HorizontalPodAutoscaler(noMax).validate()).toThrow(/maxReplicas/);
  });

  it('the kustomization lists every manifest file', () => {
    const kustomization = only('Kustomization');
    expect([...kustomization.resources].sort()).toEqual(files.filter((file) => file !== 'kustomization.yaml').sort());
  });

  it('the ConfigMap and the Secret hold every .env.example variable, secrets in the Secret only, and make a valid configuration', () => {
    const config: Record<string, string> = only('ConfigMap').data;
    const secret: Record<string, string> = only('Secret').stringData;
    expect(exampleVariables.length).toBeGreaterThan(40);
    for (const name of exampleVariables) {
      const inConfig = name in config;
      const inSecret = name in secret;
      expect({ name, inConfig, inSecret }).toEqual({ name, inConfig: !SECRET_VARIABLES.has(name), inSecret: SECRET_VARIABLES.has(name) });
    }
    // Nothing the server does not know (a typo would be silently ignored).
    for (const name of [...Object.keys(config), ...Object.keys(secret)]) expect(exampleVariables).toContain(name);
    for (const value of [...Object.values(config), ...Object.values(secret)]) expect(typeof value).toBe('string');
    expect(() => validateEnvironment({ ...config, ...secret })).not.toThrow();
    expect(config.MIGRATIONS_RUN).toBe('false');
  });

  it('the Deployment: probes on the health routes, resources, and a termination grace beyond preStop + SHUTDOWN_TIMEOUT_MS', () => {
    const deployment = only('Deployment');
    const pod = deployment.spec.template.spec;
    expect(pod.containers).toHaveLength(1);
    const [container] = pod.containers;
    expect(container.livenessProbe.httpGet.path).toBe('/health/live');
    expect(container.readinessProbe.httpGet.path).toBe('/health/ready');
    expect(container.startupProbe.httpGet.path).toMatch(/^\/health\/(live|ready)$/);
    const port = container.ports.find((p: { name: string }) => p.name === container.readinessProbe.httpGet.port);
    expect(String(port.containerPort)).toBe(only('ConfigMap').data.PORT);
    expect(container.resources.requests.cpu).toBeDefined();
    expect(container.resources.requests.memory).toBeDefined();
    expect(container.resources.limits.memory).toBeDefined();

    const [sleep, seconds] = container.lifecycle.preStop.exec.command;
    expect(sleep).toBe('sleep');
    const shutdownSeconds = Number(only('ConfigMap').data.SHUTDOWN_TIMEOUT_MS) / 1000;
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(Number(seconds) + shutdownSeconds);
    expect(pod.terminationGracePeriodSeconds).toBeLessThanOrEqual(Number(seconds) + shutdownSeconds + 15);

    const envFrom = container.envFrom.map((source: any) => source.configMapRef?.name ?? source.secretRef?.name);
    expect(envFrom.sort()).toEqual([only('ConfigMap').metadata.name, only('Secret').metadata.name].sort());
    expect(deployment.spec.template.metadata.labels).toMatchObject(deployment.spec.selector.matchLabels);
  });

  it('the migration Job runs the migration CLI with the image and configuration of the replicas', () => {
    const job = only('Job');
    const [container] = job.spec.template.spec.containers;
    const [api] = only('Deployment').spec.template.spec.containers;
    expect(container.command).toEqual(['node', 'dist/src/cli.js', 'migration:run']);
    expect(container.image).toBe(api.image);
    expect(container.envFrom).toEqual(api.envFrom);
    expect(job.spec.template.spec.restartPolicy).toBe('Never');
  });

  it('Service, PodDisruptionBudget and HorizontalPodAutoscaler point at the Deployment', () => {
    const deployment = only('Deployment');
    const labels = deployment.spec.template.metadata.labels;
    expect(labels).toMatchObject(only('Service').spec.selector);
    expect(only('Service').spec.ports[0].targetPort).toBe(deployment.spec.template.spec.containers[0].ports[0].name);
    expect(labels).toMatchObject(only('PodDisruptionBudget').spec.selector.matchLabels);
    expect(only('HorizontalPodAutoscaler').spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
    expect(only('HorizontalPodAutoscaler').spec.minReplicas).toBeGreaterThanOrEqual(2);
  });
});
