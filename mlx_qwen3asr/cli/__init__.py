"""The command lines: mlx-qwen3asr (main.py, its flags in parser.py) and mlx-qwen3asr-convert (convert.py)."""
