// Local demo data: loaded by the start command when the database is empty; listed in the README (Demo logins).
export const DEMO_PASSWORD = "demo-password";

export const DEMO_MEMBERS = [
  {
    email: "ada@example.com",
    displayName: "Ada Lovelace",
    slug: "ada-lovelace",
    publicProfile: true,
    joinedAt: "2023-03-14",
    city: "London",
    country: "United Kingdom",
    latitude: 51.5072,
    longitude: -0.1276,
  },
  {
    email: "grace@example.com",
    displayName: "Grace Hopper",
    slug: "grace-hopper",
    publicProfile: true,
    joinedAt: "2023-09-02",
    city: "New York",
    country: "United States",
    latitude: 40.7128,
    longitude: -74.006,
  },
  {
    email: "alan@example.com",
    displayName: "Alan Turing",
    slug: "alan-turing",
    publicProfile: true,
    joinedAt: "2024-01-20",
    city: "Manchester",
    country: "United Kingdom",
    latitude: 53.4808,
    longitude: -2.2426,
  },
  {
    email: "katherine@example.com",
    displayName: "Katherine Johnson",
    slug: "katherine-johnson",
    publicProfile: true,
    joinedAt: "2024-06-11",
    city: "Hampton",
    country: "United States",
    latitude: 37.0299,
    longitude: -76.3452,
  },
  {
    email: "edsger@example.com",
    displayName: "Edsger Dijkstra",
    slug: "edsger-dijkstra",
    publicProfile: true,
    joinedAt: "2024-11-05",
    city: "Eindhoven",
    country: "Netherlands",
    latitude: 51.4416,
    longitude: 5.4697,
  },
  {
    email: "sofia@example.com",
    displayName: "Sofía Ramírez",
    slug: "sofia-ramirez",
    publicProfile: true,
    joinedAt: "2025-02-18",
    city: "Madrid",
    country: "Spain",
    latitude: 40.4168,
    longitude: -3.7038,
  },
  {
    email: "private@example.com",
    displayName: "Pat Private",
    slug: "pat-private",
    publicProfile: false,
    joinedAt: "2025-05-01",
    city: undefined,
    country: undefined,
    latitude: undefined,
    longitude: undefined,
  },
] as const;

/** AG-2024-0099 is revoked: verify_certificate answers not_found for it, exactly as for an unknown id (CONTRACT.md §9). */
export const DEMO_CERTIFICATES = [
  { id: "AG-2025-0001", holderEmail: "ada@example.com", title: "Community Mentor", issuedAt: "2025-04-01T10:00:00.000Z", revoked: false },
  { id: "AG-2025-0002", holderEmail: "grace@example.com", title: "Workshop Leader", issuedAt: "2025-06-15T09:30:00.000Z", revoked: false },
  { id: "AG-2025-0003", holderEmail: "alan@example.com", title: "Community Mentor", issuedAt: "2025-08-20T14:00:00.000Z", revoked: false },
  { id: "AG-2024-0099", holderEmail: "edsger@example.com", title: "Workshop Leader", issuedAt: "2024-12-01T12:00:00.000Z", revoked: true },
] as const;

export const DEMO_AGENT_NAMES = [
  { agentName: "Ada's Research Helper", description: "Summarises community events for Ada.", reference: "pre_demo_research_helper" },
  { agentName: "Calendar Scout", description: "Looks up public community calendars.", reference: "pre_demo_calendar_scout" },
] as const;
