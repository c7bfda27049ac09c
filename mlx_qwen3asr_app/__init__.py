"""Live dictation in the terminal: `mlx-qwen3asr-dictate` (in a clone `scripts/dictate.sh`; installed
as the package `mlx_qwen3asr_app`, so also `python -m mlx_qwen3asr_app`).

    microphone (sounddevice callback: copy only)  ┐
    --input FILE (replay thread, real-time/fast)  ┴─ Block [n, ch] @ any rate ─▶ bounded queue
    decode thread: mlx_qwen3asr.LiveSession (16 kHz mono, the voice-activity rule, utterances,
      finals = transcribe(utterance), bounded partials) ─▶ events
    commit ─▶ --output file (append, fsync) ─▶ display (rich Live on a tty, plain lines in a pipe,
      or every event as JSON with --events jsonl) ─▶ clipboard / typing (--copy, --type)

Files, one concept each: options, model_setup, capture, replay, worker, sink (events to outputs),
transcript, outputs (clipboard, typing), keys, display, stats, session (start-up and shutdown).
"""
