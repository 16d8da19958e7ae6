import { PHISHING_WARNING } from "@/lib/delegations/wording";

/** Issue 53: shown on the approval page and on the sign-in page a verification link leads to. */
export function PhishingWarning() {
  return (
    <p className="warning phishing-warning" data-testid="phishing-warning">
      {PHISHING_WARNING}
    </p>
  );
}
