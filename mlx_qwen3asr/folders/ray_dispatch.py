"""The driver's side of a Ray run: groups of files kept on the living workers until every file is done.

files -> groups_of: in order, <= size files and <= GROUP_BYTES of file bytes a group
-> RayDispatch: IN_FLIGHT groups on each living worker, each group's bytes sent with its task
   (file_bytes: a file that cannot be read here is recorded at once, never sent)
-> ray.wait: the first task done -> its Decoded outcomes to the writer
   a worker that died -> its group back to the queue one file a task; after DEATHS_PER_FILE deaths
   under one file alone, that file is recorded as failed; Ray restarts the worker, which takes work
   again once it answers a ping (describe), or never, when its restarts are used up
"""

from collections import deque
from collections.abc import Sequence
from typing import Optional

from .decode import Decoded, not_a_file
from .plan import PlannedFile, one_line
from .runner import Writer

DEATHS_PER_FILE = 2  # a file under which workers died this often, alone, is recorded as failed
IN_FLIGHT = 2  # groups queued per actor: the next one's bytes arrive while it decodes
GROUP_BYTES = 64 * 2**20  # file bytes per task at most (a group is smaller when its files are large)


def groups_of(files: Sequence[PlannedFile], size: int) -> list[list[int]]:
    """File indices in order, at most `size` files and GROUP_BYTES of files (at least one) a group."""
    result: list[list[int]] = []
    weight = 0
    for i, file in enumerate(files):
        nbytes = file.source.stat().st_size if file.source.is_file() else 0
        if not result or len(result[-1]) >= size or weight + nbytes > GROUP_BYTES:
            result.append([])
            weight = 0
        result[-1].append(i)
        weight += nbytes
    return result


def kill_workers(ray, actors: list) -> None:
    for actor in actors:
        ray.kill(actor, no_restart=True)


def file_bytes(files: Sequence[PlannedFile], i: int, writer: Writer) -> Optional[bytes]:
    """File i's bytes to send, or None after recording why it cannot be read here."""
    source = files[i].source
    if (reason := not_a_file(source)) is not None:
        writer.record(files[i], Decoded(i, error=reason))
        return None
    try:
        return source.read_bytes()
    except OSError as e:
        writer.record(files[i], Decoded(i, error=f"Cannot read {source}: {e.strerror or one_line(e)}"))
        return None


class RayDispatch:
    """Keeps IN_FLIGHT groups on each living actor until every file is recorded. A group whose actor
    died goes back to the queue one file per task; the actor takes work again once it answers a
    ping (Ray restarts it), or never, when its restarts are used up."""

    def __init__(self, ray, actors: list, files: Sequence[PlannedFile], writer: Writer):
        self.ray, self.actors, self.files, self.writer = ray, actors, files, writer
        self.queue: deque[tuple[list[int], int]] = deque()  # (file indices, deaths under them)
        self.waiting: dict = {}  # ref -> (actor number, (file indices, deaths)) for a task, (k, None) for a ping
        self.living, self.load = set(range(len(actors))), [0] * len(actors)
        self.last_death = ""  # why the last actor died (Ray's words: killed, out of memory, node lost)

    def until_done(self, work: list[list[int]]) -> None:
        self.queue.extend((group, 0) for group in work)
        while self.queue or any(item is not None for _, item in self.waiting.values()):
            self.fill()
            if not self.waiting:
                raise RuntimeError(f"every Ray worker died ({self.last_death[:400]}): the same command continues")
            [ref], _ = self.ray.wait(list(self.waiting), num_returns=1)
            k, item = self.waiting.pop(ref)
            try:
                value = self.ray.get(ref)
            except self.ray.exceptions.RayActorError as e:
                self.died(k, item, e)
                continue
            if item is None:  # a restarted actor answers
                self.living.add(k)
                continue
            self.load[k] -= 1
            for decoded in value:
                self.writer.record(self.files[item[0][decoded.index]], decoded)

    def fill(self) -> None:
        for k in sorted(self.living, key=lambda k: self.load[k]):
            while self.queue and self.load[k] < IN_FLIGHT:
                group, deaths = self.queue.popleft()
                read = [(i, file_bytes(self.files, i, self.writer)) for i in group]
                sent = [(i, data) for i, data in read if data is not None]
                if sent:
                    task = [(str(self.files[i].source), data) for i, data in sent]
                    self.waiting[self.actors[k].decode.remote(task)] = (k, ([i for i, _ in sent], deaths))
                    self.load[k] += 1

    def died(self, k: int, item, error: Exception) -> None:
        """Actor k died under a task (or a ping): the task's files back to the queue, one a task."""
        self.last_death = one_line(error)
        if item is not None:
            self.load[k] -= 1
            group, deaths = item
            if len(group) == 1 and deaths + 1 >= DEATHS_PER_FILE:
                reason = f"its Ray worker died while decoding it, {deaths + 1} times: {one_line(error)}"
                self.writer.record(self.files[group[0]], Decoded(group[0], error=reason))
            else:
                self.queue.extendleft(([i], deaths + 1) for i in reversed(group))
        if k in self.living:  # Ray restarts it (within MAX_RESTARTS): used again when it answers
            self.living.discard(k)
            self.waiting[self.actors[k].describe.remote()] = (k, None)
