// Send email over SMTP. The Message-ID is derived from the idempotency key, so a receiving system
// can recognise a message sent again after a crash.
import nodemailer from "nodemailer";
import { AppError } from "../../core/errors.js";
import { renderText } from "../templates/template.js";
import type { TypedNode } from "../validator/validator.js";
import type { Executor } from "./node-execution.js";

type EmailNode = Extract<TypedNode, { type: "send_email" }>;

export function messageIdFor(key: string): string {
  return `<${key.replace(/[^A-Za-z0-9._-]/g, ".")}@superstep>`;
}

export const executeSendEmail: Executor<EmailNode> = async ({ node, scope, ctx, key }) => {
  const smtpUrl = ctx.engine.smtpUrl;
  if (!smtpUrl) throw new AppError("EMAIL_FAILED", null, "Send email needs STUDIO_SMTP_URL on this server.");
  const data = node.data;
  const transport = nodemailer.createTransport(smtpUrl);
  const messageId = messageIdFor(key);
  const body = renderText(data.body, scope);
  try {
    const info = await transport.sendMail({
      from: data.from ? renderText(data.from, scope) : ctx.engine.smtpFrom,
      to: renderText(data.to, scope),
      cc: data.cc ? renderText(data.cc, scope) : undefined,
      subject: renderText(data.subject, scope),
      ...(data.html ? { html: body } : { text: body }),
      messageId,
      headers: { "X-Studio-Run-Id": ctx.runId, "Idempotency-Key": key },
    });
    const result = { message_id: messageId, accepted: (info.accepted ?? []).map(String) };
    return data.output_field ? { [data.output_field]: result } : {};
  } catch (error) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    throw new AppError("EMAIL_FAILED", { reason: error instanceof Error ? error.message : String(error) });
  } finally {
    transport.close();
  }
};
