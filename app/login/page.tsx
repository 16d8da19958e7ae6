import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getConfig } from "@/lib/config";
import { getMemberSession } from "@/lib/auth/options";
import { safeReturnPath } from "@/lib/auth/return-path";
import { AUTHORIZE_PATH } from "@/lib/approval";
import { PhishingWarning } from "@/app/components/phishing-warning";
import { LoginForm } from "./login-form";

export const metadata: Metadata = { title: "Sign in" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function LoginPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const raw = params.callbackUrl ?? params.next;
  const returnTo = safeReturnPath(typeof raw === "string" ? raw : undefined, getConfig().baseUrl);
  if (await getMemberSession()) redirect(returnTo);
  return (
    <div className="card narrow">
      <h1>Sign in</h1>
      <p className="muted">Members sign in with the e-mail address and password of their community account.</p>
      {/* Reached from an approval link (issue 53): warn before the member signs in to approve something. */}
      {returnTo.split("?")[0] === AUTHORIZE_PATH ? <PhishingWarning /> : null}
      <LoginForm returnTo={returnTo} />
    </div>
  );
}
