"""The official Fun-ASR-Nano side of scripts/bench/vs_official.py (--family fun-asr-nano), a worker in its
own torch environment (transformers >= 5.17: FunAsrNanoProcessor + FunAsrNanoForConditionalGeneration).

    python -m scripts.bench.workers.official_funasr CHECKPOINT --threads 2   (started by the driver)
    -> ready: {"side": "official", "dtypes": ["float32"], "prefill_tokens": n, "torch": version, "threads": n}
    -> requests, the same as our side's (ours.py):
       encoder(seconds)            feature extractor (fbank + LFR) + get_audio_features (encoder, adaptor)
       prefill(head)               language model over the 10 s prompt's embeddings, then lm_head over
                                   the last position ("last") or all ("all")
       decode(tokens, way)         "step": the language model stepped on its KV cache (a bare loop like
                                   ours); "generate": (generate(tokens) - generate(1)) / (tokens - 1)
       end_to_end(seconds, tokens) processor + generate(exactly `tokens` tokens) + decode to text
"""

import argparse
import time

import torch
from transformers import AutoProcessor, FunAsrNanoForConditionalGeneration

from scripts.bench.clips import clip
from scripts.bench.workers.protocol import PROMPT_SECONDS, serve


class Official:
    def __init__(self, checkpoint: str):
        self.processor = AutoProcessor.from_pretrained(checkpoint)
        self.model = FunAsrNanoForConditionalGeneration.from_pretrained(checkpoint, dtype=torch.float32).eval()
        dtypes = {p.dtype for p in self.model.parameters()}
        if dtypes != {torch.float32}:
            raise SystemExit(f"official weights are {sorted(map(str, dtypes))}, not float32: not the same work")
        self.language_model = self.model.model.language_model
        with torch.inference_mode():
            self.inputs = self._inputs(clip(PROMPT_SECONDS))
            self.embeddings = self._prompt_embeddings(self.inputs)

    def _inputs(self, wave) -> dict:
        return self.processor.apply_transcription_request(audio=wave)

    def _audio_features(self, inputs: dict) -> torch.Tensor:
        out = self.model.get_audio_features(inputs["input_features"], inputs["input_features_mask"])
        return out.pooler_output

    def _prompt_embeddings(self, inputs: dict) -> torch.Tensor:
        embeds = self.model.get_input_embeddings()(inputs["input_ids"])
        is_audio = inputs["input_ids"][0] == self.model.config.audio_token_id
        embeds[0, is_audio] = self._audio_features(inputs).to(embeds.dtype)
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
        self._audio_features(self.processor.feature_extractor(wave, sampling_rate=16000, return_tensors="pt"))
        return {"seconds": time.perf_counter() - start}

    @torch.inference_mode()
    def prefill(self, head: str) -> dict:
        start = time.perf_counter()
        hidden = self.language_model(inputs_embeds=self.embeddings, use_cache=True).last_hidden_state
        self.model.lm_head(hidden[:, -1:] if head == "last" else hidden)
        return {"seconds": time.perf_counter() - start}

    @torch.inference_mode()
    def decode(self, tokens: int, way: str = "step") -> dict:
        if way == "generate":
            one, many = self._generate_seconds(1), self._generate_seconds(tokens)
            return {"ms_per_token": 1000 * (many - one) / (tokens - 1)}
        out = self.language_model(inputs_embeds=self.embeddings, use_cache=True)
        cache = out.past_key_values
        token = self.model.lm_head(out.last_hidden_state[:, -1:]).argmax(-1)
        start = time.perf_counter()
        for _ in range(tokens):
            out = self.language_model(
                inputs_embeds=self.model.get_input_embeddings()(token), past_key_values=cache, use_cache=True
            )
            token = self.model.lm_head(out.last_hidden_state[:, -1:]).argmax(-1)
            token.item()  # the next step needs the token on the host, as in any greedy loop
        return {"ms_per_token": 1000 * (time.perf_counter() - start) / tokens}

    def _generate_seconds(self, tokens: int) -> float:
        start = time.perf_counter()
        self.model.generate(**self.inputs, max_new_tokens=tokens, min_new_tokens=tokens, do_sample=False)
        return time.perf_counter() - start

    @torch.inference_mode()
    def end_to_end(self, seconds: float, tokens: int) -> dict:
        start = time.perf_counter()
        inputs = self._inputs(clip(seconds))
        out = self.model.generate(**inputs, max_new_tokens=tokens, min_new_tokens=tokens, do_sample=False)
        new = out[:, inputs["input_ids"].shape[1] :]
        text = self.processor.decode(new[0].tolist(), skip_special_tokens=True)
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
