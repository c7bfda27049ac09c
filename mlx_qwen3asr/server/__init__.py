"""A local transcription server: OpenAI's audio API for files, a WebSocket for live audio, one model.

    client --multipart--> routes (uploads: fields + audio) --UploadJob--> worker (one thread owns the
           model and the --aligner: a batch of jobs is one engine call, transcribe_checked; live steps
           run before it and between its waves) --Transcription--> responses (json, text, srt, vtt,
           verbose_json with words, SSE deltas from each decoded segment)
    client --WebSocket PCM frames--> live (one mq.LiveSession per connection; its steps run
           on the same worker) --events--> client

Files: serve (argv, load + warm, uvicorn), app (auth, upload limit, routing), routes, uploads,
responses, transcription (the engine call), worker, live, disconnect, errors, languages.
Needs the `server` extra (starlette, uvicorn, websockets, python-multipart); `main` imports them only
when run. Installed, this package is `mlx_qwen3asr.server` (`python -m mlx_qwen3asr.server`).
"""

from .serve import main

__all__ = ["main"]
