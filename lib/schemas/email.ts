import { z } from "zod";

/** A member's e-mail address as typed (at most 254 characters); lib/members/normalize.ts normalises it for lookups. */
export const emailSchema = z
  .string()
  .max(254, "An e-mail address has at most 254 characters.")
  .refine((v) => z.email().safeParse(v.trim()).success, "Not a valid e-mail address.");
