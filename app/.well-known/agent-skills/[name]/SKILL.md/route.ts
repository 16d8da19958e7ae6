import { discoveryText, headOf } from "@/lib/discovery/respond";
import { findSkill } from "@/lib/discovery/skills";
import { notFound } from "@/lib/http/errors";
import { route, refuseOtherMethods } from "@/lib/http/route";

type Params = { name: string };

const serve = async (context: { params: Promise<Params> }): Promise<Response> => {
  const skill = findSkill((await context.params).name);
  return skill ? discoveryText(skill.body, "text/markdown; charset=utf-8") : notFound("No such skill.");
};

export const GET = route<Params>((_request, context) => serve(context));
export const HEAD = route<Params>((_request, context) => headOf(serve(context)));
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
