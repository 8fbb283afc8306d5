// A webhook receiver on node:http: verifies each delivery (Standard Webhooks) over the raw body,
// deduplicates on the event id, answers 204 (400 for a bad signature: the sender does not retry it).
//
//   WEBHOOK_SECRET=whsec_... PORT=8081 node examples/node/webhook_receiver.mjs
import { createServer } from "node:http";
import { verifyWebhook } from "../../sdks/typescript/dist/index.js";

const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error("set WEBHOOK_SECRET (partnerctl client webhook set <client> <url> prints it)");
const seen = new Set();

export const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    let event;
    try {
      event = verifyWebhook(secret, req.headers, Buffer.concat(chunks));
    } catch (err) {
      res.writeHead(400).end(String(err));
      return;
    }
    if (!seen.has(event.id)) {
      seen.add(event.id);
      console.log(`${event.type} ${event.data.signature} ${event.data.kind} ${event.data.error ?? ""}`.trim());
    }
    res.writeHead(204).end();
  });
});

server.listen(Number(process.env.PORT ?? 8081), "127.0.0.1", () => console.log(`listening on ${JSON.stringify(server.address())}`));
