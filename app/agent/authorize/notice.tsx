// The approval flow's end states: a titled card whose only way on is the member's account page.
import Link from "next/link";

export function Notice({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div className="card narrow approval">
      <h1>{title}</h1>
      {children}
      <p className="actions">
        <Link href="/account" className="button secondary">
          Go to your account
        </Link>
      </p>
    </div>
  );
}
