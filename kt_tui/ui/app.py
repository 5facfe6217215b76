"""The Textual app: opens a new session (kernel pick, spec edit) or resumes a stored one."""

from __future__ import annotations

import gc
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from ..config import Settings
from ..errors import UserError
from ..store import SessionStore, Store
from . import prefs, signals
from .keys import palette_commands
from .services import Services
from .session_screen import SessionScreen
from .theme import load_themes

if TYPE_CHECKING:
    from ..kernel.spec import Spec

# Imported where used: the screens a resumed session's first frame does not show (the sessions
# browser, the kernel pick and spec editor, the modals), the drafter and the spec's models (a stored
# spec is checked after that frame: SessionScreen._check_spec), so that it does not wait for them.


def binding_ids() -> set[str]:
    """The ids a [keys] table in config.toml may remap: every screen's bindings that have one."""
    from . import (  # noqa: F401 - here: every screen with bindings, which the first frame does not load
        editors,
        export_screen,
        report_screen,
        sessions_screen,
        settings_screen,
        setup_screens,
        spec_draft,
        strategy_picker,
    )

    found: set[str] = set()
    todo: list[type] = [Screen, KtApp]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        found |= {b.id for b in getattr(cls, "BINDINGS", []) if getattr(b, "id", None)}
    return found


def key_clashes(keymap: dict[str, str]) -> list[str]:
    """Where the [keys] remaps put two actions of one screen on one key (only one of them would work):
    a line each, naming the key, the actions and the screen."""
    binding_ids()  # every screen loaded
    found: list[str] = []
    todo: list[type] = [Screen, KtApp]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        on: dict[str, list[str]] = {}
        for b in cls.__dict__.get("BINDINGS", []):
            if not isinstance(b, Binding):
                continue
            keys = keymap.get(b.id, b.key) if b.id else b.key
            for key in {k.strip() for k in keys.split(",") if k.strip()}:
                on.setdefault(key, []).append(b.id or b.action)
        for key, names in sorted(on.items()):
            if len(set(names)) > 1 and set(names) & set(keymap):
                found.append(
                    f"config.toml [keys]: {' and '.join(sorted(set(names)))} are both on {key!r} "
                    f"({cls.__name__}): only one of them works"
                )
    return found


class KtApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "kt-tui"

    def __init__(
        self,
        settings: Settings,
        store: Store,
        services: Services,
        kernel_file=None,
        spec_path: str | None = None,
        kernel_name: str | None = None,
        resume: str | None = None,
        browse: bool = False,
        collect: bool = False,
    ) -> None:
        """kernel_file: the kernel to open (front/session.py: KernelFile); resume: a session id;
        collect: garbage collection was on before front/commands.py tui_app turned it off, and comes
        back on once the first screen is drawn (first_frame_drawn)."""
        super().__init__()
        self.collect = collect
        self.settings, self.store, self.services, self.browse = settings, store, services, browse
        self.kernel_file, self.spec_path, self.kernel_name, self.resume = kernel_file, spec_path, kernel_name, resume
        themes, self.theme_problems = load_themes()
        for theme in themes:
            self.register_theme(theme)
        names = {t.name for t in themes} | set(self.available_themes)
        saved = prefs.load().get("theme")  # picked in the palette last time; a theme set in config.toml or
        wanted = self.settings.theme if "theme" in self.settings.model_fields_set or not saved else saved  # env wins
        self.shown_theme = wanted if wanted in names else "kt-dark"
        self._first_theme(self.shown_theme)

    def _first_theme(self, name: str) -> None:
        """The theme, set before the stylesheet is first parsed: set later (in on_mount), Textual parses
        every CSS source a second time, with its colours, before the first frame."""
        self.set_reactive(App.theme, name)
        theme = self.current_theme
        self.update_classes(
            {
                **{c: False for c in self.classes if c.startswith("-theme-")},
                f"-theme-{name}": True,
                "-dark-mode": theme.dark,
                "-light-mode": not theme.dark,
            },
            update=False,
        )
        self._refresh_truecolor_filter(self.ansi_theme)  # as App._watch_theme does (textual is pinned)
        self.stylesheet.set_variables(self.get_css_variables())

    def first_frame_drawn(self) -> None:
        """The first screen is drawn: what exists now stays out of full collections (the imports'
        objects, the widgets: session_stored.freeze_heap says why) and collection is back on."""
        gc.freeze()
        if self.collect:
            self.collect = False
            gc.enable()

    def on_mount(self) -> None:
        signals.install(self, self._signalled)
        gc.freeze()  # the imports' objects: full collections skip them (session_stored.freeze_heap says why)
        if not self.resume:  # a resumed session's screen says when it is drawn
            self.call_after_refresh(self.first_frame_drawn)
        self.theme_changed_signal.subscribe(self, self._theme_picked)
        for problem in self.theme_problems:
            self.notify(problem, severity="warning")
        if self.settings.keys:
            known = binding_ids()
            for name in sorted(set(self.settings.keys) - known):
                self.notify(
                    f"config.toml [keys]: no key binding {name!r}; known: {', '.join(sorted(known))}",
                    severity="warning",
                    timeout=15,
                )
            for clash in key_clashes(self.settings.keys):
                self.notify(clash, severity="warning", timeout=15)
            self.set_keymap(self.settings.keys)
        if self.browse:
            from .sessions_screen import SessionsScreen

            self.push_screen(SessionsScreen(self.store))
        elif self.resume:
            self._open_stored(self.resume)
        else:
            self._choose_kernel()

    def _signalled(self, signum: int) -> None:
        """SIGTERM, SIGHUP or Ctrl-C from outside: each open session stops as a headless one does and
        the app exits with 128 + the signal once they have (ui/signals.py); with none, at once."""
        sessions = [s for s in self.screen_stack if isinstance(s, SessionScreen)]
        for screen in sessions:
            signals.stop_session(screen, signum)
        if not sessions:
            self.exit(return_code=128 + signum)

    def _theme_picked(self, theme) -> None:
        if theme.name != self.shown_theme:  # not the one shown at start: picked in the palette
            self.shown_theme = theme.name
            prefs.save(theme=theme.name)

    # -- new session ---------------------------------------------------------------------
    @property
    def _spec_file(self) -> Path:
        from ..kernel.spec import spec_path_for

        return Path(self.spec_path) if self.spec_path else spec_path_for(self.kernel_file.path)

    def _choose_kernel(self) -> None:
        kf = self.kernel_file
        name = self.kernel_name
        if name is None and self._spec_file.is_file():
            try:
                found = tomllib.loads(self._spec_file.read_text(encoding="utf-8")).get("kernel")
                name = found if isinstance(found, str) and found in {k.name for k in kf.kernels} else None
            except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError):
                pass
        if name is None and len(kf.kernels) > 1:
            from .setup_screens import KernelPickScreen  # here: the pick and the editor load where they open

            self.push_screen(KernelPickScreen(kf.path, kf.kernels), self._kernel_chosen)
        else:
            self._kernel_chosen(name)

    def _kernel_chosen(self, name: str | None) -> None:
        from ..kernel.source import pick_kernel
        from ..kernel.spec import SpecError, dump_spec, load_spec

        kernel = pick_kernel(self.kernel_file.kernels, name, str(self.kernel_file.path))
        path = self._spec_file
        if not path.exists():
            from ..kernel.draft import draft_spec  # here: the drafter (numpy) only for a draft
            from ..kernel.draft_floats import draft_note
            from .setup_screens import SpecEditScreen  # here: the editor only where it opens

            draft = draft_spec(kernel, src=self.kernel_file.source)
            note = (
                "No launch spec was found, so this draft was inferred from the kernel's source. "
                "Check the sizes, inputs and outputs: nothing runs until you save it." + draft_note(draft)
            )
            self.push_screen(
                SpecEditScreen(dump_spec(draft), path, kernel, note=note, source=self.kernel_file.source),
                self._spec_ready(kernel),
            )
            return
        try:
            spec = load_spec(path, kernel)
        except SpecError as e:
            from ..kernel.draft import draft_spec
            from .setup_screens import SpecEditScreen

            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                text = dump_spec(draft_spec(kernel, src=self.kernel_file.source))
            self.push_screen(
                SpecEditScreen(
                    text,
                    path,
                    kernel,
                    note="The spec has a problem; fix it to go on.",
                    error=str(e),
                    source=self.kernel_file.source,
                ),
                self._spec_ready(kernel),
            )
            return
        self._spec_ready(kernel)(spec)

    def _spec_ready(self, kernel):
        def open_session(spec: Spec | None) -> None:
            if spec is None:
                return
            kf = self.kernel_file
            prepare = self.services.open_new(self.settings, self.store, kf, spec)
            self.push_screen(
                SessionScreen(
                    self.settings,
                    self.store,
                    kf.source,
                    spec,
                    prepare,
                    kernel_label=kf.path.name,
                    services=self.services,
                )
            )

        return open_session

    # -- resume --------------------------------------------------------------------------
    def _open_stored(self, sid: str, spec: Spec | None = None) -> None:
        """spec: the stored one, checked; without it the screen checks it after its first frame (a
        tampered DB is refused there, naming the field)."""
        s = SessionStore(self.store, sid).session()
        original = self.store.original(sid)
        prepare = self.services.open_stored(self.settings, self.store, sid)
        self.push_screen(
            SessionScreen(
                self.settings,
                self.store,
                original["source"],
                spec or original["spec_json"],
                prepare,
                sid=sid,
                kernel_label=Path(s["kernel_path"]).name,
                services=self.services,
            )
        )

    def open_stored(self, sid: str) -> None:
        """From the sessions browser; quitting that session comes back to it."""
        from ..kernel.spec import spec_from_plain
        from .sessions_screen import writable  # loaded: the browser calls this

        if not writable(self, self.store):  # a read-only database is listed; a session in it cannot run
            return
        try:
            self.store.session(sid)  # a damaged session (store/sound.py) is said here, the browser stays
            spec = spec_from_plain(self.store.original(sid)["spec_json"])
        except UserError as e:  # a stored spec that does not pass its checks: said, the browser stays
            self.notify(str(e), severity="error", timeout=10)
            return
        self._open_stored(sid, spec)

    async def action_quit(self) -> None:
        """Ctrl+Q and the palette's Quit leave a session as `q` does: after "Cannot go on", status 2 and why."""
        if isinstance(self.screen, SessionScreen) and not self.browse:
            self.screen.action_quit_session()
        else:
            self.exit()

    def get_system_commands(self, screen):
        yield from super().get_system_commands(screen)
        if isinstance(screen, SessionScreen):
            yield from palette_commands(screen, self.settings.keys or {})

    def on_unmount(self) -> None:
        signals.remove()
        gc.unfreeze()
        if self.collect:  # left before the first frame
            self.collect = False
            gc.enable()
        for screen in self.screen_stack:
            if isinstance(screen, SessionScreen):
                screen.shutdown()
