"""Qwen3-ASR's two tensor layouts: the official one (`thinker.*`) and transformers' "-hf" one, as prefix
pairs (the aligner's checkpoints use them too)."""

# The same tensors under their "-hf" (transformers-native) and official names, as prefix pairs;
# the more specific prefixes come first, so a name is renamed by its first match in either direction.
HF_LAYOUT_RENAMES = (
    ("model.language_model.", "thinker.model."),
    ("model.multi_modal_projector.linear_1.", "thinker.audio_tower.proj1."),
    ("model.multi_modal_projector.linear_2.", "thinker.audio_tower.proj2."),
    ("model.audio_tower.", "thinker.audio_tower."),
    ("lm_head.", "thinker.lm_head."),
)


def official_name(name: str) -> str:
    """ "-hf" tensor name -> official name; official names pass through."""
    for hf, official in HF_LAYOUT_RENAMES:
        if name.startswith(hf):
            return official + name[len(hf) :]
    return name


def hf_name(name: str) -> str:
    """Official tensor name -> "-hf" name."""
    for hf, official in HF_LAYOUT_RENAMES:
        if name.startswith(official):
            return hf + name[len(official) :]
    raise ValueError(f"no -hf name for {name}")
