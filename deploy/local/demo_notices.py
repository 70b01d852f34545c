#!/usr/bin/env python3
"""What the demo's notice receivers got: the SMTP server's mailboxes and the webhook sink's posts.

Run by `./tideline demo` after the simulator (Python 3 stdlib only):

    python3 deploy/local/demo_notices.py --mail-api http://127.0.0.1:8025 \
        --posts .tideline/run/webhook/posts.jsonl [--settle 10] [--max-wait 180]

It first waits until both counts have not changed for --settle seconds (the notifier delivers
after the simulated day ends: digest windows, Slack's rate limit), at most --max-wait seconds,
then prints how many e-mails the SMTP server (GreenMail standalone, read through its REST API)
holds and for whom, how many posts the webhook sink stored, and one of each in full. Exit status
1 only if a receiver cannot be read (then the counts would be a guess).
"""
import argparse
import collections
import email
import email.policy
import json
import sys
import time
import urllib.parse
import urllib.request


def get_json(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read().decode("utf-8"))


def mailboxes(api):
    """{recipient: [message, ...]} from GreenMail's API (a user per recipient: auth is off)."""
    boxes = {}
    for user in get_json(api + "/api/user"):
        addr = user.get("email") or user.get("login")
        boxes[addr] = get_json(api + "/api/user/" + urllib.parse.quote(addr, safe="@")
                               + "/messages/INBOX")
    return boxes


def posts(path):
    try:
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


def counts(api, path):
    return sum(len(v) for v in mailboxes(api).values()), len(posts(path))


def show_mail(raw):
    msg = email.message_from_string(raw, policy=email.policy.default)
    for h in ("From", "To", "Subject", "Date", "Message-ID", "X-Idempotency-Key"):
        if msg[h] is not None:
            print("  %s: %s" % (h, msg[h]))
    parts = [p.get_content_type() for p in msg.walk() if not p.is_multipart()]
    print("  (parts: %s)" % ", ".join(parts))
    text = msg.get_body(preferencelist=("plain", "html"))
    print()
    for line in (text.get_content() if text is not None else "").rstrip().splitlines():
        print("  | " + line)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mail-api", required=True)
    ap.add_argument("--posts", required=True)
    ap.add_argument("--settle", type=float, default=10)
    ap.add_argument("--max-wait", type=float, default=180)
    a = ap.parse_args()
    api = a.mail_api.rstrip("/")
    try:
        start = time.monotonic()
        last, since = counts(api, a.posts), time.monotonic()
        while time.monotonic() - since < a.settle and time.monotonic() - start < a.max_wait:
            time.sleep(1)
            now = counts(api, a.posts)
            if now != last:
                last, since = now, time.monotonic()
        settled = time.monotonic() - since >= a.settle
        boxes = mailboxes(api)
    except OSError as e:
        print("tideline demo: could not read the SMTP server's mailboxes at %s: %s" % (api, e),
              file=sys.stderr)
        return 1
    sent = posts(a.posts)
    mails = sum(len(v) for v in boxes.values())
    print("Notices delivered%s:" % ("" if settled else
          " (still arriving after %.0f s; counts so far)" % a.max_wait))
    print("  SMTP server (GreenMail, %s): %d e-mail(s) to %d recipient(s)" % (api, mails, len(boxes)))
    for addr in sorted(boxes):
        print("    %-36s %d" % (addr, len(boxes[addr])))
    by_path = collections.Counter(p.get("path") for p in sent)
    print("  Slack webhook sink (%s): %d post(s)%s" % (a.posts, len(sent), "".join(
        "\n    %-36s %d" % (k, v) for k, v in sorted(by_path.items()))))
    if mails:
        addr = sorted(a for a in boxes if boxes[a])[0]
        print()
        print("One e-mail in full (to %s, 1 of %d):" % (addr, len(boxes[addr])))
        show_mail(boxes[addr][0]["mimeMessage"])
    if sent:
        p = sent[0]
        print()
        print("One Slack post in full (POST %s, received %s, Idempotency-Key %s):"
              % (p.get("path"), p.get("receivedAt"), p.get("idempotencyKey")))
        body = p.get("body")
        text = json.dumps(body, indent=2, ensure_ascii=False) if not isinstance(body, str) else body
        for line in text.splitlines():
            print("  | " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
