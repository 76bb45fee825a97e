"""Deletes every message of INBOX with Python's imaplib (STORE +FLAGS \\Deleted, EXPUNGE); prints what it saw as JSON.

Usage: imaplib_expunge.py PORT USER PASSWORD
"""
import json

from imaplib_login import login

result = {}
imap, result["login"] = login()
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
