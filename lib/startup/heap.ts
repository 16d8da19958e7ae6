// The V8 heap npm start gives the server (scripts/start.sh runs scripts/heap-flags.ts for it). V8's own default is
// a share of the machine's memory, blind to a container's or a systemd unit's limit: a process that believes it may
// grow to gigabytes inside a 1 GiB cgroup is killed by the kernel instead of collecting garbage. A fixed small cap
// is worse: a burst of ordinary requests outgrew 128 MiB and V8 aborted the process. So the old space is sized from
// the memory the process is given, with the rest left for what lives outside the V8 heap (code, buffers, SQLite's
// page cache, the checkpoint worker's own heap, glibc's arenas); bounded memory under load comes from admission
// control (lib/admission), never from aborting.

const MiB = 1024 * 1024;

/** Share of a cgroup memory limit given to V8's old space; the rest stays outside the V8 heap. */
export const HEAP_SHARE_OF_LIMIT = 0.7;
/** Old space without any limit on the process (no cgroup limit): the measured peak live set with ample headroom. */
export const DEFAULT_OLD_SPACE_MIB = 1024;
/** Below this the server cannot even hold its start-up live set (about 110 MiB) with room for requests. */
export const MIN_OLD_SPACE_MIB = 192;
/** Each of the young generation's semi-spaces: fewer scavenges per request than V8's default at a small cost. */
export const SEMI_SPACE_MIB = 16;

export interface MemoryFacts {
  /** process.constrainedMemory(): the cgroup limit in bytes; 0, undefined or a huge value when there is none. */
  constrainedBytes: number | undefined;
  /** os.totalmem() */
  totalBytes: number;
  /** NODE_OPTIONS as the operator set it. */
  nodeOptions: string | undefined;
}

/** The cgroup limit when there is a real one (below the machine's memory), else null. */
export function memoryLimitBytes(facts: Pick<MemoryFacts, "constrainedBytes" | "totalBytes">): number | null {
  const limit = facts.constrainedBytes;
  if (limit === undefined || !Number.isFinite(limit) || limit <= 0 || limit >= facts.totalBytes) return null;
  return limit;
}

/** The old space in MiB for a process allowed `limitBytes` (null: no limit). */
export function oldSpaceMiB(limitBytes: number | null, totalBytes: number): number {
  if (limitBytes === null) return Math.max(MIN_OLD_SPACE_MIB, Math.min(DEFAULT_OLD_SPACE_MIB, Math.floor((totalBytes / MiB) * HEAP_SHARE_OF_LIMIT)));
  return Math.max(MIN_OLD_SPACE_MIB, Math.floor((limitBytes / MiB) * HEAP_SHARE_OF_LIMIT));
}

/** Whether the operator's NODE_OPTIONS already sets this V8 flag (dashes or underscores, as V8 accepts both). */
function setsFlag(nodeOptions: string | undefined, flag: string): boolean {
  if (!nodeOptions) return false;
  const pattern = new RegExp(`(^|\\s)--${flag.replace(/-/g, "[-_]")}(=|\\s|$)`);
  return pattern.test(nodeOptions);
}

/** The heap flags for node's command line; a flag the operator set in NODE_OPTIONS is left to the operator. */
export function heapFlags(facts: MemoryFacts): string[] {
  const flags: string[] = [];
  if (!setsFlag(facts.nodeOptions, "max-old-space-size")) flags.push(`--max-old-space-size=${oldSpaceMiB(memoryLimitBytes(facts), facts.totalBytes)}`);
  if (!setsFlag(facts.nodeOptions, "max-semi-space-size")) flags.push(`--max-semi-space-size=${SEMI_SPACE_MIB}`);
  return flags;
}
