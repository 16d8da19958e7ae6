// The four community tools' handlers on a demo-seeded throwaway database.
import { describe, expect, it } from "vitest";
import { ManualClock } from "@/lib/clock";
import { getDb } from "@/lib/db/prisma";
import { COMMUNITY_TOOLS, findTool, runTool, ToolError, ToolInputError } from "@/lib/tools";
import { getCommunityStats, STATS_CACHE_SECONDS } from "@/lib/tools/community-stats";
import { lookupMember } from "@/lib/tools/lookup-member";
import { registerAgentName } from "@/lib/tools/register-agent";
import { verifyCertificate } from "@/lib/tools/verify-certificate";
import { createMember } from "@/lib/members";
import { sqlRunDuring } from "../../support/sql-trace";

const SOFIA = {
  found: true,
  member: { display_name: "Sofía Ramírez", slug: "sofia-ramirez", member_since: "2025-02", profile_url: "http://localhost:3000/members/sofia-ramirez" },
};

describe("tool registry", () => {
  it("has exactly the four tools, each with schemas, annotations and an agent-facing description", () => {
    expect(COMMUNITY_TOOLS.map((t) => t.name)).toEqual(["lookup_member", "get_community_stats", "register_agent", "verify_certificate"]);
    for (const tool of COMMUNITY_TOOLS) {
      expect(tool.description.length).toBeGreaterThan(120);
      expect(tool.examples.length).toBeGreaterThan(0);
      expect(tool.annotations.openWorldHint).toBe(false);
      expect(tool.annotations.destructiveHint).toBe(false);
    }
    expect(findTool("register_agent")?.annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    for (const name of ["lookup_member", "get_community_stats", "verify_certificate"]) expect(findTool(name)?.annotations.readOnlyHint).toBe(true);
    expect(findTool("register_agent")?.description).toMatch(/only after the user explicitly authorized/i);
  });
});

describe("lookup_member", () => {
  it("finds a member by exact display name, ignoring case, surrounding spaces and Unicode composition", async () => {
    expect(await lookupMember("Sofía Ramírez")).toEqual(SOFIA);
    expect(await lookupMember("SOFÍA RAMÍREZ")).toEqual(SOFIA);
    expect(await lookupMember("  sofía ramírez  ")).toEqual(SOFIA);
    expect(await lookupMember("Sofi\u0301a Rami\u0301rez")).toEqual(SOFIA);
  });

  it("finds a member by exact slug", async () => {
    expect(await lookupMember("sofia-ramirez")).toEqual(SOFIA);
    expect(await lookupMember("ada-lovelace")).toMatchObject({ found: true, member: { display_name: "Ada Lovelace", member_since: "2023-03" } });
  });

  it("never matches prefixes, wildcards, partial or accent-stripped names", async () => {
    for (const query of ["Ada", "ada*", "Ada%", "%", "*", "Ada Lovelac", "Lovelace", "Sofia Ramirez", "ada-love", "ada_lovelace"]) {
      expect(await lookupMember(query), query).toEqual({ found: false });
    }
  });

  it("never finds members without a public profile, nor anyone by e-mail", async () => {
    expect(await lookupMember("Pat Private")).toEqual({ found: false });
    expect(await lookupMember("pat-private")).toEqual({ found: false });
    expect(await lookupMember("private@example.com")).toEqual({ found: false });
    expect(await lookupMember("ada@example.com")).toEqual({ found: false });
  });

  it("returns exactly the contract's fields", async () => {
    const result = await lookupMember("Grace Hopper");
    expect(Object.keys(result).sort()).toEqual(["found", "member"]);
    expect(Object.keys(result.member ?? {}).sort()).toEqual(["display_name", "member_since", "profile_url", "slug"]);
  });

  it("refuses input outside its schema", async () => {
    const tool = findTool("lookup_member")!;
    const context = { clock: new ManualClock(), clientIp: "1.1.1.1" };
    await expect(runTool(tool, {}, context)).rejects.toBeInstanceOf(ToolInputError);
    await expect(runTool(tool, { name_or_slug: "" }, context)).rejects.toBeInstanceOf(ToolInputError);
    await expect(runTool(tool, { name_or_slug: "x".repeat(121) }, context)).rejects.toBeInstanceOf(ToolInputError);
    await expect(runTool(tool, { name_or_slug: "Ada Lovelace", limit: 5 }, context)).rejects.toBeInstanceOf(ToolInputError);
  });
});

describe("get_community_stats", () => {
  it("counts members and recomputes at most every 20 minutes, sharing the value through the database", async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
    const first = await getCommunityStats(clock);
    const total = await getDb().member.count();
    expect(first).toEqual({ member_count: total, as_of: "2026-01-01T12:00:00.000Z", cache_max_age_seconds: STATS_CACHE_SECONDS });
    expect(await getDb().cachedStat.findUnique({ where: { name: "member_count" } })).toMatchObject({ value: total });

    await createMember({ email: "newcomer@example.com", password: "long-enough-password", displayName: "New Comer" });
    clock.advance(STATS_CACHE_SECONDS - 1);
    expect(await getCommunityStats(clock)).toEqual(first);

    clock.advance(1);
    expect(await getCommunityStats(clock)).toEqual({ member_count: total + 1, as_of: "2026-01-01T12:20:00.000Z", cache_max_age_seconds: 1200 });
  });

  it("answers from the value it last saw while that is fresh, without asking the database", async () => {
    const clock = new ManualClock(Date.UTC(2026, 1, 1, 12, 0, 0));
    const first = await getCommunityStats(clock);
    clock.advance(STATS_CACHE_SECONDS - 1);
    const statements = await sqlRunDuring(async () => expect(await getCommunityStats(clock)).toEqual(first));
    expect(statements).toEqual([]);
    // Once it is stale the database is asked again (and the count recomputed).
    clock.advance(1);
    const later = await sqlRunDuring(() => getCommunityStats(clock));
    expect(later.some((sql) => sql.includes('"CachedStat"'))).toBe(true);
    // A clock moved back (before the value was computed) does not trust it either.
    clock.set(new Date(Date.UTC(2026, 1, 1, 11, 0, 0)));
    expect((await sqlRunDuring(() => getCommunityStats(clock))).length).toBeGreaterThan(0);
  });
});

describe("register_agent", () => {
  const clock = new ManualClock(Date.UTC(2026, 2, 1, 9, 0, 0));

  it("is refused unless user_authorized is true", async () => {
    const tool = findTool("register_agent")!;
    const context = { clock, clientIp: "10.0.0.1" };
    for (const input of [{ agent_name: "Helper" }, { agent_name: "Helper", user_authorized: false }, { agent_name: "Helper", user_authorized: "true" }]) {
      const error = await runTool(tool, input, context).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ToolInputError);
      expect((error as Error).message).toMatch(/user_authorized must be true/);
    }
    expect(await getDb().agentNamePreRegistration.findUnique({ where: { agentNameKey: "helper" } })).toBeNull();
  });

  it("follows the client_name rules", async () => {
    const tool = findTool("register_agent")!;
    const context = { clock, clientIp: "10.0.0.2" };
    for (const agent_name of ["", " padded", "padded ", "bad\u0007name", "x".repeat(121)]) {
      await expect(runTool(tool, { agent_name, user_authorized: true }, context)).rejects.toBeInstanceOf(ToolInputError);
    }
  });

  it("pre-registers once per normalized name and is idempotent", async () => {
    const first = await registerAgentName({ agent_name: "Trip Planner", description: "Plans trips.", user_authorized: true }, "10.0.0.3", clock);
    expect(first).toEqual({ agent_name: "Trip Planner", status: "pre_registered", binding: false, reference: expect.stringMatching(/^pre_/) });
    const again = await registerAgentName({ agent_name: "TRIP PLANNER", user_authorized: true }, "10.0.0.3", clock);
    expect(again).toEqual({ agent_name: "Trip Planner", status: "already_pre_registered", binding: false, reference: first.reference });
    const demo = await registerAgentName({ agent_name: "Calendar Scout", user_authorized: true }, "10.0.0.3", clock);
    expect(demo).toMatchObject({ status: "already_pre_registered", reference: "pre_demo_calendar_scout" });
  });

  it("allows 5 calls per client IP per hour", async () => {
    const ip = "10.0.0.4";
    for (let i = 0; i < 5; i++) await registerAgentName({ agent_name: `Limited ${i}`, user_authorized: true }, ip, clock);
    const refused = await registerAgentName({ agent_name: "Limited 5", user_authorized: true }, ip, clock).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ToolError);
    expect((refused as Error).message).toMatch(/rate limited/i);
    expect(await getDb().agentNamePreRegistration.findUnique({ where: { agentNameKey: "limited 5" } })).toBeNull();
    // Another IP is not affected; the same IP may go on after the hour.
    await expect(registerAgentName({ agent_name: "Limited 5", user_authorized: true }, "10.0.0.5", clock)).resolves.toMatchObject({ status: "pre_registered" });
    const later = new ManualClock(clock.now());
    later.advance(3600);
    await expect(registerAgentName({ agent_name: "Limited 6", user_authorized: true }, ip, later)).resolves.toMatchObject({ status: "pre_registered" });
  });
});

describe("verify_certificate", () => {
  it("reports issued certificates", async () => {
    expect(await verifyCertificate("AG-2025-0001")).toEqual({
      status: "issued",
      certificate: { id: "AG-2025-0001", holder_display_name: "Ada Lovelace", title: "Community Mentor", issued_at: "2025-04-01T10:00:00.000Z" },
    });
  });

  it("reports unknown and revoked certificates alike as not_found", async () => {
    expect(await verifyCertificate("AG-2024-0099")).toEqual({ status: "not_found" });
    expect(await verifyCertificate("AG-9999-0000")).toEqual({ status: "not_found" });
    expect(await verifyCertificate("AG-2025-%")).toEqual({ status: "not_found" });
  });

  it("reads live: a revocation shows on the next call", async () => {
    expect((await verifyCertificate("AG-2025-0002")).status).toBe("issued");
    await getDb().certificate.update({ where: { id: "AG-2025-0002" }, data: { revokedAt: new Date() } });
    expect(await verifyCertificate("AG-2025-0002")).toEqual({ status: "not_found" });
  });
});
