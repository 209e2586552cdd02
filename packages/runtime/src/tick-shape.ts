import { createHook } from 'node:async_hooks';

let kept: object | undefined;

/**
 * Keeps one of Node's tick objects (what `process.nextTick` queues) alive for the life of the process.
 *
 * Node 24 builds each tick object as an object literal with three symbol keys. When a major collection
 * finds none alive, V8 frees their map and throws away the compiled `nextTick` and
 * `processTicksAndRejections` that embedded it ("embedded weak objects cleared"); the next tick objects
 * get a new map. After a few such collections the literal's feedback has seen too many maps, and every
 * `nextTick` defines the object's keys through V8's runtime: 85 to 102 ns a call became 475 to 675 from
 * the sixth or seventh collection in a loop of its own, and a gateway under callgrind spent 29,000 to
 * 38,000 instructions a request there (contributors.md, 5 December). Which processes it hits depends on
 * when their collections fall, so it is one cause of the spread between processes of one build. One tick
 * object kept keeps its map, and with it the compiled code. Returns the object kept.
 */
export function keepTickShape(): object | undefined {
  if (kept !== undefined) return kept;
  // Node's only way to a tick object: the init hook of async_hooks, enabled for one nextTick and no more.
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'TickObject') kept ??= resource as object;
    },
  });
  hook.enable();
  try {
    process.nextTick(() => {});
  } finally {
    hook.disable();
  }
  return kept;
}
