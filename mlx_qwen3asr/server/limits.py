"""What one request may cost the server, in one place (docs/server.md, "Security").

    upload bytes        --max-upload-mb (25)           more: 413
    decoded audio       --max-audio-seconds (7200)     more: 400, noticed from the header before resampling
    tokens per chunk    --max-new-tokens, else the budget of the served model's longest chunk (token_cap):
                        a client's max_new_tokens only lowers it
    prompt              the model's max_context_tokens (10,000), tokenized off the event loop (TOKENIZING_AT_ONCE
                        at a time), prefilled in blocks
    slow clients        --client-timeout (30 s) without a byte of body, or UPLOAD_SECONDS in all: 408;
                        a request head not complete in --client-timeout: connection closed (protocols.py)
    shutdown            SHUTDOWN_GRACE_SECONDS after SIGTERM, then open connections are closed
    WebSocket Origin    same host as the server's, or one of --allow-origin (handshake.py)

A 16 kHz float32 waveform takes 64 KB a second: the default limit is ~0.46 GB of samples per request.
"""

from typing import Optional

from mlx_qwen3asr.options import token_budget

DEFAULT_MAX_AUDIO_SECONDS = 7200.0  # two hours: a 25 MB mp3 at 32 kbit/s is 1.7 h
CLIENT_TIMEOUT_SECONDS = 30.0  # a request head or upload that sends nothing this long is dropped
UPLOAD_SECONDS = 600.0  # 25 MB at 0.33 Mbit/s; a slower body is refused (408)
TOKENIZING_AT_ONCE = 2  # prompts tokenized at once: memory stays bounded when many arrive together
SHUTDOWN_GRACE_SECONDS = 10.0  # after SIGTERM, open requests get this long before they are cut


def token_cap(server_cap: Optional[int], chunk_seconds: float) -> int:
    """The most new tokens any client may ask for per decoded chunk: --max-new-tokens, else the library's
    budget for the served model's longest chunk (model.chunk_seconds), which no answer needs more than."""
    return server_cap if server_cap is not None else token_budget(chunk_seconds)


def capped_tokens(asked: Optional[int], server_cap: Optional[int], chunk_seconds: float) -> Optional[int]:
    """A client's max_new_tokens within the server's budget (None: the library's default by duration,
    itself within token_cap per chunk)."""
    if asked is None:
        return server_cap
    return min(asked, token_cap(server_cap, chunk_seconds))
