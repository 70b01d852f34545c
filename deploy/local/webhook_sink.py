#!/usr/bin/env python3
"""The demo's stand-in for Slack's incoming webhooks: a real HTTP server the notifier posts to.

Run by `./tideline demo` as its own process (a test part, not product code; Python 3 stdlib only):

    python3 deploy/local/webhook_sink.py --port 8026 --out .tideline/run/webhook/posts.jsonl

Every POST (any path) is answered 200 "ok" as Slack does, and stored as one JSON line in --out:
{"receivedAt", "path", "contentType", "idempotencyKey", "body"} where body is the parsed JSON
(the notice's Block Kit message) or, if it is not JSON, the text. GET /health answers 200 "ok"
once the server listens; GET /count answers the number of posts stored. It listens on 127.0.0.1
only. A port it cannot bind is an error on stderr and exit status 2, so the launcher can say so.
"""
import argparse
import datetime
import http.server
import json
import signal
import sys
import threading


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--out", required=True, help="file the posts are appended to, one JSON line each")
    args = ap.parse_args()

    lock = threading.Lock()
    count = [0]
    out = open(args.out, "a", encoding="utf-8")

    class Handler(http.server.BaseHTTPRequestHandler):
        def _answer(self, status, text):
            data = text.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode("utf-8", errors="replace")
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw
            record = {
                "receivedAt": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                "path": self.path,
                "contentType": self.headers.get("Content-Type"),
                "idempotencyKey": self.headers.get("Idempotency-Key"),
                "body": body,
            }
            with lock:
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
                out.flush()
                count[0] += 1
            self._answer(200, "ok")

        def do_GET(self):
            if self.path == "/health":
                self._answer(200, "ok")
            elif self.path == "/count":
                with lock:
                    self._answer(200, str(count[0]))
            else:
                self._answer(404, "POST a webhook message to any path; GET /health or /count")

        def log_message(self, fmt, *a):  # one line per request on stderr, as a server log
            sys.stderr.write("%s %s\n" % (self.log_date_time_string(), fmt % a))

    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    except OSError as e:
        sys.stderr.write("webhook sink: cannot listen on 127.0.0.1:%d: %s\n" % (args.port, e))
        sys.exit(2)
    # SIGTERM (./tideline stopping it) ends serve_forever from another thread, then closes the file
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    sys.stderr.write("webhook sink listening on http://127.0.0.1:%d/, storing posts in %s\n"
                     % (args.port, args.out))
    sys.stderr.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        out.close()


if __name__ == "__main__":
    main()
