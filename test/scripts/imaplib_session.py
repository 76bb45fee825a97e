"""Drives Mailroom's IMAP server with Python's imaplib, as a script would; prints what it saw as JSON.

Usage: imaplib_session.py PORT USER PASSWORD
"""
import json

from imaplib_login import login

result = {}
imap, result["login"] = login()
typ, listing = imap.list()
result["list"] = [line.decode() for line in listing]
typ, data = imap.select("INBOX")
result["exists"] = int(data[0])
typ, data = imap.search(None, "UNSEEN")
result["unseen"] = data[0].decode().split()
typ, data = imap.search(None, '(SUBJECT "imaplib")')
result["subject_search"] = data[0].decode().split()
typ, data = imap.fetch("1", "(BODY.PEEK[HEADER.FIELDS (SUBJECT)])")
result["subject_header"] = data[0][1].decode()
typ, data = imap.uid("FETCH", "1:*", "(UID FLAGS RFC822.SIZE)")
result["uid_fetch"] = [item.decode() for item in data if isinstance(item, bytes)]
typ, data = imap.store("1", "+FLAGS", "(\\Seen)")
result["store"] = [item.decode() for item in data]
typ, data = imap.search(None, "SEEN")
result["seen_after_store"] = data[0].decode().split()
typ, data = imap.fetch("1", "(RFC822)")
result["rfc822"] = data[0][1].decode("utf-8", "replace")
result["close"] = imap.close()[0]
result["logout"] = imap.logout()[0]
print(json.dumps(result))
