"""The release's tensor names -> this family's module names (model.SenseVoiceSmall.sanitize), idempotent:
a converted folder's names pass unchanged."""

import re

import mlx.core as mx

BLOCK_RENAMES = (
    ("norm1.", "input_layernorm."),
    ("norm2.", "post_attention_layernorm."),
    ("self_attn.linear_out.", "self_attn.o_proj."),
    ("self_attn.fsmn_block.", "self_attn.fsmn.conv."),
    ("feed_forward.w_1.", "mlp.fc1."),
    ("feed_forward.w_2.", "mlp.fc2."),
)


def _block(rest: str) -> str:
    for old, new in BLOCK_RENAMES:
        if rest.startswith(old):
            return new + rest[len(old) :]
    return rest


def module_names(weights: dict[str, mx.array], num_blocks: int) -> dict[str, mx.array]:
    """Release names -> module names (names already in module form pass unchanged: idempotent)."""
    out, last = {}, None
    for name, value in weights.items():
        name = name.removeprefix("module.")
        match = re.match(r"encoder\.(encoders0|encoders|tp_encoders)\.(\d+)\.(.*)", name)
        if match:
            kind, i, rest = match.group(1), int(match.group(2)), match.group(3)
            index = {"encoders0": i, "encoders": i + 1, "tp_encoders": num_blocks + i}[kind]
            last = max(last or 0, index)
            prefix = f"encoder.layers.{index}."
            if rest.startswith("self_attn.linear_q_k_v."):
                suffix = rest.removeprefix("self_attn.linear_q_k_v.")
                for proj, part in zip(("q_proj", "k_proj", "v_proj"), mx.split(value, 3, axis=0)):
                    out[f"{prefix}self_attn.{proj}.{suffix}"] = part
                continue
            name = prefix + _block(rest)
        elif name.startswith("encoder.after_norm."):
            name = f"encoder.layers.{num_blocks - 1}.final_layernorm." + name.removeprefix("encoder.after_norm.")
        if name.endswith("fsmn.conv.weight") and value.ndim == 3 and value.shape[1] == 1 and value.shape[2] > 1:
            value = value.transpose(0, 2, 1)
        out[name] = value
    for name in [n for n in out if n.startswith("encoder.tp_norm.")]:  # the last index is known once all are seen
        out[f"encoder.layers.{last}.final_layernorm." + name.removeprefix("encoder.tp_norm.")] = out.pop(name)
    return out
