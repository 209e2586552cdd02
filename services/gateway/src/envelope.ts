import type { common } from '@mdp/proto';

/**
 * The SPEC 2.1 envelope, assembled around the service's pre-serialised document without parsing it:
 * `{"data": <bytes as sent>, "meta": {as_of, route, ...service meta}}`.
 */
export function envelope(doc: common.Document, route: string, now: number): string {
  const data = doc.data_json.length > 0 ? doc.data_json.toString('utf8') : 'null';
  const head = `{"as_of":${JSON.stringify(new Date(now).toISOString())},"route":${JSON.stringify(route)}`;
  const extra = doc.meta_json.length > 2 ? `,${doc.meta_json.toString('utf8').slice(1, -1)}` : '';
  return `{"data":${data},"meta":${head}${extra}}}`;
}
