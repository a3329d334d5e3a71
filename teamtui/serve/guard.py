"""Every request needs the token: in the query (`?token=...`, the printed URL) or in the cookie the page sets.

textual.js opens its websocket at the URL the page gives plus "?width=..&height=..", so the token
cannot ride in that URL's query; the browser sends the cookie with the websocket and static requests.
"""

from __future__ import annotations

import secrets

from aiohttp import web

TYPE_CHECKING = False
if TYPE_CHECKING:
    from aiohttp.typedefs import Handler, Middleware

TOKEN_PARAM = "token"


def new_token() -> str:
    return secrets.token_urlsafe(24)


def cookie_name(port: int) -> str:
    # Cookies ignore the port: two servers on one host must not overwrite each other's token.
    return f"teamtui_token_{port}"


def token_guard(token: str, cookie: str) -> Middleware:
    """A middleware that lets through only requests carrying `token`, and remembers it in `cookie`."""
    expected = token.encode()

    def matches(given: str | None) -> bool:
        return given is not None and secrets.compare_digest(given.encode(), expected)

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        from_query = matches(request.query.get(TOKEN_PARAM))
        if not (from_query or matches(request.cookies.get(cookie))):
            raise web.HTTPForbidden(text="teamtui: this address needs the token printed by `teamtui serve`\n")
        if request.headers.get("Upgrade", "").lower() == "websocket" and not _same_origin(request):
            raise web.HTTPForbidden(text="teamtui: a websocket from another site\n")
        response = await handler(request)
        if from_query and not response.prepared:  # a page, not a websocket already under way
            # HttpOnly: no script reads it; Strict: no other site's page makes the browser send it.
            response.set_cookie(cookie, token, httponly=True, samesite="Strict", path="/")
        return response

    return guard


def _same_origin(request: web.Request) -> bool:
    """A browser's websocket says which page opened it: only a page served here may drive a dashboard."""
    origin = request.headers.get("Origin")
    if origin is None:  # not a browser (a browser always sends Origin with a websocket)
        return True
    return origin.split("://", 1)[-1].rstrip("/").lower() == request.host.lower()


__all__ = ["TOKEN_PARAM", "new_token", "cookie_name", "token_guard"]
