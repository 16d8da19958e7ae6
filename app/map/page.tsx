import type { Metadata } from "next";
import { MemberMap } from "./member-map";

export const metadata: Metadata = { title: "Member map" };

export default function MapPage() {
  return (
    <>
      <h1>Member map</h1>
      <p className="muted">Members who chose a public profile and shared their city. Nothing here is loaded from another site.</p>
      <MemberMap />
    </>
  );
}
