/** CONTRACT.md §3: trimmed, Unicode NFC, lower-cased. Used for login hints, member e-mails and comparisons. */
export function normalizeEmail(email: string): string {
  return email.trim().normalize("NFC").toLowerCase();
}

/** Key for exact display-name lookup (CONTRACT.md §9): trimmed, NFC, case-insensitive. */
export function displayNameKey(name: string): string {
  return name.trim().normalize("NFC").toLowerCase();
}

/** A URL-safe slug from a display name. */
export function slugify(name: string): string {
  const base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);
  return base || "member";
}
