// Async context storages that share one frame, as Node 24's AsyncLocalStorage does natively (AsyncContextFrame).
//
// On Node 20 every AsyncLocalStorage that has ever been used is propagated by an async hook into every promise
// the process creates: each such storage costs a call and a property on every promise, whatever the request.
// Next alone uses three to nine (more once pages render), and promises are what A2A and MCP requests are made
// of: with five storages in use an A2A message spent more time in that hook and its garbage than in its SQL.
// A FrameAsyncLocalStorage keeps its value in one immutable map per context,
// carried by a single native storage, so the process pays for one storage however many exist. Semantics are
// Node 24's: a run() restores the whole frame when it ends, including what enterWith() set inside it.
//
// Our modules take ContextStorage from here; Next's and React's storages stay the runtime's own (nothing of Node's is
// replaced). On Node 24 ContextStorage is the native class.
import { AsyncLocalStorage } from "node:async_hooks";

type Frame = ReadonlyMap<object, unknown>;

const EMPTY_FRAME: Frame = new Map();

/** The one native storage that carries every frame: one per process although this module is bundled twice. */
const FRAMES = Symbol.for("agent-gate.async-context.frames");
const globalForFrames = globalThis as typeof globalThis & { [FRAMES]?: AsyncLocalStorage<Frame> };

function frames(): AsyncLocalStorage<Frame> {
  globalForFrames[FRAMES] ??= new AsyncLocalStorage<Frame>();
  return globalForFrames[FRAMES];
}

function currentFrame(): Frame {
  return frames().getStore() ?? EMPTY_FRAME;
}

function frameWith(frame: Frame, owner: object, value: unknown): Frame {
  const next = new Map(frame);
  next.set(owner, value);
  return next;
}

function frameWithout(frame: Frame, owner: object): Frame {
  const next = new Map(frame);
  next.delete(owner);
  return next;
}

/** AsyncLocalStorage's API over the shared frame. */
export class FrameAsyncLocalStorage<T> {
  /** Off after disable() until the next run() or enterWith(), as with the native class. */
  private enabled = true;

  /** Binds `fn` to the current context (every storage's values, as the native static does). */
  static bind<Func extends (...args: never[]) => unknown>(fn: Func): Func {
    return AsyncLocalStorage.bind(fn);
  }

  /** Captures the current context; the returned function runs a callback in it. */
  static snapshot(): <R, TArgs extends unknown[]>(fn: (...args: TArgs) => R, ...args: TArgs) => R {
    return AsyncLocalStorage.snapshot();
  }

  getStore(): T | undefined {
    if (!this.enabled) return undefined;
    const frame = frames().getStore();
    return frame === undefined ? undefined : (frame.get(this) as T | undefined);
  }

  run<R, TArgs extends unknown[]>(store: T, callback: (...args: TArgs) => R, ...args: TArgs): R {
    this.enabled = true;
    return frames().run(frameWith(currentFrame(), this, store), callback, ...args);
  }

  exit<R, TArgs extends unknown[]>(callback: (...args: TArgs) => R, ...args: TArgs): R {
    const frame = currentFrame();
    if (!frame.has(this)) return callback(...args);
    return frames().run(frameWithout(frame, this), callback, ...args);
  }

  enterWith(store: T): void {
    this.enabled = true;
    frames().enterWith(frameWith(currentFrame(), this, store));
  }

  disable(): void {
    this.enabled = false;
  }
}

/** Whether the runtime's own AsyncLocalStorage already shares one frame per context (Node 24: AsyncContextFrame). */
export function runtimeSharesFrames(version: string = process.versions.node): boolean {
  return Number(version.split(".")[0]) >= 24;
}

/** The storage class for our modules: the native one where it already shares frames, else FrameAsyncLocalStorage. */
export const ContextStorage: typeof AsyncLocalStorage = runtimeSharesFrames() ? AsyncLocalStorage : (FrameAsyncLocalStorage as unknown as typeof AsyncLocalStorage);
