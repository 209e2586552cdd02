import { expect, inject } from 'vitest';
import type { Platform } from './loaded-stack.ts';

/** The loaded platform of this test run (see setup.ts). */
export const platform: Platform = inject('platform');

/** GET through the gateway with the platform token. */
export async function get(path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${platform.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${platform.token}` },
  });
  return { status: res.status, body: await res.json() };
}

/** GET that must be a 200; resolves to the body. */
export async function ok(path: string): Promise<any> {
  const r = await get(path);
  expect(r.status, `${path}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(200);
  return r.body;
}
