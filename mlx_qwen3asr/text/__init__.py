"""Text: the tokenizer, the languages a model can be told, scripts (how pieces join), JSON files."""
