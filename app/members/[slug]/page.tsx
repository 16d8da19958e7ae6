import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { findPublicProfile } from "@/lib/members/profile";

type Props = { params: Promise<{ slug: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const profile = await findPublicProfile((await params).slug);
  return { title: profile ? profile.displayName : "Member not found" };
}

export default async function MemberProfilePage({ params }: Props) {
  const profile = await findPublicProfile((await params).slug);
  if (!profile) notFound();
  const since = new Intl.DateTimeFormat("en", { month: "long", year: "numeric", timeZone: "UTC" }).format(profile.joinedAt);
  const place = [profile.city, profile.country].filter(Boolean).join(", ");
  return (
    <article className="card narrow">
      <h1>{profile.displayName}</h1>
      <p>
        Member since <time dateTime={profile.joinedAt.toISOString().slice(0, 7)}>{since}</time>
      </p>
      {place && <p>Lives in {place}</p>}
    </article>
  );
}
