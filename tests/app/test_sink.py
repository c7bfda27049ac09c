"""Where committed text goes: one line per utterance on stdout and in --output, whatever the text holds."""

import io
import json

import numpy as np

from mlx_qwen3asr.streaming import Event
from mlx_qwen3asr_app.display import PlainDisplay
from mlx_qwen3asr_app.sink import EventSink
from mlx_qwen3asr_app.transcript import TranscriptFile

TEXTS = ["Dear Ann,\nthanks for the notes.", "First point:\r\n  the budget.\n\n", "Done\u2028for\u3000today."]


class Delivered:
    """Stands in for the clipboard and typing: what they would have been given."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def commit(self, text: str) -> None:
        self.texts.append(text)


def _commits() -> list[Event]:
    audio = np.zeros(1600, np.float32)
    return [
        Event("commit", i + 1.0, start=float(i), end=i + 0.9, text=t, language="English", audio=audio)
        for i, t in enumerate(TEXTS)
    ]


def test_an_utterance_whose_text_holds_line_breaks_stays_one_line_on_stdout_and_in_the_output_file(tmp_path):
    out, delivered = io.StringIO(), Delivered()
    output = TranscriptFile(str(tmp_path / "notes.txt"), timestamps=True)
    sink = EventSink([output], PlainDisplay(out, io.StringIO()), delivered, jsonl=False)
    for event in _commits():
        sink(event)
    output.close()
    expected = ["Dear Ann, thanks for the notes.", "First point: the budget.", "Done for\u3000today."]
    assert out.getvalue().splitlines() == expected, "each line break and the spaces around it become one space"
    written = (tmp_path / "notes.txt").read_text(encoding="utf-8").splitlines()
    assert written == [f"[00:00:0{i}.0] {text}" for i, text in enumerate(expected)], written
    assert delivered.texts == expected and sink.text().splitlines() == expected, "copied and typed the same"


def test_jsonl_events_keep_the_text_exactly_as_the_model_wrote_it():
    out = io.StringIO()
    sink = EventSink([], PlainDisplay(io.StringIO(), io.StringIO()), Delivered(), jsonl=True, out=out)
    for event in _commits():
        sink(event)
    lines = out.getvalue().split("\n")  # a JSONL reader splits at "\n" (U+2028 is valid inside a JSON string)
    assert [json.loads(line)["text"] for line in lines[:-1]] == TEXTS and lines[-1] == "", "JSON escapes \\n itself"
