"""SenseVoiceSmall: one SAN-M encoder pass and a CTC head, no decoder loop (non-autoregressive).

    wave -> x 32768 -> fbank + LFR [T, 560] -> CMVN (am.mvn)            (families/funasr_release.py)
    -> 4 query rows in front: embed[language], embed[1] (event), embed[2] (emotion), embed[14 | 15] (itn)
    -> SAN-M encoder (layers/sanm.py: x * sqrt(512) + sinusoid of positions 1..T+4, 50 + 20 layers) [T+4, 512]
    -> ctc.ctc_lo -> log-softmax [T+4, vocab] -> argmax per frame -> repeats merged -> blank 0 dropped
    -> ids (tags included: the query frames usually say <|en|><|NEUTRAL|><|Speech|><|woitn|>)
    -> vocabulary.py: text without tags, language, emotion, event; timestamps.py: words with times

Query ids are funasr's fixed table (model.lid_dict / textnorm_dict): auto 0, zh 3, en 4, yue 7, ja 11, ko 12,
nospeech 13; event 1, emotion 2; withitn 14, woitn 15. Module names are the release's (`embed`, `ctc.ctc_lo`)
except the encoder, which is the shared module (`encoder.layers.N`, see sanitize).

Attention spans the whole clip, so one pass costs O(T^2): chunk_seconds bounds it (60 s: the reference runs a
40 s clip whole and so do we; the model card cuts with fsmn-vad at 30 s, our VAD cuts where `vad=` says).
"""

from collections.abc import Sequence
from pathlib import Path
from typing import Optional

import mlx.core as mx
import mlx.nn as nn
import numpy as np

from ...audio.fbank import LFR_SECONDS
from ...audio.io import SAMPLE_RATE
from ...layers.sanm import AudioEncoder
from ...layers.sanm_two_streams import SANM_CPU_SWAPS
from ...result import Segment
from ...text.languages import CODES, Languages
from ...text.script import join_text
from ..funasr_release import CMVN, encoder_names, lfr_features
from .config import SenseVoiceArgs
from .timestamps import token_times, words_of
from .vocabulary import Vocabulary

LANGUAGE_QUERY = {None: 0, "Chinese": 3, "English": 4, "Cantonese": 7, "Japanese": 11, "Korean": 12}
EVENT_QUERY, EMOTION_QUERY = 1, 2
ITN_QUERY = {True: 14, False: 15}
N_QUERIES = 4
N_EMBEDDINGS = 16  # 7 + 7 languages + 2 text norms
CHUNK_SECONDS = 60.0
BLANK = 0


class CTC(nn.Module):
    def __init__(self, dim: int, vocab: int):
        super().__init__()
        self.ctc_lo = nn.Linear(dim, vocab)


def language_name(code: str) -> str:
    """A language tag's code as the name the other families report ("en" -> "English"); "" for nospeech."""
    return "" if code in ("", "nospeech") else CODES.get(code, code)


class SenseVoiceSmall(nn.Module):
    task = "transcribe"
    languages = Languages("SenseVoiceSmall", tuple(n for n in LANGUAGE_QUERY if n))
    takes_context = False  # no prompt: context and hotwords are refused (options.py)
    takes_itn = True  # DecodeOptions(itn=True): the "withitn" query (punctuation, inverse text normalisation)
    cpu_swaps = SANM_CPU_SWAPS  # the SAN-M encoder on two CPU streams (loading/device_path.py installs them)
    keep_float = ("embed", "cmvn", "encoder.layers.0.self_attn")  # 560 inputs: no quantization group divides it
    audio_prefixes = ("encoder.",)  # at the converter's encoder bits; the CTC head at its (decoder) bits
    audio_tokens_per_second = 1 / LFR_SECONDS
    chunk_seconds = CHUNK_SECONDS
    join_text = staticmethod(join_text)

    def __init__(self, args: SenseVoiceArgs):
        super().__init__()
        self.args = args
        self.embed = nn.Embedding(N_EMBEDDINGS, args.input_size)
        self.encoder = AudioEncoder(args.encoder)
        self.ctc = CTC(args.encoder_conf.output_size, args.vocab_size)
        if args.cmvn:
            self.cmvn = CMVN(args.input_size)
        self.vocabulary: Optional[Vocabulary] = None  # set by the loader, with the file it came from
        self.vocabulary_file: Optional[Path] = None
        self.path: Optional[Path] = None

    @property
    def dtype(self) -> mx.Dtype:
        return self.ctc.ctc_lo.bias.dtype

    def default_batch_size(self, chunk_seconds: float) -> int:
        """Chunks encoded per wave: no KV cache to size, each chunk is one encoder pass of its own."""
        return 8

    def features(self, wave: np.ndarray) -> mx.array:
        """Waveform (16 kHz) -> encoder features [T, 560] (LFR fbank, then CMVN when the release has it)."""
        x = mx.array(lfr_features(wave))
        return (self.cmvn(x) if "cmvn" in self else x).astype(self.dtype)

    def queries(self, language: Optional[str], itn: bool) -> mx.array:
        """The 4 query rows put in front of the features [4, 560]."""
        ids = [LANGUAGE_QUERY[language], EVENT_QUERY, EMOTION_QUERY, ITN_QUERY[bool(itn)]]
        return self.embed(mx.array(ids))

    def encode(self, features: mx.array, language: Optional[str] = None, itn: bool = False) -> mx.array:
        """Features [T, 560] -> encoder output [T + 4, hidden] (the 4 query frames first)."""
        x = mx.concatenate([self.queries(language, itn).astype(features.dtype), features])
        return self.encoder(x[None])[0]

    def log_probs(self, encoded: mx.array) -> mx.array:
        """Encoder output -> CTC log-probabilities [T + 4, vocab], float32."""
        logits = self.ctc.ctc_lo(encoded).astype(mx.float32)
        return logits - mx.logsumexp(logits, axis=-1, keepdims=True)

    def frame_log_probs(self, wave: np.ndarray, language: Optional[str] = None, itn: bool = False) -> mx.array:
        """Waveform -> CTC log-probabilities of every frame [T + 4, vocab] (the converter's fidelity check)."""
        return self.log_probs(self.encode(self.features(wave), language, itn))

    def recognise(self, wave: np.ndarray, language: Optional[str] = None, itn: bool = False) -> Segment:
        """One chunk -> its Segment: text without tags, language from the tag (or the forced one), emotion,
        event, token_ids (the collapsed CTC ids, tags included) and words with times in the chunk."""
        best = np.array(mx.argmax(self.frame_log_probs(wave, language, itn), axis=-1))
        ids, runs = collapse(best)
        tagged = self.vocabulary.parse(ids)
        words = words_of(self.vocabulary, ids, token_times(runs, len(best) - N_QUERIES, N_QUERIES))
        return Segment(
            0.0,
            len(wave) / SAMPLE_RATE,
            tagged.text,
            language or language_name(tagged.language),
            token_ids=ids,
            words=words,
            emotion=tagged.emotion or None,
            event=tagged.event or None,
        )

    def transcribe_chunks(self, waves: Sequence[np.ndarray], options: Sequence) -> list[Segment]:
        """What the engine asks a model without a decoder loop: each chunk recognised with its options."""
        return [self.recognise(wave, each.language, each.itn) for wave, each in zip(waves, options)]

    def converted_config(self) -> dict:
        """config.json of a converted folder (the converter adds "quantization")."""
        return self.args.to_dict()

    def side_files(self) -> list[Path]:
        """Files a converted folder needs beside its tensors: the SentencePiece model."""
        return [self.vocabulary_file]

    def sanitize(self, weights: dict[str, mx.array]) -> dict[str, mx.array]:
        """Release names -> module names (funasr_release.encoder_names), the FSMN conv to MLX's layout."""
        return encoder_names(weights, self.args.encoder_conf.num_blocks)


def collapse(best: np.ndarray) -> tuple[list[int], list[tuple[int, int]]]:
    """Greedy CTC: per-frame best ids -> (ids with repeats merged and blanks dropped, each id's frames [s, e))."""
    ids, runs = [], []
    start = 0
    for frame in range(1, len(best) + 1):
        if frame == len(best) or best[frame] != best[start]:
            if best[start] != BLANK:
                ids.append(int(best[start]))
                runs.append((start, frame))
            start = frame
    return ids, runs


Model, ModelArgs = SenseVoiceSmall, SenseVoiceArgs
