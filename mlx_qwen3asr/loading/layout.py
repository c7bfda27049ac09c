"""What a model folder holds: the files a conversion copies and a hub download fetches (each family adds
its own: registry.download_patterns). The loader, the converter and the random-checkpoint writer read
these facts from here."""

from ..text.tokenizer import TOKENIZER_FILES

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
