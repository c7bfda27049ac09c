"""GET /: the live dictation page (page/index.html, one file: HTML, CSS and a little JavaScript).

browser -> GET / -> the page (with whether this server wants an API key)
page: microphone -> AudioWorklet (resampled to 16 kHz, pcm16, 100 ms frames)
      -> WebSocket /v1/audio/live (the key, if any, as a "bearer.<base64url>" subprotocol)
      -> events (docs/live.md) -> committed lines, the dimmed partial, language, latency
"""

from functools import lru_cache
from importlib.resources import files

from starlette.requests import Request
from starlette.responses import HTMLResponse

KEY_MARK = 'content="api-key-required"'  # <meta name="mlx-qwen3asr-key" content=...>: true or false


@lru_cache(maxsize=1)
def page_html() -> str:
    html = files(__package__).joinpath("page/index.html").read_text(encoding="utf-8")
    assert KEY_MARK in html, "the page's key marker is missing"
    return html


async def page(request: Request) -> HTMLResponse:
    needs_key = "true" if request.app.state.api_key_required else "false"
    return HTMLResponse(page_html().replace(KEY_MARK, f'content="{needs_key}"'), headers={"Cache-Control": "no-cache"})
