"""Decoding: audio -> tokens -> text with a recogniser (the decode loop, long audio, batching).

decode/transcribe.py   the front doors (transcribe, transcribe_batch) and the engine (transcribe_checked)
decode/generate.py     the one decode loop: prefill, compiled steps, stop rules
decode/prefix_cache.py the prompt head's keys and values, kept between calls
decode/answer.py       a decode's raw text -> (language, text); decode/echo.py: a context echoed over silence
decode/batch_size.py   how many clips decode together on this machine
"""
