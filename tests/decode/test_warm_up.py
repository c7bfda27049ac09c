"""The warm-up runs the shapes a server and the dictation app use, before the first request."""

from mlx_qwen3asr.decode.prefix_cache import PrefixCache
from mlx_qwen3asr.decode.warm_up import WARM_UP_TOKENS, warm_up


def test_the_warm_up_transcribes_a_short_and_a_full_chunk_together(tiny_model):
    prefixes = PrefixCache(tiny_model)
    results = warm_up(tiny_model, prefixes)
    spans = [(s.start, s.end) for result in results for s in result.segments]
    assert spans == [(0.0, 1.0), (0.0, 30.0)], f"a 1 s and a 30 s clip, one segment each: {spans}"
    assert all(len(s.token_ids) <= WARM_UP_TOKENS for result in results for s in result.segments), (
        "the warm-up decodes a few tokens only"
    )
    assert prefixes.stats()["contexts"] == 1, "the prompt head the requests will share is computed during the warm-up"
