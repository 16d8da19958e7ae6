import { handleSettingsPost } from "@/lib/consent/settings-form";
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";

export const POST = apiRoute((request) => handleSettingsPost(request));
export const { GET, PUT, PATCH, DELETE } = refuseOtherMethods(["POST"]);
