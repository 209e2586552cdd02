import type { TestProject } from 'vitest/node';
import { startLoadedStack } from './loaded-stack.ts';

/** Vitest global setup of the `platform` project: one loaded platform for all of its test files. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { platform, stop } = await startLoadedStack();
  project.provide('platform', platform);
  return stop;
}
