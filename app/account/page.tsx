import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getMemberSession } from "@/lib/auth/options";

export const metadata: Metadata = { title: "Your account" };

export default async function AccountPage() {
  const member = await getMemberSession();
  if (!member) redirect("/login?callbackUrl=%2Faccount");
  return (
    <>
      <h1>Your account</h1>
      <p>
        Signed in as <strong>{member.name}</strong> ({member.email}).
      </p>
    </>
  );
}
