"""Random-weight Paraformer folders in the original FunASR release layout (numpy only: tests make them at test
time; the dev-only golden script runs the same writer in the funasr environment).

    config dict (real_paraformer_config(): the release's config.yaml; tiny_paraformer_config())
      -> configuration.json (file_path_metas: model.pt, config.yaml, tokens.json, seg_dict, am.mvn)
      -> config.yaml, model.pt (a torch pickle written without torch: torch_pickle.py; float32 state dict in
         funasr's Paraformer module order: encoder, decoder (embed, after_norm, output_layer, decoders,
         decoders3), predictor), am.mvn (random_sensevoice.write_cmvn), tokens.json, seg_dict

The real config.yaml of speech_paraformer-large_asr_nat-zh-cn-16k-common-vocab8404-pytorch is written here by
hand (no download): the sizes are the issue's (encoder 512 x 50 blocks, 4 heads, 2048 units, kernel 11,
sanm_shfit 0, input layer pe; decoder 4 heads, 2048 units, 16 blocks, kernel 11; CifPredictorV2 idim 512,
threshold 1.0, l_order 1, r_order 1, tail_threshold 0.45; vocabulary 8404), the decoder's att_layer_num 16 and
sanm_shfit 0 make all 16 blocks cross-attend as Paraformer-large's do, model_conf is the release's training
section (ctc_weight 0.0: no CTC head in model.pt), dropouts are the release's 0.1 (inert at inference), and the
frontend is the WavFrontend SenseVoiceSmall's release uses (funasr's defaults for lfr 7/6, 80 mels).

tokens.json: <blank> <s> </s>, then made-up tokens (CJK characters, English words and "@@" pieces, single
letters, digits), the last <unk>; the real file holds 8404 such strings. Scales keep the decoder's argmax
varied and the alphas near 0.5 (about 8 tokens a second, as the issue measures funasr's random init).
"""

import copy
import json
from collections import OrderedDict
from pathlib import Path
from typing import Optional, Union

import numpy as np
import yaml

from .random_sensevoice import linear_specs, norm_specs, sanm_block_specs, spec_array, write_cmvn
from .tensors import TensorSpec
from .torch_pickle import write_torch_checkpoint

PathLike = Union[str, Path]
REAL_VOCAB = 8404
TINY_VOCAB = 300
SPECIALS = ("<blank>", "<s>", "</s>")
UNKNOWN = "<unk>"
WORDS = ("hello", "world", "the", "qu@@", "ick", "bro@@", "wn", "fox", "ok", "mlx", "asr", "it's", "@@")


def real_paraformer_config() -> dict:
    """config.yaml of the Paraformer-large release (the values that matter; specaug and training sections left out)."""
    return {
        "encoder": "SANMEncoder",
        "encoder_conf": {
            "output_size": 512,
            "attention_heads": 4,
            "linear_units": 2048,
            "num_blocks": 50,
            "dropout_rate": 0.1,
            "positional_dropout_rate": 0.1,
            "attention_dropout_rate": 0.1,
            "input_layer": "pe",
            "pos_enc_class": "SinusoidalPositionEncoder",
            "normalize_before": True,
            "kernel_size": 11,
            "sanm_shfit": 0,
            "selfattention_layer_type": "sanm",
        },
        "decoder": "ParaformerSANMDecoder",
        "decoder_conf": {
            "attention_heads": 4,
            "linear_units": 2048,
            "num_blocks": 16,
            "dropout_rate": 0.1,
            "positional_dropout_rate": 0.1,
            "self_attention_dropout_rate": 0.1,
            "src_attention_dropout_rate": 0.1,
            "att_layer_num": 16,
            "kernel_size": 11,
            "sanm_shfit": 0,
        },
        "predictor": "CifPredictorV2",
        "predictor_conf": {"idim": 512, "threshold": 1.0, "l_order": 1, "r_order": 1, "tail_threshold": 0.45},
        "model": "Paraformer",
        "model_conf": {
            "ctc_weight": 0.0,
            "lsm_weight": 0.1,
            "length_normalized_loss": True,
            "predictor_weight": 1.0,
            "predictor_bias": 1,
            "sampling_ratio": 0.75,
        },
        "tokenizer": "CharTokenizer",
        "tokenizer_conf": {"unk_symbol": UNKNOWN, "split_with_space": True},
        "frontend": "WavFrontend",
        "frontend_conf": {
            "fs": 16000,
            "window": "hamming",
            "n_mels": 80,
            "frame_length": 25,
            "frame_shift": 10,
            "lfr_m": 7,
            "lfr_n": 6,
        },
        "vocab_size": REAL_VOCAB,  # not in the release's config.yaml (funasr counts tokens.json); read by us
    }


def tiny_paraformer_config() -> dict:
    config = real_paraformer_config()
    config["encoder_conf"].update(output_size=64, linear_units=128, num_blocks=3)
    config["decoder_conf"].update(linear_units=96, num_blocks=2, att_layer_num=2)
    config["predictor_conf"]["idim"] = 64
    config["vocab_size"] = TINY_VOCAB
    return config


def tokens(vocab_size: int) -> list[str]:
    """<blank> <s> </s>, made-up tokens in a fixed order, <unk> last: vocab_size strings."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    made_up = [*WORDS, *letters, *"0123456789"]
    made_up += [chr(c) for c in range(0x4E00, 0x4E00 + vocab_size)]
    return [*SPECIALS, *made_up[: vocab_size - len(SPECIALS) - 1], UNKNOWN]


def decoder_specs(d: int, hidden: int, blocks: int, kernel: int, vocab: int) -> list[TensorSpec]:
    """ParaformerSANMDecoder's tensors in its module order."""
    specs = [TensorSpec("decoder.embed.0.weight", (vocab, d), 1.0)]
    specs += norm_specs("decoder.after_norm", d) + linear_specs("decoder.output_layer", vocab, d, 3.0)

    def feed_forward(prefix: str) -> list[TensorSpec]:
        return [
            *linear_specs(f"{prefix}.feed_forward.w_1", hidden, d, np.sqrt(2.0)),
            TensorSpec(f"{prefix}.feed_forward.w_2.weight", (d, hidden), 0.5 / np.sqrt(hidden)),
            *norm_specs(f"{prefix}.feed_forward.norm", hidden),
        ]

    for i in range(blocks):
        prefix = f"decoder.decoders.{i}"
        specs.append(TensorSpec(f"{prefix}.self_attn.fsmn_block.weight", (d, 1, kernel), 0.5 / np.sqrt(kernel)))
        specs += linear_specs(f"{prefix}.src_attn.linear_q", d, d) + linear_specs(
            f"{prefix}.src_attn.linear_k_v", 2 * d, d
        )
        specs += linear_specs(f"{prefix}.src_attn.linear_out", d, d, 0.5) + feed_forward(prefix)
        specs += norm_specs(f"{prefix}.norm1", d) + norm_specs(f"{prefix}.norm2", d) + norm_specs(f"{prefix}.norm3", d)
    return specs + feed_forward("decoder.decoders3.0") + norm_specs("decoder.decoders3.0.norm1", d)


def paraformer_specs(config: dict) -> list[TensorSpec]:
    """All tensors of Paraformer's state dict, in its module order (encoder, decoder, predictor)."""
    enc, dec, pred = config["encoder_conf"], config["decoder_conf"], config["predictor_conf"]
    d, k = enc["output_size"], enc["kernel_size"]
    stacked = config["frontend_conf"]["n_mels"] * config["frontend_conf"]["lfr_m"]
    specs = sanm_block_specs("encoder.encoders0.0", stacked, d, enc["linear_units"], k)
    for i in range(enc["num_blocks"] - 1):
        specs += sanm_block_specs(f"encoder.encoders.{i}", d, d, enc["linear_units"], k)
    specs += norm_specs("encoder.after_norm", d)
    specs += decoder_specs(d, dec["linear_units"], dec["num_blocks"], dec["kernel_size"], config["vocab_size"])
    width = pred["l_order"] + pred["r_order"] + 1
    specs += [TensorSpec("predictor.cif_conv1d.weight", (d, d, width), 1.0 / np.sqrt(d * width))]
    specs.append(TensorSpec("predictor.cif_conv1d.bias", (d,), 0.02))
    return specs + linear_specs("predictor.cif_output", 1, d, 1.0)


def state_dict(config: dict, seed: int) -> "OrderedDict[str, np.ndarray]":
    return OrderedDict((spec.name, spec_array(spec, seed)) for spec in paraformer_specs(config))


def write_random_paraformer(out_dir: PathLike, config: Optional[dict] = None, *, seed: int = 0) -> Path:
    """A Paraformer release folder with random weights (default: tiny_paraformer_config()) that funasr's
    AutoModel(model=folder) builds and our `load` reads; returns the folder."""
    config = copy.deepcopy(config) if config is not None else tiny_paraformer_config()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    metas = {
        "init_param": "model.pt",
        "config": "config.yaml",
        "tokenizer_conf": {"token_list": "tokens.json", "seg_dict_file": "seg_dict"},
        "frontend_conf": {"cmvn_file": "am.mvn"},
    }
    configuration = {"framework": "pytorch", "task": "auto-speech-recognition", "model": {"type": "funasr"}}
    configuration.update({"pipeline": {"type": "funasr-pipeline"}, "file_path_metas": metas})
    (out / "configuration.json").write_text(json.dumps(configuration, indent=2) + "\n")
    yaml_config = {k: v for k, v in config.items() if k != "vocab_size"}
    (out / "config.yaml").write_text(yaml.safe_dump(yaml_config, sort_keys=False))
    vocabulary = tokens(config["vocab_size"])
    (out / "tokens.json").write_text(json.dumps(vocabulary, ensure_ascii=False, indent=4) + "\n", encoding="utf-8")
    seg = [f"{t} {t}" for t in vocabulary[len(SPECIALS) : -1] if "@@" not in t and t.isalpha()][:50]
    (out / "seg_dict").write_text("\n".join(seg) + "\n", encoding="utf-8")
    write_cmvn(out / "am.mvn", config["frontend_conf"]["n_mels"] * config["frontend_conf"]["lfr_m"], seed)
    write_torch_checkpoint(state_dict(config, seed), out / "model.pt")
    return out
