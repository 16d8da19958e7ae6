import { discoveryJson } from "@/lib/discovery/respond";
import { skillsIndex } from "@/lib/discovery/skills";
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";

export const GET = apiRoute(() => discoveryJson(skillsIndex()));
export const HEAD = GET;
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
