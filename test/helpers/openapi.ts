import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

type Spec = {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: Record<string, unknown>;
};

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/openapi.yaml');
export const spec = parse(fs.readFileSync(file, 'utf8')) as Spec;

/** OpenAPI 3.0 schemas to JSON Schema: `nullable` becomes a union with null. */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'nullable' || k === 'description') continue;
    if (k === '$ref' && typeof v === 'string') out.$ref = v.replace('#/components/', 'openapi#/components/');
    else out[k] = toJsonSchema(v);
  }
  const o = node as Record<string, unknown>;
  if (o.exclusiveMinimum === true) {
    out.exclusiveMinimum = o.minimum;
    delete out.minimum;
  }
  if (o.nullable === true) return { anyOf: [out, { type: 'null' }] };
  return out;
}

type AddFormats = (ajv: Ajv) => Ajv;
const formatsModule = addFormatsModule as unknown as AddFormats & { default?: AddFormats };
const addFormats: AddFormats = formatsModule.default ?? formatsModule;
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
ajv.addSchema({ $id: 'openapi', components: toJsonSchema(spec.components) });

function resolve(ref: unknown): Record<string, unknown> {
  let node = ref as Record<string, unknown>;
  while (typeof node.$ref === 'string') {
    const parts = node.$ref.replace('#/', '').split('/');
    node = parts.reduce<Record<string, unknown>>(
      (n, p) => n[p] as Record<string, unknown>,
      spec as unknown as Record<string, unknown>,
    );
  }
  return node;
}

/** Validate an answer against the document's schema for that operation and status; returns the errors. */
export function validateAnswer(pathKey: string, method: string, status: number, body: unknown): string[] {
  const op = spec.paths[pathKey]?.[method];
  if (!op) return [`no operation ${method} ${pathKey}`];
  const response = op.responses[String(status)];
  if (!response) return [`status ${status} is not documented for ${method} ${pathKey}`];
  const content = resolve(response).content as Record<string, { schema: unknown }>;
  const schema = toJsonSchema(content['application/json']!.schema);
  const validate = ajv.compile(schema as object);
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}
