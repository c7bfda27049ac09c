"""The official side of scripts/bench/vs_official.py, run as a worker in its own torch environment.

    python -m scripts.bench.workers.official CHECKPOINT --threads 2
        (started by the driver from the repository root; needs torch + qwen-asr)
    -> ready: {"side": "official", "dtypes": ["torch.float32"], "prefill_tokens": n, "torch": version,
               "threads": n}; it refuses to start unless every parameter really is float32
    -> requests, the same as our side's (ours.py):
       encoder(seconds)            processor (log-mel) + get_audio_features        -> seconds
       prefill(head)               thinker.model over the 10 s prompt's embeddings, then lm_head
                                   over the last position ("last", our way) or all ("all", its way)
       decode(tokens, way)         way "step": its thinker stepped on its KV cache (a bare loop like
                                   ours); way "generate": (generate(tokens) - generate(1)) / (tokens - 1)
       end_to_end(seconds, tokens) processor + generate(exactly `tokens` tokens) + decode to text

torch never enters the project's own processes. The encoder runs as shipped: on the CPU it attends
across the whole clip, not within 104-token windows (QwenLM/Qwen3-ASR issue 213): the same result
below 8 s, more work above.
"""

import argparse
import sys
import time
import types

import torch

from scripts.bench.clips import clip
from scripts.bench.workers.protocol import PROMPT_SECONDS, serve


class Official:
    def __init__(self, checkpoint: str):
        if "nagisa" not in sys.modules:  # imported by the unused forced aligner; needs DyNet
            sys.modules["nagisa"] = types.ModuleType("nagisa")
        import qwen_asr

        self.asr = qwen_asr.Qwen3ASRModel.from_pretrained(checkpoint, dtype=torch.float32)
        self.asr.model.eval()
        self.thinker = self.asr.model.thinker
        dtypes = {p.dtype for p in self.asr.model.parameters()}
        if dtypes != {torch.float32}:
            raise SystemExit(f"official weights are {sorted(map(str, dtypes))}, not float32: not the same work")
        with torch.inference_mode():
            self.inputs = self._inputs(clip(PROMPT_SECONDS))
            self.embeddings = self._prompt_embeddings(self.inputs)

    def _inputs(self, wave) -> dict:
        text = self.asr._build_text_prompt(context="", force_language=None)
        return self.asr.processor(text=[text], audio=[wave], return_tensors="pt", padding=True).to(torch.float32)

    def _audio_features(self, wave) -> torch.Tensor:
        inputs = self._inputs(wave)
        return self.thinker.get_audio_features(
            inputs["input_features"], feature_attention_mask=inputs["feature_attention_mask"]
        )

    def _prompt_embeddings(self, inputs: dict) -> torch.Tensor:
        features = self._audio_features(clip(PROMPT_SECONDS))
        embeds = self.thinker.get_input_embeddings()(inputs["input_ids"])
        is_audio = inputs["input_ids"][0] == self.thinker.config.audio_token_id
        embeds[0, is_audio] = features.to(embeds.dtype)
        return embeds

    def ready(self) -> dict:
        return {
            "side": "official",
            "dtypes": ["float32"],
            "prefill_tokens": int(self.embeddings.shape[1]),
            "torch": torch.__version__,
            "threads": torch.get_num_threads(),
        }

    @torch.inference_mode()
    def encoder(self, seconds: float) -> dict:
        wave = clip(seconds)
        start = time.perf_counter()
        self._audio_features(wave)
        return {"seconds": time.perf_counter() - start}

    @torch.inference_mode()
    def prefill(self, head: str) -> dict:
        start = time.perf_counter()
        hidden = self.thinker.model(inputs_embeds=self.embeddings, use_cache=True).last_hidden_state
        self.thinker.lm_head(hidden[:, -1:] if head == "last" else hidden)
        return {"seconds": time.perf_counter() - start}

    @torch.inference_mode()
    def decode(self, tokens: int, way: str = "step") -> dict:
        if way == "generate":
            one, many = self._generate_seconds(1), self._generate_seconds(tokens)
            return {"ms_per_token": 1000 * (many - one) / (tokens - 1)}
        out = self.thinker.model(inputs_embeds=self.embeddings, use_cache=True)
        cache = out.past_key_values
        token = self.thinker.lm_head(out.last_hidden_state[:, -1:]).argmax(-1)
        start = time.perf_counter()
        for _ in range(tokens):
            out = self.thinker.model(
                inputs_embeds=self.thinker.get_input_embeddings()(token), past_key_values=cache, use_cache=True
            )
            token = self.thinker.lm_head(out.last_hidden_state[:, -1:]).argmax(-1)
            token.item()  # the next step needs the token on the host, as in any greedy loop
        return {"ms_per_token": 1000 * (time.perf_counter() - start) / tokens}

    def _generate_seconds(self, tokens: int) -> float:
        start = time.perf_counter()
        self.asr.model.generate(**self.inputs, max_new_tokens=tokens, min_new_tokens=tokens, do_sample=False)
        return time.perf_counter() - start

    @torch.inference_mode()
    def end_to_end(self, seconds: float, tokens: int) -> dict:
        start = time.perf_counter()
        inputs = self._inputs(clip(seconds))
        out = self.asr.model.generate(**inputs, max_new_tokens=tokens, min_new_tokens=tokens, do_sample=False)
        new = out.sequences[:, inputs["input_ids"].shape[1] :]
        text = self.asr.processor.batch_decode(new, skip_special_tokens=True)[0]
        return {"seconds": time.perf_counter() - start, "tokens": int(new.shape[1]), "chars": len(text)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint")
    parser.add_argument("--threads", type=int, required=True)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    side = Official(args.checkpoint)
    serve(side, side.ready())


if __name__ == "__main__":
    main()
