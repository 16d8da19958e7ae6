// Admission control (lib/admission): each class of work runs at most its bound at once, queues a bounded number more
// in arrival order, refuses the rest at once, refuses a waiter that waited too long, skips a waiter whose client left,
// and sheds anonymous costly work first when the heap fills up. Injected clock and heap readings; no timers.
import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { Admission, admissionBounds, WORK_CLASSES, type AdmissionBounds, type AdmissionTicket, type ShedReason, type WorkClass } from "@/lib/admission";
import { resolveRoute, routeOfTarget } from "@/lib/routes";
import { HeapPressure } from "@/lib/admission/heap";
import { AdmissionLane } from "@/lib/admission/lane";
import { offSlot } from "@/lib/admission/slot";
import { TurnQueue } from "@/lib/admission/turn-queue";

function lane(inFlight: number, queue: number, maxWaitMs = 1000) {
  let now = 0;
  const l = new AdmissionLane({ inFlight, queue, maxWaitMs }, () => now);
  return { lane: l, advance: (ms: number) => (now += ms) };
}

/** Queues a request that records its name when it starts and is refused quietly. */
function enterAs(l: AdmissionLane, started: string[], name: string, gone: () => boolean = () => false) {
  return l.enter(
    () => started.push(name),
    () => undefined,
    gone,
  );
}

describe("a lane", () => {
  it("starts up to its bound, queues up to its queue, refuses the rest at once", () => {
    const { lane: l } = lane(2, 1);
    const started: number[] = [];
    const entries = [0, 1, 2, 3].map((i) =>
      l.enter(
        () => started.push(i),
        () => undefined,
        () => false,
      ),
    );
    expect(entries).toEqual(["started", "started", "queued", "refused"]);
    expect(started).toEqual([0, 1]);
    expect(l.inFlight).toBe(2);
    expect(l.queued).toBe(1);
    l.leave();
    expect(started).toEqual([0, 1, 2]);
    expect(l.queued).toBe(0);
    expect(l.inFlight).toBe(2);
  });

  it("serves waiters in arrival order, and a new arrival never overtakes a waiter", () => {
    const { lane: l } = lane(1, 10);
    const started: string[] = [];
    enterAs(l, started, "a");
    enterAs(l, started, "b");
    enterAs(l, started, "c");
    l.leave();
    l.leave();
    expect(started).toEqual(["a", "b", "c"]);
  });

  it("skips a waiter whose client left, without counting it as running", () => {
    const { lane: l } = lane(1, 10);
    const started: string[] = [];
    enterAs(l, started, "a");
    let bGone = false;
    enterAs(l, started, "b", () => bGone);
    enterAs(l, started, "c");
    bGone = true;
    l.leave();
    expect(started).toEqual(["a", "c"]);
    expect(l.inFlight).toBe(1);
  });

  it("refuses waiters that waited longer than maxWaitMs, oldest first, and keeps the younger ones", () => {
    const { lane: l, advance } = lane(1, 10, 1000);
    const refused: string[] = [];
    l.enter(
      () => undefined,
      () => refused.push("running"),
      () => false,
    );
    l.enter(
      () => undefined,
      () => refused.push("old"),
      () => false,
    );
    advance(600);
    l.enter(
      () => undefined,
      () => refused.push("young"),
      () => false,
    );
    advance(500);
    expect(l.expire()).toBe(1);
    expect(refused).toEqual(["old"]);
    expect(l.queued).toBe(1);
    advance(600);
    expect(l.expire()).toBe(1);
    expect(refused).toEqual(["old", "young"]);
  });

  it("stays consistent over many turns (the queue's storage is compacted)", () => {
    const { lane: l } = lane(3, 50);
    let started = 0;
    for (let round = 0; round < 1000; round++) {
      for (let i = 0; i < 10; i++)
        l.enter(
          () => (started += 1),
          () => undefined,
          () => false,
        );
      while (l.inFlight > 0) l.leave();
    }
    expect(started).toBe(10_000);
    expect(l.queued).toBe(0);
  });
});

describe("classes of work", () => {
  it("puts each surface in its class and leaves the probes and static files unqueued", () => {
    const cases: [string, WorkClass | null][] = [
      ["/api/v1/agent/account", "account"],
      ["/api/v1/agent/registrations", "account"],
      ["/oauth2/token", "token"],
      ["/oauth2/revoke", "token"],
      ["/account", "pages"],
      ["/agent/authorize", "pages"],
      ["/agent/authorize/decision", "pages"],
      ["/login", "pages"],
      ["/api/auth/callback/credentials", "pages"],
      ["/mcp", "public"],
      ["/mcp/docs", "public"],
      ["/a2a", "public"],
      ["/ask", "public"],
      ["/api/v1/batch", "public"],
      ["/api/v1/sandbox/simulate", "public"],
      ["/agent/identity", "public"],
      ["/page-markdown/docs/getting-started", "general"],
      ["/docs/getting-started.md", "general"],
      ["/docs", "general"],
      ["/.well-known/jwks.json", "general"],
      ["/healthz", null],
      ["/readyz", null],
      ["/metrics", null],
      ["/_next/static/chunks/app.js", null],
    ];
    for (const [path, expected] of cases) expect(resolveRoute(path).workClass, path).toBe(expected);
  });
});

/** The ticket server.ts gives a request: its route's class (lib/routes), and one caller for every request here. */
function ticketOf(req: IncomingMessage, caller = "127.0.0.1"): AdmissionTicket {
  return { workClass: routeOfTarget(req.url).workClass, caller };
}

interface FakeExchange {
  req: IncomingMessage;
  res: ServerResponse;
  finish(): void;
}

function exchange(url: string): FakeExchange {
  const socket = { destroyed: false };
  const req = Object.assign(new EventEmitter(), { url, method: "POST", destroyed: false, socket, headers: {} }) as unknown as IncomingMessage;
  const res = Object.assign(new EventEmitter(), { writableEnded: false }) as unknown as ServerResponse;
  return {
    req,
    res,
    finish: () => {
      (res as unknown as { writableEnded: boolean }).writableEnded = true;
      res.emit("close");
    },
  };
}

/** A pacer stepped by the test: each `iteration()` is one event-loop iteration's check phase, on the test's clock. */
function steppedPacer() {
  const ticks: (() => void)[] = [];
  let now = 0;
  const p = new TurnQueue(
    (callback) => void ticks.push(callback),
    () => now,
  );
  const iteration = (): void => {
    for (const tick of ticks.splice(0)) tick();
  };
  return { p, iteration, advance: (ms: number) => (now += ms), pending: () => ticks.length };
}

/** By default a pacer that starts each job at once: most cases are about bounds, the pacer's own are below. */
function admissionWith(bounds: Partial<AdmissionBounds>, heapShare = 0, pacer = new TurnQueue((callback) => callback())) {
  const all = Object.fromEntries(WORK_CLASSES.map((c) => [c, bounds[c] ?? { inFlight: 1, queue: 0, maxWaitMs: 1000 }])) as AdmissionBounds;
  const shed: [WorkClass | null, ShedReason][] = [];
  let share = heapShare;
  const heap = new HeapPressure(() => ({ used: share * 1000, limit: 1000 }));
  const admission = new Admission({ bounds: all, heapShedShare: 0.8, refuse: (_req, _res, c, reason) => shed.push([c, reason]), onShed: () => undefined, heap, pacer });
  heap.sample();
  return {
    admission,
    shed,
    setHeap: (value: number) => {
      share = value;
      heap.sample();
    },
  };
}

describe("admission", () => {
  it("keeps a burst of one class from taking another's room", () => {
    const { admission, shed } = admissionWith({ public: { inFlight: 2, queue: 1, maxWaitMs: 1000 }, account: { inFlight: 1, queue: 0, maxWaitMs: 1000 } });
    let handled = 0;
    for (let i = 0; i < 10; i++) admission.admit(exchange("/mcp").req, exchange("/mcp").res, ticketOf(exchange("/mcp").req), () => (handled += 1));
    expect(handled).toBe(2);
    expect(shed.filter(([, reason]) => reason === "queue_full")).toHaveLength(7);
    let accountRan = false;
    const account = exchange("/api/v1/agent/account");
    admission.admit(account.req, account.res, ticketOf(account.req), () => (accountRan = true));
    expect(accountRan).toBe(true);
    let healthRan = 0;
    for (let i = 0; i < 100; i++) admission.admit(exchange("/healthz").req, exchange("/healthz").res, ticketOf(exchange("/healthz").req), () => (healthRan += 1));
    expect(healthRan).toBe(100);
  });

  it("admits a markdown rewrite's second request in a lane of its own, so twins holding every general slot still finish", () => {
    const { admission, shed } = admissionWith({ general: { inFlight: 1, queue: 0, maxWaitMs: 1000 } });
    const ran: string[] = [];
    const twin = exchange("/docs/webhooks.md");
    admission.admit(twin.req, twin.res, ticketOf(twin.req), () => ran.push("twin"));
    for (let i = 0; i < 2; i++) {
      const inner = exchange("/page-markdown/docs/webhooks");
      admission.admit(inner.req, inner.res, ticketOf(inner.req), () => ran.push("rewrite"));
    }
    expect(ran).toEqual(["twin", "rewrite"]);
    expect(shed).toEqual([]);
    const third = exchange("/page-markdown/docs/webhooks");
    admission.admit(third.req, third.res, ticketOf(third.req), () => ran.push("rewrite"));
    expect(shed).toEqual([["general", "queue_full"]]);
  });

  it("gives a slot back when the answer is finished or the connection closes", () => {
    const { admission } = admissionWith({ public: { inFlight: 1, queue: 1, maxWaitMs: 1000 } });
    const first = exchange("/ask");
    const second = exchange("/ask");
    const ran: string[] = [];
    admission.admit(first.req, first.res, ticketOf(first.req), () => ran.push("first"));
    admission.admit(second.req, second.res, ticketOf(second.req), () => ran.push("second"));
    expect(ran).toEqual(["first"]);
    expect(admission.state().public).toEqual({ inFlight: 1, queued: 1 });
    first.finish();
    expect(ran).toEqual(["first", "second"]);
    second.finish();
    expect(admission.state().public).toEqual({ inFlight: 0, queued: 0 });
  });

  it("sheds anonymous costly work first when the heap fills up, then pages, never own-account reads or tokens", () => {
    const { admission, shed, setHeap } = admissionWith({}, 0.85);
    const ran: string[] = [];
    for (const path of ["/mcp", "/docs", "/account", "/api/v1/agent/account", "/oauth2/token", "/healthz"]) {
      const x = exchange(path);
      admission.admit(x.req, x.res, ticketOf(x.req), () => ran.push(path));
      x.finish();
    }
    expect(shed).toEqual([["public", "heap"]]);
    expect(ran).toEqual(["/docs", "/account", "/api/v1/agent/account", "/oauth2/token", "/healthz"]);
    setHeap(0.95);
    ran.length = 0;
    for (const path of ["/docs", "/account", "/api/v1/agent/account", "/oauth2/token"]) {
      const x = exchange(path);
      admission.admit(x.req, x.res, ticketOf(x.req), () => ran.push(path));
      x.finish();
    }
    expect(ran).toEqual(["/api/v1/agent/account", "/oauth2/token"]);
    setHeap(0.1);
    const x = exchange("/mcp");
    admission.admit(x.req, x.res, ticketOf(x.req), () => ran.push("/mcp"));
    expect(ran).toContain("/mcp");
  });
});

describe("admission of what skips the lanes (issue 41)", () => {
  it("lets one caller hold only so many probes at once (429 past it), never bounding another caller or a later probe", () => {
    const all = Object.fromEntries(WORK_CLASSES.map((c) => [c, { inFlight: 1, queue: 0, maxWaitMs: 1000 }])) as AdmissionBounds;
    const shed: [WorkClass | null, ShedReason][] = [];
    const admission = new Admission({ bounds: all, heapShedShare: 0.8, unqueuedPerCaller: 2, refuse: (_req, _res, c, reason) => shed.push([c, reason]) });
    const ran: string[] = [];
    const probes = [0, 1, 2].map(() => exchange("/readyz"));
    for (const [i, probe] of probes.entries()) admission.admit(probe.req, probe.res, ticketOf(probe.req, "flooder"), () => ran.push(`flood${i}`));
    const other = exchange("/healthz");
    admission.admit(other.req, other.res, ticketOf(other.req, "monitor"), () => ran.push("monitor"));
    expect(ran).toEqual(["flood0", "flood1", "monitor"]);
    expect(shed).toEqual([[null, "caller_share"]]);
    probes[0]!.finish();
    const later = exchange("/favicon.ico");
    admission.admit(later.req, later.res, ticketOf(later.req, "flooder"), () => ran.push("later"));
    expect(ran.at(-1)).toBe("later");
  });
});

describe("one address for every request (issue 41 item 2)", () => {
  function singleCallerAdmission() {
    let now = 0;
    const warned: string[] = [];
    const bounds = admissionBounds(
      {
        account: { inFlight: 4, queue: 0 },
        token: { inFlight: 4, queue: 0 },
        pages: { inFlight: 4, queue: 0 },
        public: { inFlight: 4, queue: 0 },
        general: { inFlight: 4, queue: 0 },
      },
      1000,
      0.25,
    );
    const admission = new Admission({ bounds, heapShedShare: 0.8, refuse: () => undefined, onSingleCaller: (caller) => warned.push(caller), now: () => now });
    const ask = (caller: string): void => {
      const x = exchange("/ask");
      admission.admit(x.req, x.res, ticketOf(x.req, caller), () => undefined);
    };
    return { ask, warned, advance: (ms: number) => (now += ms) };
  }

  it("still serves that one caller at its share, and warns once that a proxy may be unnamed", () => {
    const { ask, warned, advance } = singleCallerAdmission();
    ask("10.9.9.9");
    advance(11_000);
    ask("10.9.9.9");
    ask("10.9.9.9");
    ask("10.9.9.9");
    expect(warned).toEqual(["10.9.9.9"]);
  });

  it("does not warn while other callers come too", () => {
    const { ask, warned, advance } = singleCallerAdmission();
    ask("10.9.9.9");
    advance(11_000);
    ask("10.1.1.1");
    ask("10.9.9.9");
    ask("10.9.9.9");
    expect(warned).toEqual([]);
  });
});

describe("admission with a pacer that waits for its turns", () => {
  /** An Admission whose pacer runs one iteration per `iteration()`, on the test's clock. */
  function steppedAdmission(bounds: Partial<AdmissionBounds>) {
    const { p, iteration, advance } = steppedPacer();
    return { ...admissionWith(bounds, 0, p), iteration, advance };
  }

  it("tells the handler whether the request had its turn: paced classes on their turn, the others at once", () => {
    const { admission, iteration } = steppedAdmission({});
    const calls: [string, boolean][] = [];
    for (const path of ["/api/v1/agent/account", "/oauth2/token", "/docs", "/healthz"]) {
      admission.admit(exchange(path).req, exchange(path).res, ticketOf(exchange(path).req), (hadTurn: boolean) => calls.push([path, hadTurn]));
    }
    expect(calls).toEqual([
      ["/api/v1/agent/account", false],
      ["/oauth2/token", false],
      ["/healthz", false],
    ]);
    iteration();
    expect(calls).toContainEqual(["/docs", true]);
  });

  it("refuses a request that waited for its turn as long as its lane's queue allows, and its slot comes back", () => {
    const { admission, shed, advance, iteration } = steppedAdmission({ general: { inFlight: 1, queue: 0, maxWaitMs: 1000 } });
    const page = exchange("/docs");
    let started = false;
    admission.admit(page.req, page.res, ticketOf(page.req), () => (started = true));
    expect(admission.state().general).toEqual({ inFlight: 1, queued: 0 });
    advance(999);
    expect(shed).toEqual([]);
    advance(2);
    iteration();
    expect(started).toBe(false);
    expect(shed).toEqual([["general", "queue_timeout"]]);
    // The refusal's answer finishes: the slot is free for the next request.
    page.finish();
    expect(admission.state().general).toEqual({ inFlight: 0, queued: 0 });
  });

  it("refuses requests whose turn is overdue even in an iteration that accepted a connection (it starts no work)", () => {
    const { admission, shed, advance, iteration } = steppedAdmission({ public: { inFlight: 4, queue: 0, maxWaitMs: 1000 } });
    const ran: string[] = [];
    admission.admit(exchange("/mcp").req, exchange("/mcp").res, ticketOf(exchange("/mcp").req), () => ran.push("old"));
    advance(600);
    admission.admit(exchange("/ask").req, exchange("/ask").res, ticketOf(exchange("/ask").req), () => ran.push("young"));
    advance(500);
    admission.noteConnection();
    iteration();
    expect(shed).toEqual([["public", "queue_timeout"]]);
    expect(ran).toEqual([]);
    iteration();
    expect(ran).toEqual(["young"]);
  });

  it("a client that leaves while waiting for its turn gives its slot back once, so the bound still holds", () => {
    const { admission, shed, iteration } = steppedAdmission({ public: { inFlight: 1, queue: 2, maxWaitMs: 1000 } });
    const ran: string[] = [];
    const leaving = exchange("/ask");
    admission.admit(leaving.req, leaving.res, ticketOf(leaving.req), () => ran.push("leaving"));
    const second = exchange("/ask");
    admission.admit(second.req, second.res, ticketOf(second.req), () => ran.push("second"));
    expect(admission.state().public).toEqual({ inFlight: 1, queued: 1 });
    // The client closes its connection: the response's close gives the slot to the second request.
    (leaving.req.socket as unknown as { destroyed: boolean }).destroyed = true;
    leaving.res.emit("close");
    expect(admission.state().public).toEqual({ inFlight: 1, queued: 0 });
    iteration();
    iteration();
    expect(ran).toEqual(["second"]);
    // The left client's turn did not give a slot back a second time: a third request waits for the second's.
    admission.admit(exchange("/ask").req, exchange("/ask").res, ticketOf(exchange("/ask").req), () => ran.push("third"));
    iteration();
    expect(ran).toEqual(["second"]);
    expect(admission.state().public).toEqual({ inFlight: 1, queued: 1 });
    expect(shed).toEqual([]);
  });
});

describe("the pacer", () => {
  it("starts one job per iteration, in order, while iterations run long", () => {
    const { p, iteration, advance } = steppedPacer();
    const ran: number[] = [];
    for (let i = 0; i < 3; i++) p.run(() => ran.push(i));
    expect(ran).toEqual([]);
    iteration();
    expect(ran).toEqual([0]);
    advance(5);
    iteration();
    expect(ran).toEqual([0, 1]);
    advance(5);
    iteration();
    expect(ran).toEqual([0, 1, 2]);
  });

  it("starts twice as many jobs after each short iteration, up to 64", () => {
    const { p, iteration, advance } = steppedPacer();
    const ran: number[] = [];
    for (let i = 0; i < 300; i++) p.run(() => ran.push(i));
    const perIteration: number[] = [];
    for (let n = 0; n < 9; n++) {
      const before = ran.length;
      iteration();
      advance(1);
      perIteration.push(ran.length - before);
    }
    expect(perIteration).toEqual([1, 2, 4, 8, 16, 32, 64, 64, 64]);
    expect(ran).toEqual([...Array(ran.length).keys()]);
  });

  it("halves the jobs after a long iteration, down to one", () => {
    const { p, iteration, advance } = steppedPacer();
    for (let i = 0; i < 100; i++) p.run(() => undefined);
    for (let n = 0; n < 5; n++) {
      iteration();
      advance(1);
    }
    expect(p.jobsPerIteration).toBe(16);
    const started: number[] = [];
    for (let n = 0; n < 6; n++) {
      const before = p.waiting;
      advance(10);
      iteration();
      started.push(before - p.waiting);
    }
    expect(started).toEqual([8, 4, 2, 1, 1, 1]);
  });

  it("goes back to one job per iteration when a connection is accepted", () => {
    const { p, iteration, advance } = steppedPacer();
    const ran: number[] = [];
    for (let i = 0; i < 100; i++) p.run(() => ran.push(i));
    for (let n = 0; n < 5; n++) {
      iteration();
      advance(1);
    }
    expect(p.jobsPerIteration).toBe(16);
    p.noteConnection();
    const before = ran.length;
    iteration();
    expect(ran.length).toBe(before);
    expect(p.jobsPerIteration).toBe(1);
    advance(5);
    iteration();
    expect(ran.length).toBe(before + 1);
  });

  it("measures iterations only while turns follow each other: an idle queue starts again from where it was", () => {
    const { p, iteration, advance } = steppedPacer();
    p.run(() => undefined);
    iteration();
    expect(p.waiting).toBe(0);
    // Idle for a second: no turn ran, so that second is not an iteration.
    advance(1000);
    p.run(() => undefined);
    p.run(() => undefined);
    iteration();
    expect(p.jobsPerIteration).toBe(1);
    advance(1);
    iteration();
    expect(p.jobsPerIteration).toBe(2);
    expect(p.waiting).toBe(0);
  });

  it("starts no job in an iteration that accepted a connection, so waiting connections are taken first", () => {
    const { p, iteration, advance } = steppedPacer();
    const ran: string[] = [];
    p.run(() => ran.push("job"));
    for (let i = 0; i < 10; i++) {
      p.noteConnection();
      advance(1);
      iteration();
    }
    expect(ran).toEqual([]);
    iteration();
    expect(ran).toEqual(["job"]);
  });

  it("runs a job anyway once connections have kept it waiting for 50 ms", () => {
    const { p, iteration, advance } = steppedPacer();
    const ran: string[] = [];
    p.run(() => ran.push("job"));
    p.noteConnection();
    iteration();
    advance(60);
    p.noteConnection();
    iteration();
    expect(ran).toEqual(["job"]);
  });

  it("keeps the rest of an iteration's jobs after one of them throws", () => {
    const { p, iteration, advance } = steppedPacer();
    const ran: number[] = [];
    for (let i = 0; i < 3; i++) p.run(() => ran.push(i));
    iteration();
    advance(1);
    iteration();
    // Two per iteration: the one that throws and the next, which must not be lost with it.
    expect(p.jobsPerIteration).toBe(2);
    p.run(() => {
      throw new Error("job failed");
    });
    for (let i = 3; i < 6; i++) p.run(() => ran.push(i));
    advance(1);
    expect(() => iteration()).toThrow("job failed");
    expect(p.waiting).toBe(3);
    advance(1);
    iteration();
    expect(ran).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("keeps going after a job that throws", () => {
    const { p, iteration, pending } = steppedPacer();
    const ran: string[] = [];
    p.run(() => {
      throw new Error("job failed");
    });
    p.run(() => ran.push("next"));
    expect(() => iteration()).toThrow("job failed");
    expect(pending()).toBe(1);
    iteration();
    expect(ran).toEqual(["next"]);
  });

  it("expires a job that waited past its expiry instead of starting it, without taking a started job's place", () => {
    const { p, iteration, advance } = steppedPacer();
    const ran: string[] = [];
    const expired: string[] = [];
    p.run(() => ran.push("a"), { maxWaitMs: 100, expire: () => expired.push("a") });
    p.run(() => ran.push("b"), { maxWaitMs: 100, expire: () => expired.push("b") });
    p.run(() => ran.push("c"));
    p.run(() => ran.push("d"), { maxWaitMs: 500, expire: () => expired.push("d") });
    advance(101);
    iteration();
    expect(expired).toEqual(["a", "b"]);
    expect(ran).toEqual(["c"]);
    advance(10);
    iteration();
    expect(ran).toEqual(["c", "d"]);
    expect(expired).toEqual(["a", "b"]);
    expect(p.waiting).toBe(0);
  });

  it("expires overdue jobs in an iteration that accepted a connection, and starts none there", () => {
    const { p, iteration, advance } = steppedPacer();
    const ran: string[] = [];
    const expired: string[] = [];
    p.run(() => ran.push("old"), { maxWaitMs: 100, expire: () => expired.push("old") });
    advance(50);
    p.run(() => ran.push("young"), { maxWaitMs: 100, expire: () => expired.push("young") });
    advance(60);
    p.noteConnection();
    iteration();
    expect(expired).toEqual(["old"]);
    expect(ran).toEqual([]);
    iteration();
    expect(ran).toEqual(["young"]);
  });

  it("keeps going after a refusal that throws", () => {
    const { p, iteration, advance, pending } = steppedPacer();
    const ran: string[] = [];
    p.run(() => ran.push("expired"), {
      maxWaitMs: 10,
      expire: () => {
        throw new Error("refusal failed");
      },
    });
    p.run(() => ran.push("next"));
    advance(20);
    expect(() => iteration()).toThrow("refusal failed");
    expect(pending()).toBe(1);
    iteration();
    expect(ran).toEqual(["next"]);
  });
});

describe("admission with requests that wait on the shared store", () => {
  it("runs the next request while the first waits, and finishes both within the bounds", async () => {
    const { admission } = admissionWith({ public: { inFlight: 1, queue: 4, maxWaitMs: 1000 } });
    const answers: ((answer: string) => void)[] = [];
    const stores = [0, 1].map(() => ({ promise: new Promise<string>((resolve) => answers.push(resolve)) }));
    const log: string[] = [];
    const requests = ["/ask?query=a", "/ask?query=b"].map((url, i) => {
      const x = exchange(url);
      admission.admit(x.req, x.res, { workClass: "public", caller: `caller-${i}` }, () => {
        log.push(`start ${i}`);
        void offSlot(stores[i]!.promise).then((answer) => {
          log.push(`${answer} ${i}`);
          x.finish();
        });
      });
      return x;
    });
    // Without the slot given back, the second would wait in the queue until the first is answered.
    expect(log).toEqual(["start 0", "start 1"]);
    expect(admission.state().public).toEqual({ inFlight: 0, queued: 0 });
    answers[1]!("counted");
    answers[0]!("counted");
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(["start 0", "start 1", "counted 1", "counted 0"]);
    expect(admission.state().public).toEqual({ inFlight: 0, queued: 0 });
    expect(requests.length).toBe(2);
  });
});
