// Where the provider delivers (app/api/webhooks/keys/route.ts): the settings page shows it, the
// production server recognises refused requests to it (server/client-error-receipts.ts).
export const WEBHOOK_PATH = "/api/webhooks/keys";
