// Signed webhooks for delegation events (content/docs/webhooks.md): the outbox writes (./emit.ts), the
// delivery pass and loop (./delivery.ts), the operator's commands (./admin.ts) and the event catalogue
// (./schemas.ts). The tables are written only by ./stores/*.
export { addEndpoint, listEndpointsWithStats, parseEventFilter, removeEndpoint, rotateEndpointSecret, ROTATION_OVERLAP_SECONDS, WebhookInputError } from "./admin";
export { checkWebhookUrl, WebhookAddressError } from "./address";
export { runDeliveryPass, startWebhookDelivery, stopWebhookDelivery, sweepLapsedClaims, fanOutEvents, webhookIdFor, type PassSummary } from "./delivery";
export {
  enqueueEvent,
  webhookDelegationApproved,
  webhookDelegationCancelled,
  webhookDelegationDenied,
  webhookDelegationExpired,
  webhookDelegationRequested,
  webhookTokenRevoked,
} from "./emit";
export { webhookJsonSchema, webhookPayloadSchemas, WEBHOOK_EVENT_TYPES, type WebhookEventType } from "./schemas";
