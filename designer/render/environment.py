"""The Jinja2 environment of one build: the template search path, the sandbox and the bounds of a rendering.

* One Jinja2 environment per build; each OS's templates are compiled once per build, not per device.
* Each run of text and ``{{ ... }}`` between two tags is one piece of output (:class:`JoinedOutput`), where Jinja
  yields every text and value apart: a piece passes through each ``{% include %}`` around it one at a time, so a
  switch's configuration is made of a few hundred pieces rather than thousands; the text is the same.
* User overrides: a folder of templates (``templates/`` beside the intent, or ``--templates DIR``) is
  searched first, file by file, before the shipped ``templates/``. Such a build renders in Jinja's
  sandbox. Every build uses ``StrictUndefined``, so a misspelt variable is an error naming the
  template and its line (:class:`TemplateError`, exit code 2), never an empty string in a config.
* A shared block (:func:`designer.render.views.shared_blocks`: a switch's QoS or route policy) is an included
  template whose text is the same for every switch given the same few variables: with the shipped templates it is
  rendered once per distinct value of those variables, from them alone, and its text reused.
* Override folders may come with a pull request, so templates are read as regular UTF-8 files only (no
  symbolic link, FIFO or device anywhere below a folder), a rendering stops after :data:`RENDER_SECONDS`,
  :data:`MAX_CHUNKS` pieces of output or :data:`MAX_FILE_CHARS` characters, compiling stops after
  :data:`RENDER_SECONDS` too (and folds no constant: see :class:`Sandbox`), and the sandbox refuses ``*``, ``**``,
  ``+``, ``%`` and the filters and string methods that lengthen text above :data:`MAX_ITEMS` items or
  :data:`MAX_INT_BITS` bits before making them. Any failure while rendering is a :class:`TemplateError` naming the
  template and line.
"""

from __future__ import annotations

import contextlib
import re
import signal
import string
import sys
import threading
import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, MutableMapping
from functools import cache
from itertools import islice
from numbers import Number
from pathlib import Path
from types import GeneratorType
from typing import Any, cast

import jinja2
from jinja2 import nodes
from jinja2.bccache import Bucket
from jinja2.compiler import CodeGenerator, Frame
from jinja2.exceptions import SecurityError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from designer.backend.model import DeviceConfig
from designer.catalog import Catalog, catalog
from designer.errors import InputError, PrerequisiteError, TemplateError
from designer.files import TEMPLATE, Refused, read_below, shipped_templates
from designer.networks.management import Management
from designer.render.views import TARGETS, View, shared_blocks, view_of

SHIPPED_TEMPLATES = shipped_templates()
"""The templates that come with the designer (repository root ``templates/``, package data when installed)."""
RENDER_SECONDS = 10.0
"""Longest rendering of one file (the shipped templates take milliseconds); enforced in the main thread."""
MAX_CHUNKS = 1 << 22
"""Most pieces one rendering may yield (a 576-port switch's config_db.json takes about 80,000)."""
MAX_FILE_CHARS = 16 << 20
"""Longest rendered file, in characters (the shipped templates write at most a few hundred KB)."""
MAX_ITEMS = 1 << 20
"""Longest string or list a sandboxed ``*`` or ``+`` may make."""
MAX_INT_BITS = 4096
"""Largest integer a sandboxed ``*`` or ``**`` may make."""


class JoinedOutput(CodeGenerator):
    """Jinja's code generator, with each output node (text and ``{{ ... }}`` expressions up to the next tag) yielded
    as one string, ``''.join`` of its parts, in place of one ``yield`` per part. Each expression keeps its own line
    in the template's debug information, so an error still names the line it is on. Jinja's own code is kept where
    output is buffered (macros, ``{% set %}`` blocks), after ``{% extends %}``, and with autoescaping or ``finalize``
    (neither is used here)."""

    def visit_Output(self, node: nodes.Output, frame: Frame) -> None:
        plain = not (frame.eval_ctx.volatile or frame.eval_ctx.autoescape or self.environment.finalize)
        if frame.buffer is not None or frame.require_output_check or not plain or len(node.nodes) < 2:
            super().visit_Output(node, frame)
            return
        self.writeline("yield ''.join((", node)
        self.indent()
        for part in node.nodes:
            if isinstance(part, nodes.TemplateData):
                self.writeline(f"{part.data!r},")
                continue
            self.newline(part)
            self.write("str(")
            self.visit(part, frame)
            self.write("),")
        self.outdent()
        self.writeline("))")


class RenderTimeout(Exception):
    """A rendering ran past :data:`RENDER_SECONDS` (raised from SIGALRM inside the template's code)."""


class Sandbox(ImmutableSandboxedEnvironment):
    """Jinja's sandbox that changes no list or dict a template is given, with ``*``, ``**``, ``+`` and ``%`` and
    every filter and string method that can make text longer than it was given (``center``, ``ljust``, ``rjust``,
    ``zfill``, ``indent``, ``expandtabs``, ``replace``, ``join``, ``format``) refusing results too large for a
    configuration file before they are made. Built with ``optimized=False``: Jinja would otherwise evaluate
    constant expressions while compiling, outside every bound of a rendering."""

    code_generator_class = JoinedOutput
    intercepted_binops = frozenset(("*", "**", "+", "%"))

    def __init__(self, **options: Any):
        super().__init__(optimized=False, **options)
        for name in ("center", "indent", "replace", "join", "format"):
            self.filters[name] = _bounded_filter(name, self.filters[name])

    def call_binop(self, context: jinja2.runtime.Context, operator: str, left: Any, right: Any) -> Any:
        size = _format_widths(left, printf=True) if operator == "%" and isinstance(left, str) else None
        size = size or (_result_size(operator, left, right) if operator != "%" else None)
        if size is not None:
            raise _too_large(operator, size)
        return super().call_binop(context, operator, left, right)

    def call(__self, __context: jinja2.runtime.Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        method = getattr(__obj, "__wrapped__", __obj)  # the sandbox wraps str.format and str.format_map
        if isinstance(getattr(method, "__self__", None), str):
            size = _method_size(method.__self__, method.__name__, args, kwargs)
            if size is not None:
                raise _too_large(f"str.{method.__name__}", size)
        return super().call(__context, __obj, *args, **kwargs)


def _too_large(what: str, size: str) -> SecurityError:
    return SecurityError(
        f"{what!r} would make {size}; templates may make at most {MAX_ITEMS:,} items or {MAX_INT_BITS:,}-bit numbers"
    )


def _above(items: int) -> str | None:
    """``items`` as a size, when above :data:`MAX_ITEMS`; else None."""
    return f"{items:,} items" if items > MAX_ITEMS else None


def _method_size(text: str, method: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> str | None:
    """How long ``text.method(*args)`` would be, when above the limits (a width, a tab size, a replacement or a
    join that makes it longer than :data:`MAX_ITEMS`, or a format with widths); else None."""
    first = args[0] if args else next(iter(kwargs.values()), None)
    if method in ("center", "ljust", "rjust", "zfill") and isinstance(first, int):
        return _above(first)
    if method == "expandtabs":
        return _above(len(text) + text.count("\t") * (first if isinstance(first, int) else 8))
    if method == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        return _replace_size(text, args[0], args[1])
    if method == "join":
        return _join_size(text, first)
    if method in ("format", "format_map"):
        return _format_widths(text, printf=False)
    return None


def _replace_size(text: str, old: str, new: str) -> str | None:
    count = text.count(old) if old else len(text) + 1
    return _above(len(text) + count * (len(new) - len(old)))


def _join_size(separator: str, items: Any) -> str | None:
    if not isinstance(items, list | tuple):
        return None  # a generator or another iterable: joined as Jinja's own code would, its pieces bounded
    return _above(sum(len(str(item)) for item in items) + len(separator) * max(0, len(items) - 1))


PRINTF_FIELD = re.compile(r"%(?:\([^)]*\))?[-+ #0]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?([a-zA-Z%])")
"""A ``%`` conversion: its width and precision (digits or ``*``) and its type (``%%`` is a literal percent)."""


def _format_widths(text: str, printf: bool) -> str | None:
    """A format string (``printf``: ``%``, else ``str.format``) with a width or precision above :data:`MAX_ITEMS` or
    one taken from the arguments (``*``, ``{:{}}``); else None."""
    numbers: list[str] = []
    if printf:
        for width, precision, kind in PRINTF_FIELD.findall(text):
            if kind != "%":
                numbers += [width, precision]
    else:
        try:
            specs = [spec for _, field, spec, _ in string.Formatter().parse(text) if field is not None and spec]
        except ValueError:
            return None  # not a format string: str.format refuses it itself
        for spec in specs:
            if "{" in spec:
                return "a width given by its arguments"
            numbers += re.findall(r"\d+", spec)
    if "*" in numbers:
        return "a width given by its arguments"
    return _above(max((int(number) for number in numbers if number), default=0))


def _bounded_filter(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
    """Jinja's filter ``name`` refusing a result above the limits before making it."""

    def bounded(*args: Any, **kwargs: Any) -> Any:
        values = [arg for arg in args if not isinstance(arg, jinja2.runtime.Context | jinja2.nodes.EvalContext)]
        value, rest = (values[0], values[1:]) if values else (None, [])
        size = None
        if name == "center":
            width = rest[0] if rest else kwargs.get("width", 80)
            size = _above(width) if isinstance(width, int) else None
        elif name == "indent" and isinstance(value, str):
            width = rest[0] if rest else kwargs.get("width", 4)
            step = width if isinstance(width, int) else len(str(width))
            size = _above(len(value) + (value.count("\n") + 1) * step)
        elif name == "replace" and isinstance(value, str) and len(rest) >= 2:
            size = _replace_size(value, str(rest[0]), str(rest[1]))
        elif name == "join":
            separator = rest[0] if rest else kwargs.get("d", "")
            size = _join_size(str(separator), list(value) if isinstance(value, list | tuple) else None)
        elif name == "format" and isinstance(value, str):
            size = _format_widths(value, printf=True)
        if size is not None:
            raise _too_large(name, size)
        return original(*args, **kwargs)

    for marker in ("jinja_pass_arg",):
        if hasattr(original, marker):
            setattr(bounded, marker, getattr(original, marker))
    return bounded


class Plain(jinja2.Environment):
    """Jinja's environment for the shipped templates alone, each output node one piece (:class:`JoinedOutput`)."""

    code_generator_class = JoinedOutput


def _result_size(operator: str, left: Any, right: Any) -> str | None:
    """How large the result of ``left operator right`` would be, when that is above the limits; else None."""
    if isinstance(left, int) and isinstance(right, int):
        bits = {
            "*": left.bit_length() + right.bit_length(),
            "+": max(left.bit_length(), right.bit_length()) + 1,
            "**": right * left.bit_length() if abs(left) > 1 and right > 0 else 1,
        }[operator]
        return f"a {bits:,}-bit number" if bits > MAX_INT_BITS else None
    if operator == "**" or (isinstance(left, Number) and isinstance(right, Number)):
        return None
    sizes = [
        len(side) if isinstance(side, str | list | tuple) else side if isinstance(side, int) else 1
        for side in (left, right)
    ]
    items = sizes[0] * sizes[1] if operator == "*" else sizes[0] + sizes[1]
    return f"{items:,} items" if items > MAX_ITEMS else None


class CompiledCode(jinja2.BytecodeCache):
    """Each shipped template's compiled code, by its name and source, for the life of the process: every build
    after the first (explore's candidates, the Python API, a test session) reuses it instead of lexing, parsing and
    compiling the templates again. Jinja keeps an entry only while the template's source is the one it came from."""

    def __init__(self) -> None:
        self.code: dict[str, tuple[str, Any]] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        found = self.code.get(bucket.key)
        if found is not None and found[0] == bucket.checksum:
            bucket.code = found[1]

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.code[bucket.key] = (bucket.checksum, bucket.code)


@cache
def shipped_code() -> CompiledCode:
    """The compiled code of the shipped templates, shared by every build of this process without user templates."""
    return CompiledCode()


class FolderLoader(jinja2.BaseLoader):
    """Templates from folders searched in order, read as regular UTF-8 files only: a symbolic link, FIFO or
    device anywhere below a folder is refused (a template never reads a file outside its folder). Each template it
    compiles, an included one too, is given to ``prepare`` with its name before its first use."""

    def __init__(self, folders: list[Path], prepare: Callable[[str, jinja2.Template], None]):
        self.folders = folders
        self.prepare = prepare

    def load(
        self, environment: jinja2.Environment, name: str, globals: MutableMapping[str, Any] | None = None
    ) -> jinja2.Template:
        template = super().load(environment, name, globals)
        self.prepare(name, template)
        return template

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        pieces = jinja2.loaders.split_template_path(template)
        for folder in self.folders:
            path = str(folder.joinpath(*pieces))
            try:
                data = read_below(folder, pieces, TEMPLATE)
            except FileNotFoundError:
                continue
            except InputError as error:
                raise TemplateError(path, error.problems[0].message) from None
            except Refused as error:
                raise TemplateError(
                    str(error.path), f"{error.reason}; template folders may hold only regular files and folders"
                ) from None
            except OSError as error:
                raise TemplateError(path, f"cannot be read: {error.strerror or error}") from None
            try:
                return data.decode(), path, lambda: True
            except UnicodeDecodeError as error:
                line = data[: error.start].count(b"\n") + 1
                raise TemplateError(
                    f"{path}:{line}", f"not UTF-8 text (byte 0x{data[error.start]:02x}); templates are UTF-8"
                ) from None
        raise jinja2.TemplateNotFound(template)


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Raise :class:`RenderTimeout` in the block after ``seconds`` (main thread only: signals go there), then put
    back any timer and handler that were set before."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(_number: int, _frame: object) -> None:
        raise RenderTimeout(f"the template ran longer than {seconds:g} s")

    handler = signal.signal(signal.SIGALRM, expire)
    start = time.monotonic()
    delay, interval = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, handler)
        if delay:
            signal.setitimer(signal.ITIMER_REAL, max(delay - (time.monotonic() - start), 1e-3), interval)


class Renderer:
    """One build's Jinja2 environment: user templates first, then the shipped ones, each compiled once."""

    def __init__(
        self,
        user_templates: Path | None = None,
        options: Mapping[str, Mapping[str, Any]] | None = None,
        management: Callable[[str], Management | None] | None = None,
        hardware: Catalog | None = None,
    ):
        if not SHIPPED_TEMPLATES.is_dir():
            raise PrerequisiteError(
                f"the shipped templates are not at {SHIPPED_TEMPLATES}; install designer from "
                "its repository with 'pip install -e .' so that templates/ stays beside it"
            )
        folders = [SHIPPED_TEMPLATES]
        if user_templates is not None and user_templates.resolve() != SHIPPED_TEMPLATES:
            folders.insert(0, user_templates)
        self.folders = folders
        self.overridden = len(folders) > 1
        """Whether user templates are searched first: then the build renders in the sandbox, against the clock."""
        environment = Sandbox if self.overridden else Plain
        self.environment = environment(
            loader=FolderLoader(folders, self._prepare),
            undefined=jinja2.StrictUndefined,
            autoescape=False,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            auto_reload=False,
            bytecode_cache=None if self.overridden else shipped_code(),
            cache_size=-1,  # a plain dict: every {% include %} looks its template up without the LRU cache's lock
        )
        self.templates: dict[str, jinja2.Template] = {}
        self.shared = {} if self.overridden else shared_blocks()
        """The shared blocks of the shipped templates, each with the variables its text is made of (none with user
        templates, which may read anything)."""
        self.blocks: dict[tuple[str, Hashable], str] = {}
        """Each shared block's text by its template and the values of its variables."""
        self.views: dict[str, View] = {}
        """Per target, its view in this rendering (made on first use)."""
        self.options = options or {}
        """Per target, the keyword arguments of its view (the intent's ``target_options``: the NVUE release)."""
        self.limits = (hardware or catalog()).targets
        """Per network OS, its entry of the catalog the design is made with (default: the shipped one), which the
        view of a card with ``catalog_limits`` is given."""
        self.management = management or _unmanaged
        """A switch's management side by its name (:mod:`designer.networks.management`), which the view of a target
        that configures a management port is given."""

    def template(self, target: str) -> jinja2.Template:
        """The compiled entry template of ``target`` (compiled on first use, then reused)."""
        return self.compiled(TARGETS[target].template)

    def compile_templates(self, targets: Iterable[str], *folders: str) -> None:
        """Compile now every shipped template of ``targets`` (the folder of each one's entry template: ``eos``) and
        under ``folders`` (``hosts``), or the user's template of the same name, so that processes forked afterwards
        share the compiled code instead of each compiling it."""
        for folder in sorted({*(TARGETS[target].template.partition("/")[0] for target in targets), *folders}):
            for path in sorted((SHIPPED_TEMPLATES / folder).glob("*.j2")):
                self.compiled(f"{folder}/{path.name}")

    def compiled(self, name: str) -> jinja2.Template:
        """The compiled template ``name`` (``frr/frr.conf.j2``), compiled on first use, then reused."""
        if name not in self.templates:
            try:
                with _deadline(RENDER_SECONDS) if self.overridden else contextlib.nullcontext():
                    template = self.environment.get_template(name)
            except jinja2.TemplateSyntaxError as error:
                raise _syntax_error(error) from None
            except RenderTimeout as error:
                raise TemplateError(name, f"compiling it ran longer than {RENDER_SECONDS:g} s ({error})") from None
            except jinja2.TemplateNotFound as error:
                raise TemplateError(
                    name, f"template {error.name} not found in {', '.join(map(str, self.folders))}"
                ) from None
            self.templates[name] = template
        return self.templates[name]

    def _prepare(self, name: str, template: jinja2.Template) -> None:
        """Ready a template just compiled (an included one too) for this build's renderings."""
        # Jinja keeps a template's globals as a ChainMap over the environment's, read key by key in Python at
        # every rendering and include; this build never changes them, so each template gets them as one dict.
        template.globals = dict(template.globals)
        if name in self.shared:
            template.root_render_func = _shared(template, self.shared[name], self.blocks)

    def render(self, target: str, device: DeviceConfig, name: str | None = None) -> str:
        """One device's file for ``target`` from template ``name`` (default: its configuration), within the limits
        of :meth:`render_template`."""
        if target not in self.views:
            self.views[target] = view_of(target)
        options = self.options.get(target, {})
        if TARGETS[target].management_port:
            options = {**options, "management": self.management(device.hostname)}
        if TARGETS[target].catalog_limits:
            options = {**options, "limits": self.limits[target]}
        variables = self.views[target](device, **options)
        return self.render_template(name or TARGETS[target].template, variables, device.hostname)

    def render_template(self, name: str, variables: dict[str, Any], subject: str) -> str:
        """Template ``name`` filled with ``variables``, within the limits on size and, when user templates are
        searched, on time (the shipped templates only loop over the design); ``subject`` (a host name) is named in
        errors."""
        template = self.compiled(name)
        try:
            with _deadline(RENDER_SECONDS) if self.overridden else contextlib.nullcontext():
                text = _render_bounded(template, variables)
        except TemplateError:
            raise
        except jinja2.TemplateSyntaxError as error:  # an included template, compiled on first use
            raise _syntax_error(error) from None
        except Exception as error:
            raise TemplateError(
                self._where(template), f"{type(error).__name__}: {error} (rendering {subject})"
            ) from None
        return text

    def _where(self, template: jinja2.Template) -> str:
        """``file:line`` of the innermost template frame of the exception being handled."""
        where = template.filename or template.name or "template"
        folders = [str(folder.resolve()) for folder in self.folders]
        traceback = sys.exc_info()[2]
        while traceback is not None:
            filename = traceback.tb_frame.f_code.co_filename
            if any(str(Path(filename).resolve()).startswith(folder) for folder in folders):
                where = f"{filename}:{traceback.tb_lineno}"
            traceback = traceback.tb_next
        return where


def _shared(
    template: jinja2.Template, variables: tuple[str, ...], texts: dict[tuple[str, Hashable], str]
) -> Callable[[jinja2.runtime.Context], Iterator[str]]:
    """The render function of a shared block: its text for the values of ``variables`` in the including template's
    context, rendered from those variables alone the first time (so it cannot read anything else) and kept in
    ``texts``; a context without one of them, or with a value that cannot be a key, renders as usual."""
    render = template.root_render_func
    name = template.name or ""

    def root(context: jinja2.runtime.Context) -> Iterator[str]:
        values = {variable: context.resolve_or_missing(variable) for variable in variables}
        try:
            key = (name, tuple(map(_hashable, values.values())))
            text = texts.get(key)
        except TypeError:
            yield from render(context)
            return
        if text is None:
            if any(value is jinja2.utils.missing for value in values.values()):
                yield from render(context)
                return
            text = texts[key] = "".join(render(template.new_context(values)))
        yield text

    return root


def _hashable(value: Any) -> Hashable:
    """``value`` as a key: a dict as its items in order, a list as a tuple (both are read in order)."""
    if isinstance(value, dict):
        return tuple(value.items())
    if isinstance(value, list):
        return tuple(value)
    return cast(Hashable, value)


def _unmanaged(_hostname: str) -> None:
    """The management side of a switch of a rendering given none: nothing to configure."""


def _render_bounded(template: jinja2.Template, variables: dict[str, Any]) -> str:
    """``template.render(variables)``, stopped at :data:`MAX_CHUNKS` pieces or :data:`MAX_FILE_CHARS` characters;
    errors carry the template's own lines, as with ``render``."""
    try:
        chunks = template.root_render_func(template.new_context(variables))
        text = "".join(islice(chunks, MAX_CHUNKS))
        if next(chunks, None) is not None or len(text) > MAX_FILE_CHARS:
            # thrown into the template's code where it stopped, so that the error names that template and line
            _innermost(chunks).throw(
                SecurityError(
                    f"the rendered file is larger than {MAX_FILE_CHARS:,} characters "
                    f"or {MAX_CHUNKS:,} pieces; a switch configuration is far smaller"
                )
            )
        return text
    except Exception:
        template.environment.handle_exception()  # re-raises, with the template's own lines in the traceback


def _innermost(chunks: Iterator[str]) -> GeneratorType[str, None, None]:
    """The output generator of the innermost template being rendered (Jinja's render functions are generators):
    Jinja runs an ``{% include %}`` as the generator ``gen`` of the including template's code."""
    innermost = cast("GeneratorType[str, None, None]", chunks)
    while innermost.gi_frame is not None and isinstance(inner := innermost.gi_frame.f_locals.get("gen"), GeneratorType):
        innermost = inner
    return innermost


def _syntax_error(error: jinja2.TemplateSyntaxError) -> TemplateError:
    return TemplateError(f"{error.filename or error.name}:{error.lineno}", error.message or "")


def user_templates_for(intent_file: str, explicit: Path | None) -> Path | None:
    """The user's template folder: ``explicit`` if given (it must be a folder), else ``templates/`` beside the
    intent file if both exist (an intent given as text has no folder); a linked ``templates/`` is refused."""
    if explicit is not None:
        if not explicit.is_dir():
            raise TemplateError(
                str(explicit),
                "--templates names no folder; give a folder of template overrides "
                "laid out like the shipped templates/ (frr/bgp.j2, ...)",
            )
        return explicit
    if not Path(intent_file).is_file():
        return None
    beside = Path(intent_file).parent / "templates"
    if beside.is_symlink():
        raise TemplateError(
            str(beside),
            "is a symbolic link; put the override folder itself beside the intent, or pass it with --templates",
        )
    return beside if beside.is_dir() else None
