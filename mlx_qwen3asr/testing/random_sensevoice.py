"""Random-weight SenseVoiceSmall folders in the original FunASR release layout (numpy only: tests make
them at test time; the dev-only golden script runs the same writer in the funasr environment).

    config dict (real_sensevoice_config(): the release's config.yaml values; tiny_sensevoice_config())
      -> configuration.json (file_path_metas: model.pt, config.yaml, the .bpe.model, am.mvn)
      -> config.yaml, model.pt (a torch pickle written without torch: torch_pickle.py; float32 state dict
         in SenseVoiceSmall's module order), am.mvn (Kaldi nnet text: <AddShift> then <Rescale>, 560 values)
      -> chn_jpn_yue_eng_ko_spectok.bpe.model: a SentencePiece ModelProto written field by field, whose
         pieces are <unk> <s> </s>, the tag pieces (<|en|>, <|HAPPY|>, <|Speech|>, <|withitn|>, ...) as
         user-defined symbols, and made-up normal pieces ("▁a", "ab", CJK characters, ...) up to the size.

The real vocabulary is not available here: its size (25,055) and the ids fixed in funasr's code (languages
24884-24896 and 24992, emotions 25001-25004 and 25009, text norms 25016/25017) are kept in the real layout;
the other tag ids and every normal piece are made up. The tiny layout puts the tags at other ids on purpose:
tags are found by their text, never by id.

Scales keep the CTC output varied: He-like std before each ReLU, residual outputs 0.5 / sqrt(fan_in), norms
1 + U(0.1 std), query embeddings of std 1, and a blank bias of +10 so that about half the frames are blank
(as in a trained model), which exercises the collapse.
"""

import copy
import json
import struct
from collections import OrderedDict
from pathlib import Path
from typing import Optional, Union

import numpy as np
import yaml

from .tensors import TensorSpec, tensor_blocks
from .torch_pickle import write_torch_checkpoint

PathLike = Union[str, Path]
BPE_NAME = "chn_jpn_yue_eng_ko_spectok.bpe.model"
REAL_VOCAB = 25055
BLANK_BIAS = 10.0
# the language tags' block in the real vocabulary: funasr fixes zh, en, yue, ja, ko and nospeech there
LANGUAGE_BASE, LANGUAGE_SLOTS = 24884, 109
FIXED_LANGUAGES = {"zh": 0, "en": 1, "yue": 4, "ja": 8, "ko": 12, "nospeech": 108}
OTHER_LANGUAGES = (
    "de es ru fr pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur hr bg lt la mi ml cy sk "
    "te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si km sn yo so af oc ka be tg sd gu am "
    "yi lo uz fo ht ps tk nn mt sa lb my bo tl mg as tt haw ln ha ba jw su"
).split()
EVENTS = ("Speech", "BGM", "Applause", "Laughter", "Cry", "Sneeze", "Breath", "Cough")  # 24993..25000
EMOTIONS = ("HAPPY", "SAD", "ANGRY", "NEUTRAL", "FEARFUL", "DISGUSTED", "SURPRISED", "Speech_Noise", "EMO_UNKNOWN")
LATER_EVENTS = ("Event_UNK", "Sing", "Music", "Cough_Noise", "Noise", "Whisper")  # 25010..25015
TEXT_NORMS = ("withitn", "woitn")  # 25016, 25017

TINY_ENCODER = {"output_size": 64, "attention_heads": 4, "linear_units": 128, "num_blocks": 3, "tp_blocks": 2}
TINY_VOCAB = 600


def real_sensevoice_config() -> dict:
    """config.yaml of the SenseVoiceSmall release (the values that matter; training sections left out)."""
    return {
        "encoder": "SenseVoiceEncoderSmall",
        "encoder_conf": {
            "output_size": 512,
            "attention_heads": 4,
            "linear_units": 2048,
            "num_blocks": 50,
            "tp_blocks": 20,
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
        "model": "SenseVoiceSmall",
        "model_conf": {"length_normalized_loss": True, "sos": 1, "eos": 2, "ignore_id": -1},
        "tokenizer": "SentencepiecesTokenizer",
        "tokenizer_conf": {"bpemodel": None, "unk_symbol": "<unk>", "split_with_space": True},
        "frontend": "WavFrontend",
        "frontend_conf": {
            "fs": 16000,
            "window": "hamming",
            "n_mels": 80,
            "frame_length": 25,
            "frame_shift": 10,
            "lfr_m": 7,
            "lfr_n": 6,
            "cmvn_file": None,
        },
        "vocab_size": REAL_VOCAB,  # not in the release's config.yaml (funasr takes the piece count); read by us
    }


def tiny_sensevoice_config() -> dict:
    config = real_sensevoice_config()
    config["encoder_conf"].update(TINY_ENCODER)
    config["vocab_size"] = TINY_VOCAB
    return config


# --- the vocabulary -------------------------------------------------------------------------------------


def tag_ids(vocab_size: int) -> dict[int, str]:
    """id -> tag piece: the real layout for the real size, another order at the start for any other size."""
    languages = dict(FIXED_LANGUAGES)
    others = iter(OTHER_LANGUAGES)
    for slot in range(LANGUAGE_SLOTS):
        if slot not in languages.values():
            languages[next(others, f"x{slot}")] = slot
    if vocab_size == REAL_VOCAB:
        out = {LANGUAGE_BASE + slot: code for code, slot in languages.items()}
        after = (*EVENTS, *EMOTIONS, *LATER_EVENTS, *TEXT_NORMS)
        out.update({LANGUAGE_BASE + LANGUAGE_SLOTS + i: tag for i, tag in enumerate(after)})
        return {i: f"<|{tag}|>" for i, tag in out.items()}
    order = (*TEXT_NORMS, *reversed(EMOTIONS), *LATER_EVENTS, *EVENTS, *(c for c, _ in sorted(languages.items())))
    return {3 + i: f"<|{tag}|>" for i, tag in enumerate(order[: max(0, vocab_size // 4)])}


def normal_pieces():
    """Made-up normal pieces in a fixed order: letters, word starts, bigrams, CJK, kana, hangul, trigrams."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    yield "\u2581"
    yield from letters
    yield from ("\u2581" + c for c in letters)
    yield from (a + b for a in letters for b in letters)
    yield from ("\u2581" + a + b for a in letters for b in letters)
    yield from (chr(c) for c in range(0x4E00, 0x4E00 + 6000))
    yield from (chr(c) for c in range(0x3041, 0x3097))
    yield from (chr(c) for c in range(0xAC00, 0xAC00 + 3000))
    yield from (a + b + c for a in letters for b in letters for c in letters)


def vocabulary(vocab_size: int) -> list[tuple[str, int]]:
    """(piece, SentencePiece type) for each id: 0 <unk> (the CTC blank), 1 <s>, 2 </s>, tags, normal pieces."""
    tags = tag_ids(vocab_size)
    fill = normal_pieces()
    pieces = [("<unk>", 2), ("<s>", 3), ("</s>", 3)]
    for i in range(3, vocab_size):
        pieces.append((tags[i], 4) if i in tags else (next(fill), 1))
    return pieces


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, payload: Union[bytes, int, float]) -> bytes:
    if isinstance(payload, bytes):
        return _varint(number << 3 | 2) + _varint(len(payload)) + payload
    if isinstance(payload, float):
        return _varint(number << 3 | 5) + struct.pack("<f", payload)
    return _varint(number << 3) + _varint(payload)


def write_sentencepiece(path: PathLike, pieces: list[tuple[str, int]]) -> None:
    """A BPE SentencePiece model (ModelProto: pieces, trainer_spec, normalizer_spec) that
    sentencepiece.SentencePieceProcessor loads; scores decrease with the id, as a trained BPE's do."""
    body = b"".join(
        _field(1, _field(1, text.encode()) + _field(2, -float(i) if kind == 1 else 0.0) + _field(3, kind))
        for i, (text, kind) in enumerate(pieces)
    )
    trainer = _field(3, 2) + _field(4, len(pieces))  # model_type BPE, vocab_size
    normalizer = _field(1, b"identity") + _field(3, 1) + _field(4, 1) + _field(5, 1)
    Path(path).write_bytes(body + _field(2, trainer) + _field(3, normalizer))


# --- weights, CMVN, config -------------------------------------------------------------------------------


def spec_array(spec: TensorSpec, seed: int) -> np.ndarray:
    return np.concatenate(list(tensor_blocks(spec, seed)), axis=0).reshape(spec.shape)


def linear_specs(prefix: str, n_out: int, n_in: int, gain: float = 1.0) -> list[TensorSpec]:
    return [
        TensorSpec(f"{prefix}.weight", (n_out, n_in), gain / np.sqrt(n_in)),
        TensorSpec(f"{prefix}.bias", (n_out,), 0.02),
    ]


def norm_specs(prefix: str, dim: int) -> list[TensorSpec]:
    return [TensorSpec(f"{prefix}.weight", (dim,), 0.1, mean=1.0), TensorSpec(f"{prefix}.bias", (dim,), 0.02)]


def sanm_block_specs(prefix: str, in_dim: int, dim: int, hidden: int, kernel: int) -> list[TensorSpec]:
    """One EncoderLayerSANM in its module order (self_attn, feed_forward, norm1, norm2)."""
    return [
        *linear_specs(f"{prefix}.self_attn.linear_out", dim, dim, 0.5),
        *linear_specs(f"{prefix}.self_attn.linear_q_k_v", 3 * dim, in_dim),
        TensorSpec(f"{prefix}.self_attn.fsmn_block.weight", (dim, 1, kernel), 0.5 / np.sqrt(kernel)),
        *linear_specs(f"{prefix}.feed_forward.w_1", hidden, dim, np.sqrt(2.0)),
        *linear_specs(f"{prefix}.feed_forward.w_2", dim, hidden, 0.5),
        *norm_specs(f"{prefix}.norm1", in_dim),
        *norm_specs(f"{prefix}.norm2", dim),
    ]


def sensevoice_specs(config: dict) -> list[TensorSpec]:
    """All tensors of SenseVoiceSmall's state dict, in its module order (encoder, ctc, embed)."""
    enc = config["encoder_conf"]
    d, hidden, k = enc["output_size"], enc["linear_units"], enc["kernel_size"]
    stacked = config["frontend_conf"]["n_mels"] * config["frontend_conf"]["lfr_m"]
    specs = sanm_block_specs("encoder.encoders0.0", stacked, d, hidden, k)
    for i in range(enc["num_blocks"] - 1):
        specs += sanm_block_specs(f"encoder.encoders.{i}", d, d, hidden, k)
    for i in range(enc["tp_blocks"]):
        specs += sanm_block_specs(f"encoder.tp_encoders.{i}", d, d, hidden, k)
    specs += norm_specs("encoder.after_norm", d) + norm_specs("encoder.tp_norm", d)
    specs += linear_specs("ctc.ctc_lo", config["vocab_size"], d, 3.0)
    return specs + [TensorSpec("embed.weight", (16, stacked), 1.0)]


def state_dict(config: dict, seed: int) -> "OrderedDict[str, np.ndarray]":
    state = OrderedDict((spec.name, spec_array(spec, seed)) for spec in sensevoice_specs(config))
    state["ctc.ctc_lo.bias"][0] += np.float32(BLANK_BIAS)
    return state


def write_cmvn(path: PathLike, dim: int, seed: int) -> None:
    """am.mvn as the release writes it: shift about minus the mean of a log-mel of 32768-scaled audio, scale
    about one over its spread."""
    rng = np.random.default_rng([seed, 560])
    shift, scale = rng.uniform(-16.0, -8.0, dim), rng.uniform(0.15, 0.35, dim)

    def row(values: np.ndarray) -> str:
        return "<LearnRateCoef> 0 [ " + " ".join(f"{v:.6f}" for v in values) + " ]"

    lines = ["<Nnet>", f"<Splice> {dim} {dim}", "[ 0 ]", f"<AddShift> {dim} {dim}", row(shift)]
    lines += [f"<Rescale> {dim} {dim}", row(scale), "</Nnet>"]
    Path(path).write_text("\n".join(lines) + "\n")


def write_random_sensevoice(out_dir: PathLike, config: Optional[dict] = None, *, seed: int = 0) -> Path:
    """A SenseVoiceSmall release folder with random weights (default: tiny_sensevoice_config()) that funasr's
    AutoModel(model=folder) builds and our `load` reads; returns the folder."""
    config = copy.deepcopy(config) if config is not None else tiny_sensevoice_config()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    dim = config["frontend_conf"]["n_mels"] * config["frontend_conf"]["lfr_m"]
    metas = {
        "init_param": "model.pt",
        "config": "config.yaml",
        "tokenizer_conf": {"bpemodel": BPE_NAME},
        "frontend_conf": {"cmvn_file": "am.mvn"},
    }
    configuration = {"framework": "pytorch", "task": "auto-speech-recognition", "model": {"type": "funasr"}}
    configuration.update({"pipeline": {"type": "funasr-pipeline"}, "file_path_metas": metas})
    (out / "configuration.json").write_text(json.dumps(configuration, indent=2) + "\n")
    yaml_config = {k: v for k, v in config.items() if k != "vocab_size"}
    (out / "config.yaml").write_text(yaml.safe_dump(yaml_config, sort_keys=False))
    write_sentencepiece(out / BPE_NAME, vocabulary(config["vocab_size"]))
    write_cmvn(out / "am.mvn", dim, seed)
    write_torch_checkpoint(state_dict(config, seed), out / "model.pt")
    return out
