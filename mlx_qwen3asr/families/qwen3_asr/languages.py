"""The languages Qwen3-ASR can be told (and detects): the official list, in the official order."""

from ...text.languages import Languages

LANGUAGES = Languages(
    "Qwen3-ASR",
    (
        "Chinese", "English", "Cantonese", "Arabic", "German", "French", "Spanish", "Portuguese",
        "Indonesian", "Italian", "Korean", "Russian", "Thai", "Vietnamese", "Japanese", "Turkish",
        "Hindi", "Malay", "Dutch", "Swedish", "Danish", "Finnish", "Polish", "Czech", "Filipino",
        "Persian", "Greek", "Romanian", "Hungarian", "Macedonian",
    ),
)  # fmt: skip
SUPPORTED_LANGUAGES = LANGUAGES.names
