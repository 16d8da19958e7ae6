"use client";

import { signOut } from "next-auth/react";

/** `callbackUrl` is a same-origin path to open after signing out (default: the home page). */
export function SignOutButton({ callbackUrl = "/" }: { callbackUrl?: string }) {
  return (
    <button type="button" className="secondary" onClick={() => void signOut({ callbackUrl })}>
      Sign out
    </button>
  );
}
