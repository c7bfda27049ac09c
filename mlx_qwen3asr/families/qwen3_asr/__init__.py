"""Qwen3-ASR (Qwen/Qwen3-ASR-0.6B, -1.7B): its log-mel encoder (encoder.py), config (config.py), model
class (model.py), languages, prompt and answer parser, in front of the shared Qwen3 decoder (layers/, families/speech_lm.py)."""
