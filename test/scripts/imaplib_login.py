"""Shared by the imaplib scripts: logs in over implicit TLS (the test certificate is self-signed).

The scripts take PORT USER PASSWORD as arguments; login() returns the client and the login status.
"""
import imaplib
import ssl
import sys


def login():
    port, user, password = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    imap = imaplib.IMAP4_SSL("127.0.0.1", port, ssl_context=context)
    return imap, imap.login(user, password)[0]
