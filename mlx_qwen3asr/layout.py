"""What a model folder holds: the file names, and the tensor names of the transformers "-hf" layout.

A leaf (stdlib only): the loader, the converter, the tokenizer and the random-checkpoint writer
all read these facts from here.
"""

TOKENIZER_FILES = ("vocab.json", "merges.txt", "tokenizer_config.json")  # what Tokenizer.from_dir needs
# Copied next to the weights by the converter (when present in the source).
SIDE_FILES = (
    *TOKENIZER_FILES,
    "tokenizer.json",
    "chat_template.json",
    "generation_config.json",
    "preprocessor_config.json",
    "processor_config.json",  # transformers 5 "-hf" folders (Fun-ASR-Nano): the audio token, the front end
)
# What a hub download fetches: config, weights (single or sharded with their index) and side files.
DOWNLOAD_PATTERNS = ("config.json", "model.safetensors.index.json", "*.safetensors", *SIDE_FILES)

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
