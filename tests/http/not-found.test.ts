import { describe, expect, inject, it } from "vitest";

const base = inject("baseUrl");

describe("JSON 404 on unknown API and discovery paths", () => {
  for (const path of ["/api/nope", "/api/v1/unknown/thing", "/.well-known/unknown", "/.well-known/openid-configuration-typo"]) {
    for (const method of ["GET", "POST", "DELETE"]) {
      it(`${method} ${path}`, async () => {
        const res = await fetch(`${base}${path}`, { method });
        expect(res.status).toBe(404);
        expect(res.headers.get("content-type")).toBe("application/json");
        expect(await res.json()).toEqual({ error: "not_found", error_description: expect.any(String) });
      });
    }
  }
});
