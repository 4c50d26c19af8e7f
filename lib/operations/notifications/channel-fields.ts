import "server-only";
// The rules for a new alert channel, one zod schema per kind; a failed rule is a bad_request whose
// message the Settings form shows next to the button.
import { z } from "zod";

const httpUrl = (what: string) =>
  z
    .string()
    .trim()
    .min(1, `enter the ${what}`)
    .max(2_000, `the ${what} is too long`)
    .pipe(z.url({ protocol: /^https?$/, error: `the ${what} must be an http(s):// URL` }));

const name = z.string().trim().min(1, "give the channel a name").max(100, "the name must be at most 100 characters");

const recipients = z
  .string()
  .trim()
  .min(1, "enter at least one recipient")
  .max(1_000, "too many recipients")
  .transform((value) => value.split(/[\s,;]+/).filter(Boolean))
  .pipe(
    z
      .array(z.email("every recipient must be an email address"))
      .min(1, "enter at least one recipient")
      .max(20, "at most 20 recipients"),
  )
  .transform((list) => list.join(", "));

// A checkbox: "on" when ticked, absent otherwise.
const receivesCheckpoints = z.preprocess((v) => v === "on" || v === true || v === "true", z.boolean());

export const channelInputSchema = z.discriminatedUnion(
  "kind",
  [
    z.object({ kind: z.literal("slack"), name, target: httpUrl("incoming webhook URL"), receivesCheckpoints }),
    z.object({ kind: z.literal("webhook"), name, target: httpUrl("webhook URL"), receivesCheckpoints }),
    // Every audit entry, in order, to a SIEM's intake (lib/operations/audit/stream-audit-log.ts).
    z.object({ kind: z.literal("audit_stream"), name, target: httpUrl("receiver URL") }),
    z.object({
      kind: z.literal("email"),
      name,
      receivesCheckpoints,
      target: recipients,
      smtpUrl: z
        .string()
        .trim()
        .min(1, "enter the SMTP relay as smtp://user:password@host:port")
        .max(2_000, "the SMTP URL is too long")
        .pipe(z.url({ protocol: /^smtps?$/, error: "the SMTP relay must be an smtp:// or smtps:// URL" })),
      fromAddress: z.string().trim().pipe(z.email("the sender must be an email address")),
    }),
  ],
  { error: "choose Slack, JSON webhook, email or audit stream" },
);

export type ChannelInput = z.infer<typeof channelInputSchema>;
/** The kinds that hear of alerts (an audit stream receives the audit log instead). */
export const ALERT_CHANNEL_KINDS = ["slack", "webhook", "email"] as const;
