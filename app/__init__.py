"""Live dictation in the terminal: `python -m app` (or `mlx-qwen3asr-dictate`).

    microphone (sounddevice callback: copy only)  ┐
    --input FILE (replay thread, real-time/fast)  ┴─ Block [n, ch] @ any rate ─▶ bounded queue
    decode thread: mq.SampleStream (downmix, soxr → 16 kHz) ─▶ segmenter (adaptive energy VAD,
      0.5 s pre-roll, pause → utterance, long → cut at quietest) ─▶ pipeline (commit policy)
      ─▶ engine: partial(open audio) at a bounded rate → tentative; final(utterance) → committed
    committed ─▶ --output file (append, fsync) ─▶ display (rich Live on a tty, plain lines in a pipe)

Files, one concept each: options, model_setup, capture, replay, segmenter, engine,
pipeline, worker, transcript, display, stats, session (start-up order and shutdown).
"""
