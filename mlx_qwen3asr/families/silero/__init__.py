"""Silero VAD v6: the network (model.py), its CPU-fast twin (fast.py) and its real weights
(weights.safetensors, MIT: SOURCE.md, LICENSE). What uses it to find speech lives in vad/."""
