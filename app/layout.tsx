import type { Metadata, Viewport } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { getMemberSession } from "@/lib/auth/options";
import { SignOutButton } from "./components/sign-out-button";
import "./globals.css";

// Every page reads configuration and the session at request time.
export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: { default: "Agent Gate", template: "%s · Agent Gate" },
  description: "Delegated, read-only own-account access and public-read surfaces for agents of the community.",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

export default async function RootLayout({ children }: { children: ReactNode }) {
  const member = await getMemberSession().catch(() => null);
  return (
    <html lang="en">
      <body>
        <header className="site">
          <nav aria-label="Main">
            <Link href="/" className="brand">
              Agent Gate
            </Link>
            <Link href="/docs">Docs</Link>
            <Link href="/map">Map</Link>
            <Link href="/account">Account</Link>
            {member ? <SignOutButton /> : <Link href="/login">Sign in</Link>}
          </nav>
        </header>
        <main>{children}</main>
        <footer className="site">Agent Gate: read-only access for agents, approved by the member, revocable at any time.</footer>
      </body>
    </html>
  );
}
