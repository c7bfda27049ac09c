"""SenseVoiceSmall's configuration: the release's config.yaml sections, the same in a converted folder's config.json.

    {"model_type": "sensevoice_small",                         (config.json only; config.yaml names "model")
     "encoder_conf": {output_size 512, attention_heads 4, linear_units 2048, num_blocks 50, tp_blocks 20,
                      kernel_size 11, sanm_shfit 0, normalize_before true, ...},
     "frontend_conf": {fs 16000, window hamming, n_mels 80, frame_length 25, frame_shift 10, lfr_m 7, lfr_n 6},
     "vocab_size": 25055, "cmvn": true, ["quantization": {...}]}
The release's config.yaml has no vocab_size (funasr counts the .bpe.model's pieces) and says nothing of
CMVN (its configuration.json names am.mvn): the release reader (release.py) adds both.

The encoder is the SAN-M encoder Fun-ASR-Nano holds: num_blocks + tp_blocks layers, the first 560 -> 512,
`after_norm` closing block num_blocks - 1 and `tp_norm` the last.
"""

from dataclasses import dataclass
from typing import Any, Optional

from ...layers.sanm import EncoderArgs
from ...text.jsonfile import REDOWNLOAD
from ..funasr_release import SUPPORTED_FRONTEND, FrontendConf
from ..funasr_release import EncoderConf as SANMEncoderConf

MODEL_TYPE = "sensevoice_small"
NO_POSITION_LIMIT = 1 << 20  # the sinusoid is computed for any length: the limit is memory (model.chunk_seconds)


@dataclass
class EncoderConf(SANMEncoderConf):
    tp_blocks: int = 0  # the timestamp-prediction blocks (20 in the release): from_dict refuses fewer than 1


@dataclass
class SenseVoiceArgs:
    encoder_conf: EncoderConf
    frontend_conf: FrontendConf
    vocab_size: int
    cmvn: bool = True  # am.mvn applied after LFR (the release's configuration.json names it)
    quantization: Optional[dict[str, Any]] = None

    @property
    def encoder(self) -> EncoderArgs:
        """The shared SAN-M encoder's args."""
        conf = self.encoder_conf
        return EncoderArgs(
            hidden_size=conf.output_size,
            num_hidden_layers=conf.num_blocks + conf.tp_blocks,
            num_attention_heads=conf.attention_heads,
            intermediate_size=conf.linear_units,
            num_mel_bins=self.frontend_conf.n_mels,
            num_stacked_frames=self.frontend_conf.lfr_m,
            num_timestamp_prediction_layers=conf.tp_blocks,
            fsmn_kernel_size=conf.kernel_size,
            max_position_embeddings=NO_POSITION_LIMIT,
        )

    @property
    def input_size(self) -> int:
        return self.frontend_conf.n_mels * self.frontend_conf.lfr_m

    @classmethod
    def from_dict(cls, config: dict[str, Any]) -> "SenseVoiceArgs":
        for key in ("encoder_conf", "frontend_conf"):
            if not isinstance(config.get(key), dict):
                raise ValueError(f"{key} is missing: {REDOWNLOAD}")
        vocab = config.get("vocab_size")
        if isinstance(vocab, bool) or not isinstance(vocab, int) or vocab < 2:
            raise ValueError(f"vocab_size must be the number of CTC classes, got {vocab!r}: {REDOWNLOAD}")
        args = cls(
            encoder_conf=EncoderConf.from_dict(config["encoder_conf"], "encoder_conf"),
            frontend_conf=FrontendConf.from_dict(config["frontend_conf"], "frontend_conf"),
            vocab_size=vocab,
            cmvn=bool(config.get("cmvn", True)),
            quantization=config.get("quantization"),
        )
        conf = args.encoder_conf
        if conf.sanm_shfit != 0 or not conf.normalize_before or conf.tp_blocks < 1 or conf.num_blocks < 1:
            raise ValueError(
                "encoder_conf: only sanm_shfit 0, normalize_before true and at least one block and one tp block "
                f"are supported (SenseVoiceSmall's), got {conf}"
            )
        if args.frontend_conf != SUPPORTED_FRONTEND:
            raise ValueError(
                f"frontend_conf must be SenseVoiceSmall's ({SUPPORTED_FRONTEND}), got {args.frontend_conf}"
            )
        return args

    def to_dict(self) -> dict[str, Any]:
        """config.json of a converted folder (quantization added by the converter)."""
        from dataclasses import asdict

        return {
            "model_type": MODEL_TYPE,
            "encoder_conf": asdict(self.encoder_conf),
            "frontend_conf": asdict(self.frontend_conf),
            "vocab_size": self.vocab_size,
            "cmvn": self.cmvn,
        }
