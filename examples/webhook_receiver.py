"""python -m examples.webhook_receiver [--port 8091] [--secret whsec_...]

A small webhook receiver for the devstack: it verifies every delivery's Standard Webhooks
signature with the SDK's `verify_webhook` and prints the event (400 for a bad one).

    make run                                                    # terminal 1
    .venv/bin/partnerctl --json client webhook set <client_id> http://127.0.0.1:8091/webhooks
    .venv/bin/python -m examples.webhook_receiver --secret whsec_...   # terminal 2 (or WEBHOOK_SECRET)

then buy with that client's token: transaction.confirmed, then transaction.finalized, arrive.
On /account/apps, a user who changes the app's limits sends grant.updated (data.limits), and
one who disconnects it sends grant.revoked (data.reason user_disconnected): the app should
then forget that user's tokens, which already answer 401 / invalid_grant.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from partner_sdk import WebhookVerificationError, verify_webhook


def make_handler(secret: str, seen: set[str]) -> type[BaseHTTPRequestHandler]:
    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # http.server's name
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                event = verify_webhook(secret, dict(self.headers.items()), body)
            except WebhookVerificationError as exc:
                print(f"rejected: {exc}", flush=True)
                self._answer(400, {"error": str(exc)})
                return
            repeat = " (repeat)" if event.id in seen else ""
            seen.add(event.id)
            print(f"{event.type}{repeat} {event.id}: {json.dumps(event.data)}", flush=True)
            if event.type == "grant.revoked":
                print(
                    f"  the user of wallet {event.data.get('wallet')} disconnected this app: drop their tokens",
                    flush=True,
                )
            elif event.type == "grant.updated":
                print(
                    f"  the user of wallet {event.data.get('wallet')} set new limits: {event.data.get('limits')}",
                    flush=True,
                )
            self._answer(200, {"received": event.id})

        def _answer(self, status: int, payload: dict) -> None:
            raw = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, format: str, *args: object) -> None:  # quiet
            pass

    return Receiver


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8091)
    parser.add_argument(
        "--secret",
        default=os.environ.get("WEBHOOK_SECRET"),
        help="the whsec_... secret partnerctl showed (or WEBHOOK_SECRET)",
    )
    args = parser.parse_args(argv)
    if not args.secret:
        parser.error("--secret (or WEBHOOK_SECRET) is required")
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(args.secret, set()))
    print(f"webhook receiver on http://127.0.0.1:{server.server_address[1]}/webhooks", flush=True)
    with server, contextlib.suppress(KeyboardInterrupt):  # Ctrl-C stops it; the with block closes it
        server.serve_forever()


if __name__ == "__main__":
    main()
