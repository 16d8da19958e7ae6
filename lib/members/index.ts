import { z } from "zod";
import { getDb } from "@/lib/db";
import { displayNameKey, emailSchema, normalizeEmail, slugify } from "./normalize";
import { hashPassword } from "./passwords";

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
  slug: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/).max(60).optional(),
});
export type NewMember = z.input<typeof newMemberSchema>;

export class DuplicateMemberError extends Error {
  constructor() {
    super("A member with this e-mail address already exists.");
    this.name = "DuplicateMemberError";
  }
}

async function freeSlug(base: string): Promise<string> {
  const db = getDb();
  for (let n = 1; n < 1000; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (!(await db.member.findUnique({ where: { slug: candidate }, select: { id: true } }))) return candidate;
  }
  throw new Error("No free slug");
}

/** Creates a member; throws ZodError for bad input and DuplicateMemberError for a taken e-mail. */
export async function createMember(input: NewMember) {
  const data = newMemberSchema.parse(input);
  const db = getDb();
  const email = normalizeEmail(data.email);
  if (await db.member.findUnique({ where: { email }, select: { id: true } })) throw new DuplicateMemberError();
  const displayName = data.displayName.normalize("NFC");
  try {
    return await db.member.create({
      data: {
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
      },
    });
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") throw new DuplicateMemberError();
    throw error;
  }
}

export function findMemberByEmail(email: string) {
  return getDb().member.findUnique({ where: { email: normalizeEmail(email) } });
}

export function findMemberById(id: string) {
  return getDb().member.findUnique({ where: { id } });
}
