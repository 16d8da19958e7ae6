// Issue 43: the start builds and checks the configuration once and installs it (getConfig() then returns that very
// object); next-auth's NEXTAUTH_URL is set then, from BASE_URL, and no request writes process.env again.
import { describe, expect, it } from "vitest";
import { getConfig } from "@/lib/config";
import { getAuthOptions } from "@/lib/auth/options";
import { refuseUnsafeStart } from "@/lib/startup";

describe("the configuration at start", () => {
  it("building next-auth's options (each sign-in request and session read does) leaves process.env as it was", async () => {
    const before = { ...process.env };
    await getAuthOptions();
    await getAuthOptions();
    expect({ ...process.env }).toEqual(before);
  });

  it("is the one the start checked: installed for getConfig(), with NEXTAUTH_URL set from BASE_URL once", async () => {
    const checked = await refuseUnsafeStart({ env: { DATABASE_URL: getConfig().databaseUrl, BASE_URL: "https://gate.example.com", PORT: "3110", HOSTNAME: "127.0.0.1" } });
    expect(getConfig()).toBe(checked);
    expect(checked).toMatchObject({ baseUrl: "https://gate.example.com", port: 3110, hostname: "127.0.0.1" });
    expect(process.env.NEXTAUTH_URL).toBe("https://gate.example.com");
    const options = await getAuthOptions();
    expect(options.useSecureCookies).toBe(true);
    expect(await options.callbacks!.redirect!({ url: "/account", baseUrl: "ignored" })).toBe("https://gate.example.com/account");
  });
});
