// verify_certificate: live issued / not_found check of a certificate id (CONTRACT.md §9). Read from the
// database on every call, never cached, so a revocation shows at once.
import { z } from "zod";
import { findCertificate } from "@/lib/certificates";
import { isoTimestamp } from "@/lib/schemas/service-auth";
import { text } from "@/lib/schemas/text";
import { defineTool } from "./types";

export const verifyCertificateInput = z.strictObject({
  certificate_id: text()
    .min(1, "certificate_id must not be empty.")
    .max(64, "certificate_id has at most 64 characters.")
    .describe('The certificate id printed on the certificate, e.g. "AG-2025-0001".'),
});

export const verifyCertificateOutput = z.object({
  status: z.enum(["issued", "not_found"]),
  certificate: z.object({ id: z.string(), holder_display_name: z.string(), title: z.string(), issued_at: isoTimestamp }).optional().describe("Present only when status is issued."),
});
export type VerifyCertificateOutput = z.infer<typeof verifyCertificateOutput>;

export async function verifyCertificate(certificateId: string): Promise<VerifyCertificateOutput> {
  // Ids are issued in upper case; accepting any case spares agents a pointless miss.
  const id = certificateId.trim().toUpperCase();
  if (id.length === 0) return { status: "not_found" };
  const certificate = await findCertificate(id);
  // A revoked certificate is reported exactly like an unknown one.
  if (!certificate || certificate.revokedAt) return { status: "not_found" };
  return {
    status: "issued",
    certificate: { id: certificate.id, holder_display_name: certificate.holderDisplayName, title: certificate.title, issued_at: certificate.issuedAt.toISOString() },
  };
}

export const verifyCertificateTool = defineTool({
  name: "verify_certificate",
  title: "Verify a certificate",
  description: [
    "Checks, live, whether a community certificate id is currently valid.",
    'Returns {"status": "issued", "certificate": {id, holder_display_name, title, issued_at}} for a valid certificate, or {"status": "not_found"} for an unknown or revoked one (the two are not told apart).',
    'It never lists certificates or searches by holder. Pass {"certificate_id": "<id, e.g. AG-2025-0001>"}. Read-only.',
  ].join(" "),
  inputSchema: verifyCertificateInput,
  outputSchema: verifyCertificateOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  tags: ["certificates", "verification", "read-only"],
  examples: [{ prompt: "Is certificate AG-2025-0001 valid?", input: { certificate_id: "AG-2025-0001" } }],
  handler: (input) => verifyCertificate(input.certificate_id),
});
