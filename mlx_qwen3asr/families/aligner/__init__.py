"""Word timestamps with Qwen3-ForcedAligner: `units` (text -> units), `model` (the aligner network and its
prompt), `repair` (classes -> monotonic times), `aligner` (audio + text -> words; per segment of a transcript)."""
