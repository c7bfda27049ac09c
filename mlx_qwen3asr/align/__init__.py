"""Word timestamps with Qwen3-ForcedAligner: `units` (text -> units), `repair` (classes -> times)."""
