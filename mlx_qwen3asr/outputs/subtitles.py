"""Subtitles people can read: aligned words -> cues of at most N lines of at most W characters, as
openai-whisper's `--max_line_width`, `--max_line_count`, `--max_words_per_line` and `--highlight_words`.

    Transcription (segments with .words, from transcribe(..., aligner=)) + SubtitleLayout
      -> [Cue(start, end, text, speaker)]   text: lines joined by "\\n"; start/end: its first/last word's times

The rules, word by word in order (a word's width counts the space before it, as words.join_words puts it):
  - a word joins the current line when the line has room (width <= max_line_width), else it opens a new line;
  - a new line opens a new cue when the cue already has max_line_count lines;
  - cues keep to segments (each segment starts a new cue) unless BOTH max_line_width and max_line_count are
    given; then cues run across segments, and a word more than LONG_PAUSE_SECONDS after the previous word's
    start opens a new cue;
  - max_words_per_line (without max_line_width): every N words of a segment make a cue of one line;
  - a change of speaker always opens a new cue (segments are split there already: speakers.with_speakers);
  - highlight_words: each cue is shown once per word with that word underlined ("<u>word</u>") for the
    word's time, and plainly in the gaps between words.
Segments without words (not aligned) cannot be laid out: ValueError naming --aligner. A segment whose words
are [] (nothing alignable) keeps its own cue. Pure functions; no model runs here.
"""

from dataclasses import dataclass
from typing import NamedTuple, Optional

from ..result import Segment, Transcription, Word
from .words import join_words

LONG_PAUSE_SECONDS = 3.0  # whisper's: across segments, a longer pause between word starts ends a cue


class Cue(NamedTuple):
    start: float
    end: float
    text: str  # lines joined by "\n"
    speaker: Optional[str] = None


@dataclass(frozen=True)
class SubtitleLayout:
    """How aligned words are cut into cues (the CLI's --max-line-width ... --highlight-words), checked once here."""

    max_line_width: Optional[int] = None  # characters per line
    max_line_count: Optional[int] = None  # lines per cue (with max_line_width)
    max_words_per_line: Optional[int] = None  # words per cue, one line (without max_line_width)
    highlight_words: bool = False  # one cue per word, the word underlined

    def __post_init__(self):
        for name in ("max_line_width", "max_line_count", "max_words_per_line"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {value}")
        if self.max_line_count is not None and self.max_line_width is None:
            raise ValueError("--max-line-count needs --max-line-width (lines are cut at that width)")
        if self.max_words_per_line is not None and self.max_line_width is not None:
            raise ValueError("--max-words-per-line and --max-line-width cut lines two ways: give one of them")

    @property
    def across_segments(self) -> bool:
        return self.max_line_width is not None and self.max_line_count is not None

    def cues(self, result: Transcription) -> list[Cue]:
        """The result's cues laid out by these rules (segments without text are left out)."""
        cues: list[Cue] = []
        for group in self._groups(result):
            if isinstance(group, Segment):  # no alignable word: the segment's own cue
                cues.append(Cue(group.start, group.end, group.text.strip(), group.speaker))
            elif self.highlight_words:
                cues += highlighted(group)
            else:
                cues.append(Cue(group[0][0][0].start, group[-1][-1][0].end, _text(group), group[0][0][0].speaker))
        return cues

    def _groups(self, result: Transcription) -> list:
        """Each cue as lines of (word, language), or a Segment that keeps its own cue."""
        groups: list = []
        cue: list[list[tuple[Word, str]]] = []
        last_start: Optional[float] = None
        for segment in result.segments:
            if not segment.text.strip():
                continue
            if segment.words is None:
                raise ValueError("subtitle line limits need word times: transcribe with an aligner (--aligner)")
            if not segment.words:
                groups += [cue, segment] if cue else [segment]
                cue = []
                continue
            for i, word in enumerate(segment.words):
                line = cue[-1] if cue else []
                cue_break = bool(cue) and (
                    (not self.across_segments and i % (self.max_words_per_line or len(segment.words)) == 0)
                    or (self.across_segments and word.start - last_start > LONG_PAUSE_SECONDS)
                    or word.speaker != cue[0][0][0].speaker
                )
                fits = bool(line) and self._fits(line, word, segment.language)
                if cue and not cue_break and fits:
                    line.append((word, segment.language))
                elif cue and not cue_break and len(cue) < (self.max_line_count or len(cue) + 1):
                    cue.append([(word, segment.language)])
                else:
                    groups += [cue] if cue else []
                    cue = [[(word, segment.language)]]
                last_start = word.start
        return groups + ([cue] if cue else [])

    def _fits(self, line: list[tuple[Word, str]], word: Word, language: str) -> bool:
        width = len(_line(line + [(word, language)]))
        return self.max_line_width is None or width <= self.max_line_width


def _pieces(line: list[tuple[Word, str]]) -> list[str]:
    """Each word of a line with the space join_words puts before it (none before the first)."""
    pieces = [line[0][0].text] if line else []
    for (before, _), (word, language) in zip(line, line[1:]):
        joined = join_words([before, word], language)
        pieces.append(joined[len(before.text) :])
    return pieces


def _line(line: list[tuple[Word, str]]) -> str:
    return "".join(_pieces(line))


def _text(cue: list[list[tuple[Word, str]]]) -> str:
    return "\n".join(_line(line) for line in cue)


def highlighted(cue: list[list[tuple[Word, str]]]) -> list[Cue]:
    """The cue once per word, that word underlined for its time; the plain cue in the gaps between words."""
    words = [word for line in cue for word, _ in line]
    pieces = [_pieces(line) for line in cue]
    speaker, out, shown_until = words[0].speaker, [], words[0].start
    for index, word in enumerate(words):
        if round(word.start, 3) > round(shown_until, 3):  # a gap the millisecond timestamps can show
            out.append(Cue(shown_until, word.start, _text(cue), speaker))
        marked, n = [], 0
        for line in pieces:
            marked.append("".join(_underline(p) if n + k == index else p for k, p in enumerate(line)))
            n += len(line)
        out.append(Cue(word.start, word.end, "\n".join(marked), speaker))
        shown_until = word.end
    return out


def _underline(piece: str) -> str:
    text = piece.lstrip(" ")
    return piece[: len(piece) - len(text)] + f"<u>{text}</u>"
