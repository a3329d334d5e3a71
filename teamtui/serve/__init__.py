"""The dashboard in a browser: textual-serve runs one dashboard per browser session, behind a token.

guard.py   the aiohttp middleware that answers 403 to any request without the token.
server.py  textual-serve's Server with the guard, URLs from the browser's own address, a clean stop.
address.py whether an address is this machine only, and the URL to print for it.
"""
