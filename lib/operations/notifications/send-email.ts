import "server-only";
// Email through the channel's SMTP relay (nodemailer). The idempotency key becomes the Message-ID,
// so a retry after a lost answer is the same message to the receiving side's deduplication.
import { createHash } from "node:crypto";
import nodemailer from "nodemailer";
import { NotificationError } from "./notification-error";

export async function sendEmail(input: {
  smtpUrl: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  messageId: string;
  timeoutMs: number;
}): Promise<{ status: number }> {
  const transport = nodemailer.createTransport(input.smtpUrl, {
    connectionTimeout: input.timeoutMs,
    greetingTimeout: input.timeoutMs,
    socketTimeout: input.timeoutMs,
  });
  try {
    await transport.sendMail({
      from: input.from,
      to: input.to,
      subject: input.subject,
      text: input.text,
      messageId: `<${createHash("sha256").update(input.messageId).digest("hex").slice(0, 32)}@keyhook.alerts>`,
    });
    return { status: 250 };
  } catch (error) {
    // 4xx replies are transient by SMTP's own definition, 5xx permanent; no reply: try again.
    const code = (error as { responseCode?: number } | null)?.responseCode ?? null;
    throw new NotificationError(`the SMTP relay refused the message: ${describeSmtpError(error)}`, {
      status: code,
      retryable: code === null || code < 500,
      cause: error,
    });
  } finally {
    transport.close();
  }
}

function describeSmtpError(error: unknown): string {
  if (!(error instanceof Error)) return String(error).slice(0, 300);
  const code = (error as { code?: string }).code;
  return `${code ? `${code} ` : ""}${error.message}`.slice(0, 300);
}
