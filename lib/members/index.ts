// Members: adding one (the member:add command, the demo seed) and finding one for sign-in. Rows live in the
// Member store (./store.ts).
import { z } from "zod";
import { isUniqueViolation } from "@/lib/db";
import { emailSchema } from "@/lib/schemas/email";
import { displayNameKey, normalizeEmail, slugify } from "./normalize";
import { hashPassword } from "./passwords";
import { findMemberByEmail as findByNormalizedEmail, findMemberById, insertMember, slugTaken, type MemberRow } from "./store";

export type { MemberRow } from "./store";
export { findMemberById };

export const newMemberSchema = z.object({
  email: emailSchema,
  password: z.string().min(8, "The password needs at least 8 characters.").max(200, "The password has at most 200 characters."),
  displayName: z
    .string()
    .trim()
    .min(1, "The display name cannot be empty.")
    .max(80, "The display name has at most 80 characters.")
    .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), "The display name cannot contain control characters."),
  publicProfile: z.boolean().default(true),
  joinedAt: z.date().optional(),
  city: z.string().max(80).optional(),
  country: z.string().max(80).optional(),
  latitude: z.number().min(-90).max(90).optional(),
  longitude: z.number().min(-180).max(180).optional(),
  slug: z
    .string()
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/)
    .max(60)
    .optional(),
});
export type NewMember = z.input<typeof newMemberSchema>;

export class DuplicateMemberError extends Error {
  constructor() {
    super("A member with this e-mail address already exists.");
    this.name = "DuplicateMemberError";
  }
}

async function freeSlug(base: string): Promise<string> {
  for (let n = 1; n < 1000; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (!(await slugTaken(candidate))) return candidate;
  }
  throw new Error("No free slug");
}

/** Creates a member; throws ZodError for bad input and DuplicateMemberError for a taken e-mail. */
export async function createMember(input: NewMember): Promise<MemberRow> {
  const data = newMemberSchema.parse(input);
  const email = normalizeEmail(data.email);
  if (await findByNormalizedEmail(email)) throw new DuplicateMemberError();
  const displayName = data.displayName.normalize("NFC");
  try {
    return await insertMember({
      email,
      emailVerified: true,
      passwordHash: await hashPassword(data.password),
      displayName,
      displayNameKey: displayNameKey(displayName),
      slug: data.slug ?? (await freeSlug(slugify(displayName))),
      publicProfile: data.publicProfile,
      joinedAt: data.joinedAt ?? new Date(),
      city: data.city ?? null,
      country: data.country ?? null,
      latitude: data.latitude ?? null,
      longitude: data.longitude ?? null,
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new DuplicateMemberError();
    throw error;
  }
}

export function findMemberByEmail(email: string): Promise<MemberRow | null> {
  return findByNormalizedEmail(normalizeEmail(email));
}
