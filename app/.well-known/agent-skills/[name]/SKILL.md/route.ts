import { discoveryText } from "@/lib/discovery/respond";
import { findSkill } from "@/lib/discovery/skills";
import { notFoundReply } from "@/lib/http/errors";
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";

export const GET = apiRoute<{ name: string }>((_request, { name }) => {
  const skill = findSkill(name);
  return skill ? discoveryText(skill.body, "text/markdown; charset=utf-8") : notFoundReply("No such skill.");
});
export const HEAD = GET;
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
