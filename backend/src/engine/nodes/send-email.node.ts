// Send email over SMTP: the server's (STUDIO_SMTP_URL) or the user's own from an SMTP credential,
// reached through the egress policy. The Message-ID is derived from the idempotency key, so a
// receiving system can recognise a message sent again after a crash.
import { isIP } from "node:net";
import type { Transporter } from "nodemailer";
import { egressClientFor } from "../../core/egress/egress-client.js";
import { AppError } from "../../core/errors.js";
import { lazyImport } from "../../core/lazy-import.js";
import type { RunContext } from "../runtime/run-context.js";
import { credentialFor } from "../runtime/run-credentials.js";
import { renderText } from "../templates/template.js";
import type { TypedNode } from "../validator/validator.js";
import type { Executor } from "./node-execution.js";

type EmailNode = Extract<TypedNode, { type: "send_email" }>;

/** The mail client, loaded with the first email a run sends. */
export const mailModule = lazyImport(async () => (await import("nodemailer")).default);

export function messageIdFor(key: string): string {
  return `<${key.replace(/[^A-Za-z0-9._-]/g, ".")}@superstep>`;
}

/**
 * The user's SMTP server: its host is resolved and checked once, and the connection goes to the
 * checked address (TLS still verifies the host name).
 */
async function credentialTransport(ctx: RunContext, credentialId: string): Promise<Transporter> {
  const { data } = credentialFor(ctx.credentials, credentialId, ["smtp"]);
  const address = await egressClientFor(ctx.engine.egressAllow).pin(data.host, data.port);
  const nodemailer = await mailModule();
  return nodemailer.createTransport({
    host: address,
    port: data.port,
    secure: data.secure,
    ...(data.username ? { auth: { user: data.username, pass: data.password ?? "" } } : {}),
    tls: isIP(data.host) ? {} : { servername: data.host },
  });
}

async function transportFor(ctx: RunContext, credentialId: string | undefined): Promise<Transporter> {
  if (credentialId) return credentialTransport(ctx, credentialId);
  if (!ctx.engine.smtpUrl) throw new AppError("EMAIL_FAILED", null, "Send email needs STUDIO_SMTP_URL on this server.");
  return (await mailModule()).createTransport(ctx.engine.smtpUrl);
}

export const executeSendEmail: Executor<EmailNode> = async ({ node, scope, ctx, key }) => {
  const data = node.data;
  const transport = await transportFor(ctx, data.credential_id);
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
