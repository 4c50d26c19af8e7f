// Local receivers a notification test starts: an HTTP server (Slack-compatible and JSON webhooks)
// that answers with the status a test chooses per request, and an SMTP server (npm smtp-server).
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export type HttpReceiver = {
  url: string;
  requests: { headers: IncomingHttpHeaders; body: string; status: number }[];
  close: () => Promise<void>;
};

/** `answer(n)` is the status of the n-th request (1-based); default 200. */
export async function startHttpReceiver(answer: (n: number) => number = () => 200): Promise<HttpReceiver> {
  const requests: HttpReceiver["requests"] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const status = answer(requests.length + 1);
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), status });
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "receiver error");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A URL on loopback where nothing listens (a port taken, then freed). */
export async function deadUrl(): Promise<string> {
  const receiver = await startHttpReceiver();
  await receiver.close();
  return receiver.url;
}

export type SmtpReceiver = {
  url: string;
  messages: { from: string; to: string[]; raw: string; user: string | null }[];
  close: () => Promise<void>;
};

/** With `auth`, the relay requires that user and password (plain AUTH over loopback). */
export async function startSmtpReceiver(
  options: { auth?: { user: string; pass: string } } = {},
): Promise<SmtpReceiver> {
  const messages: SmtpReceiver["messages"] = [];
  const { auth } = options;
  const server = new SMTPServer({
    authOptional: !auth,
    disabledCommands: auth ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
    allowInsecureAuth: true,
    onAuth(credentials, _session, callback) {
      if (credentials.username === auth?.user && credentials.password === auth?.pass)
        return callback(null, { user: credentials.username });
      callback(new Error("invalid username or password"));
    },
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8"),
          user: typeof session.user === "string" ? session.user : null,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
