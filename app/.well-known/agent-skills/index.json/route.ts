import { discoveryJson, headOf } from "@/lib/discovery/respond";
import { skillsIndex } from "@/lib/discovery/skills";
import { route, refuseOtherMethods } from "@/lib/http/route";

export const GET = route(() => discoveryJson(skillsIndex()));
export const HEAD = route(() => headOf(discoveryJson(skillsIndex())));
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
