import type { Metadata } from "next";
import { Notice } from "../notice";

export const metadata: Metadata = { title: "Decision recorded", robots: { index: false, follow: false } };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

const RESULTS = {
  approved: {
    title: "Access approved",
    body: "You can return to your agent now: it receives read-only access the next time it checks. You can revoke this access at any time on your account page.",
  },
  denied: { title: "Access denied", body: "The agent did not get access to your account. You can close this page." },
  locked: {
    title: "Request closed",
    body: "The code was typed wrongly five times, so this request was closed as denied and the agent did not get access. If it was yours, ask your agent to start again.",
  },
  reported: {
    title: "Thank you: request denied and reported",
    body: "The agent did not get access, and the operator of this service was told that you did not start this request. Nothing else is needed from you. If someone sent you the link, do not open links from them again.",
  },
} as const;

export default async function DecisionDonePage({ searchParams }: { searchParams: SearchParams }) {
  const { result } = await searchParams;
  const content = typeof result === "string" && Object.hasOwn(RESULTS, result) ? RESULTS[result as keyof typeof RESULTS] : null;
  return (
    <Notice title={content?.title ?? "Nothing to show"}>
      <p>{content?.body ?? "There is no decision to show here."}</p>
    </Notice>
  );
}
