"use client";
// Draws the map with an inline SVG (equirectangular grid, one dot per member) and an accessible list
// with a filter box. Its data comes from /api/map/search, fetched by this page (same-origin), 50 members a
// page: the first when the page opens, the next when the reader asks ("Show more members").
import Link from "next/link";
import { useEffect, useMemo, useState } from "react";
import type { MapMember } from "@/lib/map";

const WIDTH = 720;
const HEIGHT = 360;

function project(latitude: number, longitude: number): { x: number; y: number } {
  return { x: ((longitude + 180) / 360) * WIDTH, y: ((90 - latitude) / 180) * HEIGHT };
}

function place(member: MapMember): string {
  return [member.city, member.country].filter(Boolean).join(", ");
}

type LoadState = { kind: "loading" } | { kind: "ready"; members: MapMember[]; nextCursor: string | null; more: "idle" | "loading" | "failed" | "wait" } | { kind: "failed" };

type Page = { ok: true; members: MapMember[]; nextCursor: string | null } | { ok: false; rateLimited: boolean };

/** One page of /api/map/search (50 members; the server limits pages per minute). */
async function fetchPage(cursor: string | null): Promise<Page> {
  const query = cursor === null ? "" : `?cursor=${encodeURIComponent(cursor)}`;
  try {
    const res = await fetch(`/api/map/search${query}`, { headers: { Accept: "application/json" }, credentials: "same-origin" });
    if (!res.ok) return { ok: false, rateLimited: res.status === 429 };
    const body = (await res.json()) as { members: MapMember[]; next_cursor: string | null };
    return { ok: true, members: body.members, nextCursor: body.next_cursor };
  } catch {
    return { ok: false, rateLimited: false };
  }
}

export function MemberMap() {
  const [state, setState] = useState<LoadState>({ kind: "loading" });
  const [filter, setFilter] = useState("");

  useEffect(() => {
    let cancelled = false;
    void fetchPage(null).then((page) => {
      if (cancelled) return;
      setState(page.ok ? { kind: "ready", members: page.members, nextCursor: page.nextCursor, more: "idle" } : { kind: "failed" });
    });
    return () => {
      cancelled = true;
    };
  }, []);

  // Further pages only when the reader asks for them.
  const loadMore = async () => {
    if (state.kind !== "ready" || state.nextCursor === null || state.more === "loading") return;
    const loaded = state;
    setState({ ...loaded, more: "loading" });
    const page = await fetchPage(loaded.nextCursor);
    setState(
      page.ok
        ? { kind: "ready", members: [...loaded.members, ...page.members], nextCursor: page.nextCursor, more: "idle" }
        : { ...loaded, more: page.rateLimited ? "wait" : "failed" },
    );
  };

  const members = useMemo(() => (state.kind === "ready" ? state.members : []), [state]);
  const shown = useMemo(() => {
    const needle = filter.trim().toLocaleLowerCase();
    if (!needle) return members;
    return members.filter((m) => `${m.display_name} ${place(m)}`.toLocaleLowerCase().includes(needle));
  }, [members, filter]);

  const meridians = [-150, -120, -90, -60, -30, 0, 30, 60, 90, 120, 150];
  const parallels = [-60, -30, 0, 30, 60];

  return (
    <section className="card">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby="map-title" className="member-map" data-testid="member-map">
        <title id="map-title">{`World grid with ${shown.length} member location${shown.length === 1 ? "" : "s"}`}</title>
        <rect x="0" y="0" width={WIDTH} height={HEIGHT} fill="#eef3fb" stroke="#c9d8f0" />
        {meridians.map((lon) => {
          const { x } = project(0, lon);
          return <line key={`m${lon}`} x1={x} y1={0} x2={x} y2={HEIGHT} stroke={lon === 0 ? "#9fb6da" : "#d3deef"} strokeWidth={1} />;
        })}
        {parallels.map((lat) => {
          const { y } = project(lat, 0);
          return <line key={`p${lat}`} x1={0} y1={y} x2={WIDTH} y2={y} stroke={lat === 0 ? "#9fb6da" : "#d3deef"} strokeWidth={1} />;
        })}
        {shown.map((m) => {
          const { x, y } = project(m.latitude, m.longitude);
          return (
            <circle key={m.slug} cx={x} cy={y} r={5} fill="#1f5fbf" stroke="#fff" strokeWidth={1.5} data-testid="map-dot" data-slug={m.slug}>
              <title>{`${m.display_name}, ${place(m)}`}</title>
            </circle>
          );
        })}
      </svg>

      <label htmlFor="map-filter">Filter by name or place</label>
      <input id="map-filter" type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="e.g. London" autoComplete="off" />

      {state.kind === "loading" && <p className="muted">Loading member locations…</p>}
      {state.kind === "failed" && <p className="error">The member locations could not be loaded. Reload the page to try again.</p>}
      {state.kind === "ready" && (
        <>
          <p className="muted" aria-live="polite">
            {shown.length === members.length ? `${members.length} members with a location` : `${shown.length} of ${members.length} members match`}
            {state.nextCursor !== null ? " (more to load)." : "."}
          </p>
          <ul aria-label="Member locations" className="map-list">
            {shown.map((m) => (
              <li key={m.slug} data-testid="map-entry">
                <Link href={`/members/${m.slug}`}>{m.display_name}</Link> <span className="muted">· {place(m)}</span>
              </li>
            ))}
          </ul>
          {state.nextCursor !== null && (
            <p>
              <button type="button" onClick={() => void loadMore()} disabled={state.more === "loading"}>
                {state.more === "loading" ? "Loading more members…" : "Show more members"}
              </button>
            </p>
          )}
          {state.more === "failed" && <p className="error">More members could not be loaded. Try again.</p>}
          {state.more === "wait" && <p className="error">Too many pages in a short time: wait a minute, then try again.</p>}
        </>
      )}
    </section>
  );
}
