// The body limits of the two signed-in forms, here (below the modules that handle them) so that the route table
// (lib/routes) and server.ts can name them without loading the forms' session code.

/** POST /agent/authorize/decision: the decision, the attempt token, the code and the form token. */
export const DECISION_FORM_LIMIT_BYTES = 4096;
/** POST /account/revoke: a delegation id and a form token. */
export const REVOKE_FORM_LIMIT_BYTES = 2048;
/** POST /account/settings: two checkboxes and a form token (issue 53). */
export const SETTINGS_FORM_LIMIT_BYTES = 2048;
