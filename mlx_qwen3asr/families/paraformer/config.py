"""Paraformer's configuration: the release's config.yaml sections, the same in a converted folder's config.json.

    {"model_type": "paraformer",                                (config.json only; config.yaml names "model")
     "encoder_conf": {output_size 512, attention_heads 4, linear_units 2048, num_blocks 50, kernel_size 11,
                      sanm_shfit 0, normalize_before true, input_layer pe, ...},
     "decoder_conf": {attention_heads 4, linear_units 2048, num_blocks 16, att_layer_num 16, kernel_size 11,
                      sanm_shfit 0},
     "predictor_conf": {idim 512, threshold 1.0, l_order 1, r_order 1, tail_threshold 0.45},
     "frontend_conf": {fs 16000, window hamming, n_mels 80, frame_length 25, frame_shift 10, lfr_m 7, lfr_n 6},
     "vocab_size": 8404, "cmvn": true, ["quantization": {...}]}
The release's config.yaml has no vocab_size (funasr counts tokens.json) and says nothing of CMVN (its
configuration.json names am.mvn): the release reader (release.py) adds both. Values other than
Paraformer-large's where its code would run another path (an encoder shift, decoder layers without
cross-attention, a CIF threshold other than 1) are refused in one line.
"""

from dataclasses import asdict, dataclass
from typing import Any, Optional

from ...layers.config import BaseArgs
from ...layers.sanm import EncoderArgs
from ...layers.sanm_decoder import DecoderArgs
from ...text.jsonfile import REDOWNLOAD
from ..funasr_release import SUPPORTED_FRONTEND, EncoderConf, FrontendConf

MODEL_TYPE = "paraformer"
NO_POSITION_LIMIT = 1 << 20  # the sinusoid is computed for any length: the limit is memory (model.chunk_seconds)
LAYER_NORM_EPS = 1e-12  # funasr's LayerNorm (transformer/layer_norm.py), in the encoder and the decoder


@dataclass
class DecoderConf(BaseArgs):
    attention_heads: int = 4
    linear_units: int = 2048
    num_blocks: int = 6  # funasr's ParaformerSANMDecoder defaults
    att_layer_num: int = 6
    kernel_size: int = 21
    sanm_shfit: int = 0


@dataclass
class PredictorConf(BaseArgs):
    idim: int
    l_order: int
    r_order: int
    threshold: float = 1.0
    tail_threshold: float = 0.0
    smooth_factor: float = 1.0
    noise_threshold: float = 0.0


@dataclass
class ParaformerArgs:
    encoder_conf: EncoderConf
    decoder_conf: DecoderConf
    predictor_conf: PredictorConf
    frontend_conf: FrontendConf
    vocab_size: int
    cmvn: bool = True  # am.mvn applied after LFR (the release's configuration.json names it)
    quantization: Optional[dict[str, Any]] = None

    @property
    def encoder(self) -> EncoderArgs:
        conf = self.encoder_conf
        return EncoderArgs(
            hidden_size=conf.output_size,
            num_hidden_layers=conf.num_blocks,
            num_attention_heads=conf.attention_heads,
            intermediate_size=conf.linear_units,
            num_mel_bins=self.frontend_conf.n_mels,
            num_stacked_frames=self.frontend_conf.lfr_m,
            num_timestamp_prediction_layers=0,  # after_norm closes the last block
            fsmn_kernel_size=conf.kernel_size,
            max_position_embeddings=NO_POSITION_LIMIT,
            layer_norm_eps=LAYER_NORM_EPS,
        )

    @property
    def decoder(self) -> DecoderArgs:
        conf = self.decoder_conf
        return DecoderArgs(
            hidden_size=self.encoder_conf.output_size,
            num_hidden_layers=conf.num_blocks,
            num_attention_heads=conf.attention_heads,
            intermediate_size=conf.linear_units,
            fsmn_kernel_size=conf.kernel_size,
            vocab_size=self.vocab_size,
            layer_norm_eps=LAYER_NORM_EPS,
        )

    @classmethod
    def from_dict(cls, config: dict[str, Any]) -> "ParaformerArgs":
        for key in ("encoder_conf", "decoder_conf", "predictor_conf", "frontend_conf"):
            if not isinstance(config.get(key), dict):
                raise ValueError(f"{key} is missing: {REDOWNLOAD}")
        vocab = config.get("vocab_size")
        if isinstance(vocab, bool) or not isinstance(vocab, int) or vocab < 4:
            raise ValueError(f"vocab_size must be the number of tokens, got {vocab!r}: {REDOWNLOAD}")
        args = cls(
            encoder_conf=EncoderConf.from_dict(config["encoder_conf"], "encoder_conf"),
            decoder_conf=DecoderConf.from_dict(config["decoder_conf"], "decoder_conf"),
            predictor_conf=PredictorConf.from_dict(config["predictor_conf"], "predictor_conf"),
            frontend_conf=FrontendConf.from_dict(config["frontend_conf"], "frontend_conf"),
            vocab_size=vocab,
            cmvn=bool(config.get("cmvn", True)),
            quantization=config.get("quantization"),
        )
        args.check()
        return args

    def check(self) -> None:
        enc, dec, pred = self.encoder_conf, self.decoder_conf, self.predictor_conf
        refusals = [
            ("encoder_conf", "input_layer pe, sanm_shfit 0, normalize_before true, num_blocks >= 1", enc,
             enc.input_layer == "pe" and enc.sanm_shfit == 0 and enc.normalize_before and enc.num_blocks >= 1),
            ("decoder_conf", "sanm_shfit 0 and att_layer_num == num_blocks", dec,
             dec.sanm_shfit == 0 and dec.att_layer_num == dec.num_blocks >= 1),
            ("predictor_conf", "threshold 1.0 (funasr's cif_v1 fires at whole numbers) and idim = output_size", pred,
             pred.threshold == 1.0 and pred.idim == enc.output_size),
        ]  # fmt: skip
        for section, supported, got, ok in refusals:
            if not ok:
                raise ValueError(f"{section}: only {supported} are supported (Paraformer-large's), got {got}")
        if self.frontend_conf != SUPPORTED_FRONTEND:
            raise ValueError(
                f"frontend_conf must be Paraformer-large's ({SUPPORTED_FRONTEND}), got {self.frontend_conf}"
            )

    def to_dict(self) -> dict[str, Any]:
        """config.json of a converted folder (quantization added by the converter)."""
        return {
            "model_type": MODEL_TYPE,
            **{key: asdict(getattr(self, key)) for key in ("encoder_conf", "decoder_conf", "predictor_conf")},
            "frontend_conf": asdict(self.frontend_conf),
            "vocab_size": self.vocab_size,
            "cmvn": self.cmvn,
        }
