"""Paraformer: one SAN-M encoder pass, CIF to count and place the tokens, one SAN-M decoder pass (non-autoregressive).

    wave -> x 32768 -> fbank + LFR [T, 560] -> CMVN (am.mvn)                 (families/funasr_release.py)
    -> SAN-M encoder (layers/sanm.py: x * sqrt(512) + sinusoid of positions 1..T, 50 layers, after_norm) [T, 512]
    -> predictor alphas [T] -> (host) tail, fire, integrate: N token rows [N, 512]             (cif.py)
    -> SAN-M decoder (layers/sanm_decoder.py: the N rows attend to the encoder output) -> logits [N, 8404]
    -> log-softmax -> argmax per row -> ids without <blank> 0, <s> 1, </s> 2 -> tokens.json strings
    -> text.py: funasr's sentence_postprocess (Chinese characters joined without spaces, English words with
       them, "@@" pieces continued); timestamps.py: each token's time from the CIF fires -> words

N < 1 (the alphas sum under 1 with the tail): no decoder pass and no text, as funasr returns no result.
Module names are the release's except the encoder (the shared module: encoder.layers.N, see sanitize) and the
decoder's FSMN (self_attn.conv). decoder.embed (a token embedding used only in training) and a CTC head (a
config with ctc_weight > 0 trains one; greedy inference never reads it) are dropped.
Attention spans the whole clip, so one pass costs O(T^2): chunk_seconds bounds it (60 s: funasr runs a 40 s clip
whole, and so do we; its model card cuts long audio with fsmn-vad, our VAD cuts where `vad=` says).
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
from ...layers.sanm_decoder import SANMDecoder
from ...layers.sanm_two_streams import SANM_CPU_SWAPS
from ...result import Segment, Word
from ...text.languages import Languages
from ...text.script import join_text
from ..funasr_release import CMVN, encoder_names, lfr_features
from .cif import Predictor, fire, integrate, token_count, with_tail
from .config import ParaformerArgs
from .text import Tokens, sentence
from .timestamps import token_times

SPECIAL = (0, 1, 2)  # <blank>, <s> (sos), </s> (eos): dropped from the decoded ids (Paraformer.inference)
CHUNK_SECONDS = 60.0


class Paraformer(nn.Module):
    task = "transcribe"
    languages = Languages("Paraformer", ())  # no language query: a forced language is refused (options.py)
    takes_context = False  # no prompt: context and hotwords are refused (options.py)
    cpu_swaps = SANM_CPU_SWAPS  # the SAN-M encoder on two CPU streams (loading/device_path.py installs them)
    keep_float = ("cmvn", "predictor", "encoder.layers.0.self_attn")  # 560 inputs: no quantization group divides it
    audio_prefixes = ("encoder.", "predictor.")  # at the converter's encoder bits; the decoder at its (decoder) bits
    audio_tokens_per_second = 1 / LFR_SECONDS
    chunk_seconds = CHUNK_SECONDS
    join_text = staticmethod(join_text)

    def __init__(self, args: ParaformerArgs):
        super().__init__()
        self.args = args
        pred = args.predictor_conf
        self.encoder = AudioEncoder(args.encoder)
        self.predictor = Predictor(pred.idim, pred.l_order, pred.r_order, pred.smooth_factor, pred.noise_threshold)
        self.decoder = SANMDecoder(args.decoder)
        if args.cmvn:
            self.cmvn = CMVN(args.frontend_conf.n_mels * args.frontend_conf.lfr_m)
        self.tokens: Optional[Tokens] = None  # set by the loader, with the file it came from
        self.tokens_file: Optional[Path] = None
        self.path: Optional[Path] = None

    @property
    def dtype(self) -> mx.Dtype:
        return self.decoder.output_layer.bias.dtype

    def default_batch_size(self, chunk_seconds: float) -> int:
        """Chunks per call: no KV cache to size, each chunk is one encoder and one decoder pass of its own."""
        return 8

    def features(self, wave: np.ndarray) -> mx.array:
        """Waveform (16 kHz) -> encoder features [T, 560] (LFR fbank, then CMVN when the release has it)."""
        x = mx.array(lfr_features(wave))
        return (self.cmvn(x) if "cmvn" in self else x).astype(self.dtype)

    def encode(self, features: mx.array) -> tuple[mx.array, mx.array]:
        """Features [T, 560] -> (encoder output [T, 512], alphas [T] float32), evaluated."""
        encoded = self.encoder(features[None])
        alphas = self.predictor(encoded)[0]
        mx.eval(encoded, alphas)
        return encoded[0], alphas

    def fire(self, encoded: mx.array, alphas: mx.array) -> dict:
        """The CIF on the host (cif.py): alphas and fires with the tail [T + 1], the N token rows [N, 512]."""
        tail_alphas, hidden = with_tail(np.array(alphas), np.array(encoded.astype(mx.float32)), self.tail)
        fires, fired = fire(tail_alphas)
        count = token_count(tail_alphas)
        return {"alphas": tail_alphas, "fires": fires, "rows": integrate(hidden, tail_alphas, fires, fired, count)}

    @property
    def tail(self) -> float:
        return self.args.predictor_conf.tail_threshold

    def log_probs(self, rows: np.ndarray, encoded: mx.array) -> mx.array:
        """Token rows [N, 512] and encoder output [T, 512] -> decoder log-probabilities [N, vocab], float32."""
        logits = self.decoder(mx.array(rows).astype(encoded.dtype)[None], encoded[None])[0].astype(mx.float32)
        return logits - mx.logsumexp(logits, axis=-1, keepdims=True)

    def frame_log_probs(self, wave: np.ndarray) -> mx.array:
        """Waveform -> the decoder's log-probabilities of every token [N, vocab] (the converter's fidelity check)."""
        encoded, alphas = self.encode(self.features(wave))
        cif = self.fire(encoded, alphas)
        return self.log_probs(cif["rows"], encoded)

    def recognise(self, wave: np.ndarray) -> Segment:
        """One chunk -> its Segment: funasr's text, token_ids (the decoded ids less <blank>, <s>, </s>) and the
        words with times in the chunk."""
        segment = Segment(0.0, len(wave) / SAMPLE_RATE, "", "", token_ids=[], words=[])
        encoded, alphas = self.encode(self.features(wave))
        cif = self.fire(encoded, alphas)
        if len(cif["rows"]) == 0:
            return segment
        best = np.array(mx.argmax(self.log_probs(cif["rows"], encoded), axis=-1))
        ids = [int(i) for i in best if i not in SPECIAL]
        tokens = [self.tokens[i] for i in ids]
        segment.text, _, _ = sentence(tokens)
        _, words, spans = sentence(tokens, token_times(cif["alphas"], cif["fires"], len(tokens)))
        segment.token_ids = ids
        # funasr's first place may precede the clip (1.5 frames of shift): a word starts at 0 at the earliest
        segment.words = [Word(w, max(0, a) / 1000, max(0, b) / 1000) for w, (a, b) in zip(words, spans)]
        return segment

    def transcribe_chunks(self, waves: Sequence[np.ndarray], options: Sequence) -> list[Segment]:
        """What the engine asks a model without a decoder loop: each chunk recognised on its own."""
        return [self.recognise(wave) for wave in waves]

    def converted_config(self) -> dict:
        """config.json of a converted folder (the converter adds "quantization")."""
        return self.args.to_dict()

    def side_files(self) -> list[Path]:
        """Files a converted folder needs beside its tensors: tokens.json."""
        return [self.tokens_file]

    def sanitize(self, weights: dict[str, mx.array]) -> dict[str, mx.array]:
        """Release names -> module names: the encoder's (funasr_release.encoder_names), the decoder's FSMN
        (fsmn_block -> conv) and every conv to MLX's layout; decoder.embed and ctc.* dropped (training only).
        Idempotent."""
        out = {}
        kernel = self.args.predictor_conf.l_order + self.args.predictor_conf.r_order + 1
        for name, value in encoder_names(weights, self.args.encoder_conf.num_blocks).items():
            if name.startswith(("decoder.embed.", "ctc.")):  # training only (greedy inference reads neither)
                continue
            name = name.replace(".self_attn.fsmn_block.", ".self_attn.conv.")
            if name.startswith("decoder.") and name.endswith("self_attn.conv.weight") and value.shape[1] == 1:
                value = value.transpose(0, 2, 1)  # [C, 1, K] -> [C, K, 1]
            if name == "predictor.cif_conv1d.weight" and value.shape[-1] == kernel != value.shape[1]:
                value = value.transpose(0, 2, 1)  # [out, in, K] -> [out, K, in]
            out[name] = value
        return out


Model, ModelArgs = Paraformer, ParaformerArgs
