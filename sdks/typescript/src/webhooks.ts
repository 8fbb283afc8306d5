// Webhooks: Standard Webhooks signatures (the `standardwebhooks` package), typed events.
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import type { components } from "./generated/openapi.js";

export type WebhookEvent = components["schemas"]["WebhookEvent"];
export type WebhookEventType = WebhookEvent["type"];
export type WebhookEventData = components["schemas"]["WebhookEventData"];
export { WebhookVerificationError };

/** Verifies a delivery (`webhook-id`, `webhook-timestamp`, `webhook-signature`; the timestamp within
 * 5 minutes) made with `secret` (`whsec_...`) over the RAW body, and returns its event. Throws
 * WebhookVerificationError for a bad signature, an old timestamp or a tampered body. */
export function verifyWebhook(
  secret: string,
  headers: Headers | Record<string, string | string[] | undefined>,
  body: string | Uint8Array,
): WebhookEvent {
  const flat: Record<string, string> = {};
  if (headers instanceof Headers) headers.forEach((value, name) => (flat[name.toLowerCase()] = value));
  else for (const [name, value] of Object.entries(headers)) if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  const payload = typeof body === "string" ? body : Buffer.from(body).toString("utf8");
  return new Webhook(secret).verify(payload, flat) as WebhookEvent;
}

export function isTransactionEvent(event: WebhookEvent): event is WebhookEvent & { type: `transaction.${string}` } {
  return event.type.startsWith("transaction.");
}
