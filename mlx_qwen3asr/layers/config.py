"""The shared parts of every family's configuration: `BaseArgs.from_dict` (one checked reader of a
config.json section) and `TextArgs`, the sizes of the Qwen3 decoder both recognisers hold.
Each family's own args live in its folder (families/qwen3_asr/config.py, families/fun_asr_nano/config.py, families/aligner/model.py)."""

import dataclasses
from dataclasses import dataclass
from typing import Any

from ..text.jsonfile import REDOWNLOAD

# What each annotated type accepts from JSON: bool is an int in Python but never a size here,
# and a float field takes an integer (config.json writes 1000000 for rope_theta).
_JSON_TYPES = {int: (int,), float: (int, float), bool: (bool,), str: (str,)}
_TYPE_NAMES = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}


@dataclass
class BaseArgs:
    @classmethod
    def from_dict(cls, params: dict[str, Any], section: str = ""):
        """The fields of `cls` from `params` (other keys ignored); a missing required key or a
        value of the wrong type raises ValueError naming `section.key`. A null value means "not given"."""
        if not isinstance(params, dict):
            raise ValueError(f"{section or cls.__name__} must be an object, got {params!r}: {REDOWNLOAD}")
        values = {}
        for f in dataclasses.fields(cls):
            key = f"{section}.{f.name}" if section else f.name
            value = params.get(f.name)
            if value is None:
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                    raise ValueError(f"{key} is missing: {REDOWNLOAD}")
                continue
            accepted = _JSON_TYPES.get(f.type)
            if accepted and (not isinstance(value, accepted) or (f.type is not bool and isinstance(value, bool))):
                raise ValueError(f"{key} must be {_TYPE_NAMES[f.type]}, got {value!r}: correct it, or {REDOWNLOAD}")
            values[f.name] = value
        return cls(**values)


@dataclass
class TextArgs(BaseArgs):
    hidden_size: int
    num_hidden_layers: int
    intermediate_size: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    vocab_size: int
    rms_norm_eps: float = 1e-6
    rope_theta: float = 1_000_000.0
    tie_word_embeddings: bool = True
    attention_bias: bool = False
    max_position_embeddings: int = 65536
