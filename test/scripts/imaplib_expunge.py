"""Deletes every message of INBOX with Python's imaplib (STORE +FLAGS \\Deleted, EXPUNGE); prints what it saw as JSON.

Usage: imaplib_expunge.py PORT USER PASSWORD
"""
import imaplib
import json
import ssl
import sys

port, user, password = int(sys.argv[1]), sys.argv[2], sys.argv[3]
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE

result = {}
imap = imaplib.IMAP4_SSL("127.0.0.1", port, ssl_context=context)
result["login"] = imap.login(user, password)[0]
typ, data = imap.select("INBOX")
result["exists"] = int(data[0])
result["store"] = imap.store("1:*", "+FLAGS", "(\\Deleted)")[0]
typ, data = imap.expunge()
result["expunge"] = typ
result["expunged"] = [item.decode() for item in data if item is not None]
typ, data = imap.select("INBOX")
result["exists_after"] = int(data[0])
result["logout"] = imap.logout()[0]
print(json.dumps(result))
