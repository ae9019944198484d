"""Run the code blocks of a Markdown document in order, and check or rewrite its samples.

Used by ``tests/test_docs.py`` (every block of README.md, docs/*.md and analyses/README.md
runs, as a reader meets them: README first, then the documents in the order README links them,
all in ONE folder, so an example of a later document runs where the earlier ones left their
outputs; ``Reading``) and by ``docs/make_samples.py`` (the sample outputs are rewritten from
what the tool prints). The marker convention is described in
docs/DEVELOPING.md ("Docs are executed"); in short, an HTML comment right before a fenced
block::

    <!-- docs: games=20 -->                 run with --games/--deals/--max-games 20
    <!-- docs: exit=2 -->                   each command must exit with status 2
    <!-- docs: exit=0,1,0 -->               one status per command of a console block
    <!-- docs: stdin="hint\\nquit\\n" -->     standard input of each command
    <!-- docs: skip="a Dask cluster" -->    not run; the reason is required
    <!-- docs: run="shanghai-sim run" -->   run this command in place of the block
    <!-- docs: file=house.toml -->          write the block to that file of the folder
    <!-- docs: needs=openssl -->            skipped, with a note, where the program is missing
    <!-- docs: sample="CMD" from="TEXT" lines=N mask=REGEX format=NAME -->
                                            the block is CMD's output (from the first line
                                            starting with TEXT, N lines; FORMATS abridges
                                            it), checked and rewritten; REGEX matches are
                                            not compared (timings)

What runs: ``console`` blocks (each ``$ `` line is a command; a trailing backslash or
``> `` lines continue it; the lines under a command are its output, compared with what it
prints when they are there and the command runs at the size shown), ``bash`` blocks (one
script) and ``python`` blocks (one script each, run in the folder). Other blocks (``text``,
``toml``, plain) are illustrations unless a marker makes them a file or a sample.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"[\w./-]+\.md\b")


def reading_order(root: Path = ROOT) -> tuple[str, ...]:
    """The checked documents in the order a reader meets them: README.md, then the documents it
    names (a link or a path such as ``docs/rules.md``) in the order it first names them, then
    the ones those name, and so on (breadth first); any document nobody names comes last, by
    name."""
    docs = ["README.md", *sorted(str(p.relative_to(root)) for p in (root / "docs").glob("*.md")),
            "analyses/README.md"]
    known = {d for d in docs if (root / d).is_file()}
    order, queue = ["README.md"], ["README.md"]
    while queue:
        doc = queue.pop(0)
        text = (root / doc).read_text(encoding="utf-8")
        for m in LINK.finditer(text):
            name = m.group(0).lstrip("./")
            here = str((Path(doc).parent / name)) if not name.startswith(("docs/", "analyses/")) else name
            for cand in (name, here):
                if cand in known and cand not in order:
                    order.append(cand)
                    queue.append(cand)
                    break
    return tuple(order + sorted(known - set(order)))


DOCUMENTS = reading_order()
KEYS = {"skip", "exit", "stdin", "games", "run", "file", "sample", "from", "lines", "mask",
        "timeout", "format", "needs"}
RUN_LANGS = {"console", "bash", "python"}
CHECKOUT_LINKS = ("analyses", "benchmarks")     # `python analyses/x.py` works as in a checkout
FENCE = re.compile(r"^(`{3,})\s*([\w+-]*)\s*$")
MARKER = re.compile(r"^<!--\s*docs:(.*?)-->\s*$")
SIZE_OPTION = re.compile(r"(--(?:games|deals|max-games)[ =])(\d[\d_,]*)")
SIZE_KWARG = re.compile(r"\b((?:games|deals|max_games)=)(\d[\d_]*)")
TRACEBACK = "Traceback (most recent call last)"
DEFAULT_TIMEOUT = 600


class DocError(Exception):
    """A document's block failed, or its markers are malformed: the message says where."""


@dataclass
class Block:
    doc: str
    line: int                   # 1-based line of the opening fence
    lang: str
    text: str                   # the block's content, without the fences
    opts: dict[str, str]
    body: tuple[int, int]       # 0-based line range of the content in the document

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"


@dataclass
class Command:
    cmd: str
    output: list[str] = field(default_factory=list)


def parse_marker(text: str, where: str) -> dict[str, str]:
    try:
        words = shlex.split(text)
    except ValueError as e:
        raise DocError(f"{where}: bad docs marker ({e})") from None
    opts: dict[str, str] = {}
    for w in words:
        key, eq, value = w.partition("=")
        if not eq or key not in KEYS:
            raise DocError(f"{where}: bad docs marker item {w!r} (known: {', '.join(sorted(KEYS))})")
        opts[key] = value.encode().decode("unicode_escape") if key == "stdin" else value
    if "skip" in opts and not opts["skip"].strip():
        raise DocError(f"{where}: skip needs a reason")
    return opts


def parse(doc: str, root: Path = ROOT) -> list[Block]:
    """The fenced blocks of ``doc`` (a path relative to ``root``), each with its marker."""
    lines = (root / doc).read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    pending: dict[str, str] | None = None
    pending_at = 0
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if m:
            if pending is not None:
                raise DocError(f"{doc}:{pending_at}: docs marker not followed by a block")
            pending, pending_at = parse_marker(m.group(1), f"{doc}:{i + 1}"), i + 1
            i += 1
            continue
        f = FENCE.match(lines[i])
        if f:
            fence, lang = f.group(1), f.group(2).lower()
            j = i + 1
            while j < len(lines) and lines[j].strip() != fence:
                j += 1
            if j == len(lines):
                raise DocError(f"{doc}:{i + 1}: unclosed code block")
            blocks.append(Block(doc, i + 1, lang, "\n".join(lines[i + 1:j]) + "\n",
                                pending or {}, (i + 1, j)))
            pending = None
            i = j + 1
            continue
        if pending is not None and lines[i].strip():
            raise DocError(f"{doc}:{pending_at}: docs marker not followed by a block")
        i += 1
    if pending is not None:
        raise DocError(f"{doc}:{pending_at}: docs marker not followed by a block")
    return blocks


def console_commands(block: Block) -> list[Command]:
    """The ``$ `` commands of a console block and the output lines shown under each."""
    cmds: list[Command] = []
    cont = False
    for raw in block.text.splitlines():
        if raw.startswith("$ ") or raw == "$":
            cmds.append(Command(raw[2:]))
            cont = raw.endswith("\\")
        elif cmds and (cont or raw.startswith("> ")):
            body = raw[2:] if raw.startswith("> ") else raw
            cmds[-1].cmd += "\n" + body
            cont = raw.endswith("\\")
        elif cmds:
            cmds[-1].output.append(raw)
        elif raw.strip():
            raise DocError(f"{block.where}: console block line before any '$ ' command: {raw!r}"
                           " (another machine's prompt? skip the block with a reason)")
    return cmds


def expected_exit(block: Block, k: int) -> int:
    """The exit status command k of the block must return: ``exit=N`` for each, or
    ``exit=0,1,0`` one per command of a console block."""
    text = block.opts.get("exit", "0")
    try:
        codes = [int(x) for x in text.split(",")]
    except ValueError:
        raise DocError(f"{block.where}: exit={text!r}: expected a status or a list of them") from None
    return codes[k] if len(codes) > 1 else codes[0]


def resize(code: str, games: str | None, python: bool = False) -> str:
    if not games:
        return code
    n = str(int(games))
    return (SIZE_KWARG if python else SIZE_OPTION).sub(lambda m: m.group(1) + n, code)


def environment() -> dict[str, str]:
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env["MPLBACKEND"] = "Agg"
    env.setdefault("COLUMNS", "100")
    env.pop("PYTHONPATH", None)
    return env


def _tidy(text: str) -> str:
    """Trailing spaces and blank lines do not count (and are not written)."""
    return "\n".join(x.rstrip() for x in text.rstrip().splitlines()) + "\n"


def mask(text: str, pattern: str | None) -> str:
    return re.sub(pattern, "…", text) if pattern else text


def _num(x, digits: int = 3):
    return x if not isinstance(x, float) else round(x, digits)


def _effect(e: dict, digits: int = 3) -> str:
    return (f'{{"mean": {_num(e["mean"], digits)}, "ci": [{_num(e["ci"][0], 2)}, {_num(e["ci"][1], 2)}], '
            f'"n": {e["n"]}, "variance_reduction": {_num(e["variance_reduction"], 2)}, '
            f'"p": {_num(e["p"], 4)}, "p_holm": {_num(e["p_holm"], 4)}}}')


def experiment_json(text: str) -> str:
    """``experiment --json``'s object abridged: the arms' counts, the first variant's effects on
    game points in full (rounded), the others by their mean and CI, and its sentence."""
    import json
    o = json.loads(text)
    out = [f'{{"design": {{...}}, "games": {o["games"]}, "unit": "deal: ...",', ' "arms": [']
    for i, a in enumerate(o["arms"]):
        head = (f'  {{"name": {json.dumps(a["name"])}, "spec": {json.dumps(a["spec"])}, "games": {a["games"]}, '
                f'"games_played": {a["games_played"]},')
        counts = (f'   "hands_played": {a["hands_played"]}, "no_winner_hands": {a["no_winner_hands"]}, '
                  f'"turn_cap_hands": {a["turn_cap_hands"]},')
        out.append(head)
        if a["effects"] is None:
            out.append(counts + ' "effects": null},')
            continue
        eff = a["effects"]
        out.append(counts)
        out.append(f'   "effects": {{"points": {_effect(eff["points"])},')
        for k in (k for k in eff if k not in ("points", "hand_points")):
            e = eff[k]
            out.append(f'               "{k}": {{"mean": {_num(e["mean"])}, "ci": [{_num(e["ci"][0])}, '
                       f'{_num(e["ci"][1])}], ...}},')
        hp = eff.get("hand_points") or {}
        if hp:
            first, last = next(iter(hp)), list(hp)[-1]
            e = hp[first]
            out.append(f'               "hand_points": {{"{first}": {{"mean": {_num(e["mean"])}, "ci": '
                       f'[{_num(e["ci"][0])}, {_num(e["ci"][1])}], ...}}, ..., "{last}": {{...}}}}}},')
        out.append(f'   "identical_to_baseline": {json.dumps(a.get("identical_to_baseline"))},')
        out.append(f'   "verdict": {json.dumps(a["verdict"], ensure_ascii=False)}}}'
                   + (',' if i < len(o["arms"]) - 1 else '],'))
    out.append(f' "stopped": {json.dumps(o.get("stopped"))}, "multiplicity": "..."}}')
    return "\n".join(out) + "\n"


FORMATS = {"experiment-json": experiment_json}


def select(text: str, opts: dict[str, str], where: str) -> str:
    """The part of a command's output a sample shows (``format=``, ``from=``, ``lines=``)."""
    if "format" in opts:
        if opts["format"] not in FORMATS:
            raise DocError(f"{where}: unknown sample format {opts['format']!r} (known: {', '.join(FORMATS)})")
        text = FORMATS[opts["format"]](text)
    lines = text.rstrip("\n").splitlines()
    start = opts.get("from")
    if start is not None:
        k = next((i for i, s in enumerate(lines) if s.startswith(start)), None)
        if k is None:
            raise DocError(f"{where}: sample: no output line starts with {start!r}")
        lines = lines[k:]
    if "lines" in opts:
        lines = lines[:int(opts["lines"])]
    return "\n".join(lines) + "\n"


class Runner:
    """Runs one document's blocks in order in ``folder``; collects sample differences.

    ``rewrite=True`` (make_samples) records the samples as printed instead of failing on a
    difference; ``samples`` then maps each sample block to its new text."""

    def __init__(self, doc: str, folder: Path, root: Path = ROOT, rewrite: bool = False,
                 log=None):
        self.doc, self.folder, self.root, self.rewrite = doc, Path(folder), root, rewrite
        self.env = environment()
        self.samples: dict[tuple[int, int], str] = {}
        self.diffs: list[str] = []
        self.skipped: list[str] = []
        self.ran = 0
        self.log = log

    def _shell(self, cmd: str, block: Block, stdin: str | None) -> subprocess.CompletedProcess:
        if self.log:
            self.log(f"{block.where}: $ {cmd}")
        try:
            return subprocess.run(["bash", "-c", cmd], cwd=self.folder, env=self.env,
                                  input=stdin if stdin is not None else "",
                                  capture_output=True, text=True,
                                  timeout=float(block.opts.get("timeout", DEFAULT_TIMEOUT)))
        except subprocess.TimeoutExpired:
            raise DocError(f"{block.where}: timed out: {cmd}") from None

    def _check(self, p: subprocess.CompletedProcess, cmd: str, block: Block, k: int = 0) -> None:
        self.ran += 1
        want = expected_exit(block, k)
        tail = (p.stdout[-1500:] + "\n" + p.stderr[-2500:]).strip()
        if p.returncode != want:
            raise DocError(f"{block.where}: exit status {p.returncode}, expected {want}: "
                           f"{cmd}\n{tail}")
        if TRACEBACK in p.stdout or TRACEBACK in p.stderr:
            raise DocError(f"{block.where}: traceback from: {cmd}\n{tail}")

    def _compare(self, block: Block, key: tuple[int, int], shown: str, printed: str,
                 what: str) -> None:
        printed = _tidy(printed)
        if self.rewrite:
            self.samples[key] = printed
            return
        pat = block.opts.get("mask")
        if mask(_tidy(shown), pat) != mask(printed, pat):
            import difflib
            diff = "\n".join(difflib.unified_diff(
                shown.rstrip().splitlines(), printed.rstrip().splitlines(),
                "shown", "printed", lineterm=""))
            self.diffs.append(f"{block.where}: sample of `{what}` differs from the tool's "
                              f"output (python docs/make_samples.py rewrites it):\n{diff}")

    def run_block(self, block: Block) -> None:
        o = block.opts
        if "skip" in o:
            self.skipped.append(f"{block.where}: {o['skip']}")
            return
        missing = [x for x in o.get("needs", "").split(",") if x and shutil.which(x) is None]
        if missing:
            self.skipped.append(f"{block.where}: needs {', '.join(missing)}, not installed here")
            return
        if "file" in o:
            (self.folder / o["file"]).write_text(block.text, encoding="utf-8")
            return
        stdin = o.get("stdin")
        if "sample" in o:
            cmd = o["sample"]
            p = self._shell(cmd, block, stdin)
            self._check(p, cmd, block)
            self._compare(block, block.body, block.text, select(p.stdout, o, block.where), cmd)
            return
        if "run" in o:
            p = self._shell(o["run"], block, stdin)
            self._check(p, o["run"], block)
            return
        if block.lang == "console":
            line = block.body[0]
            cmds = console_commands(block)
            if "," in o.get("exit", "") and len(o["exit"].split(",")) != len(cmds):
                raise DocError(f"{block.where}: exit= lists {len(o['exit'].split(','))} statuses "
                               f"for {len(cmds)} commands")
            for k, c in enumerate(cmds):
                cmd = resize(c.cmd, o.get("games"))
                p = self._shell(cmd, block, stdin)
                self._check(p, cmd, block, k)
                n = c.cmd.count("\n") + 1
                start = line + n
                # the output shown under a command is checked when it ran at the size shown
                if c.output and cmd == c.cmd:
                    self._compare(block, (start, start + len(c.output)),
                                  "\n".join(c.output) + "\n", p.stdout, c.cmd)
                line = start + len(c.output)
        elif block.lang == "bash":
            cmd = resize(block.text, o.get("games"))
            p = self._shell(cmd, block, stdin)
            self._check(p, cmd, block)
        elif block.lang == "python":
            script = self.folder / f"_block_{Path(block.doc).stem}_{block.line}.py"
            script.write_text(resize(block.text, o.get("games"), python=True), encoding="utf-8")
            cmd = f"{shlex.quote(sys.executable)} {script.name}"
            p = self._shell(cmd, block, stdin)
            self._check(p, f"the python block ({script.name})", block)
        elif o:
            raise DocError(f"{block.where}: docs marker on a {block.lang or 'plain'} block "
                           "that does not run (use file= or sample=)")

    def run(self) -> "Runner":
        self.folder.mkdir(parents=True, exist_ok=True)
        # the checkout's scripts, as a command typed in a checkout finds them
        for name in CHECKOUT_LINKS:
            if (self.root / name).is_dir() and not (self.folder / name).exists():
                (self.folder / name).symlink_to(self.root / name, target_is_directory=True)
        for b in parse(self.doc, self.root):
            if b.lang in RUN_LANGS or b.opts:
                self.run_block(b)
        return self


class Reading:
    """The documents read in order in one folder, as a reader follows them (``DOCUMENTS``: README,
    then the documents in the order it links them). ``upto(doc)`` runs every document before
    ``doc`` that has not run yet, then ``doc``, each once; it returns ``doc``'s Runner, or raises
    the DocError its blocks raised (the earlier documents' failures are their own: a later
    document still runs, and its error names the earlier failure it may follow from).

    ``rewrite``: the documents whose samples are recorded (``make_samples``); the others run to
    leave their outputs, their samples checked as usual."""

    def __init__(self, folder: Path, root: Path = ROOT, documents: tuple[str, ...] | None = None,
                 rewrite: frozenset[str] | set[str] = frozenset(), log=None):
        self.folder, self.root, self.rewrite, self.log = Path(folder), root, set(rewrite), log
        self.documents = tuple(documents if documents is not None else
                               (DOCUMENTS if root == ROOT else reading_order(root)))
        self.done: dict[str, Runner | DocError] = {}

    def upto(self, doc: str) -> Runner:
        if doc not in self.documents:
            raise DocError(f"{doc}: not one of the documents read ({', '.join(self.documents)})")
        for d in self.documents:
            if d not in self.done:
                r = Runner(d, self.folder, self.root, rewrite=d in self.rewrite, log=self.log)
                try:
                    self.done[d] = r.run()
                except DocError as e:
                    earlier = [x for x in self.done if isinstance(self.done[x], DocError)]
                    if earlier:
                        e = DocError(f"{e}\n(after an earlier document failed in the same folder: "
                                     f"{', '.join(earlier)})")
                    self.done[d] = e
            if d == doc:
                break
        got = self.done[doc]
        if isinstance(got, DocError):
            raise got
        return got


def rewrite_samples(doc: str, samples: dict[tuple[int, int], str], root: Path = ROOT) -> bool:
    """Replace each sample's lines (0-based ranges of the document) with its new text;
    True if the document changed."""
    path = root / doc
    lines = path.read_text(encoding="utf-8").splitlines()
    new = list(lines)
    for (a, b), text in sorted(samples.items(), reverse=True):
        new[a:b] = text.rstrip("\n").splitlines()
    if new == lines:
        return False
    path.write_text("\n".join(new) + "\n", encoding="utf-8")
    return True
