"""Test support, never imported by the library at run time: random-weight checkpoints in the
official layouts (with the real tokenizer and config files they need, shipped as package data)."""
