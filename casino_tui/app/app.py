"""The Textual App: screens, settings, card style, the minimum-size guard and the game flow.

Only the title screen is imported on the start-up path; other screens, the engine's heavier
parts and the computer players' worker process are imported when first needed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import App
from textual.binding import Binding, BindingType

from casino_tui.settings import Settings, load_settings, save_settings

from .cardfmt import CardPainter
from .screens.title import TitleScreen
from .screens.toosmall import MIN_HEIGHT, MIN_WIDTH, TooSmallScreen
from .styles import css

if TYPE_CHECKING:  # pragma: no cover
    from casino_tui.engine import Rules, State

    from .players import Chooser
    from .screens.gameover import GameOverChoice
    from .session import GameConfig


class CasinoApp(App[None]):
    """casino-tui. Keyword arguments are the command line's choices and the test hooks:

    ``config``: defaults of the New game screen; ``state`` with ``config``: start straight at
    the table with this position (tests); ``chooser_factory``: how computer players decide
    (default: the AI worker process; tests pass an in-process deterministic chooser);
    ``settings``: instead of the saved ones; ``ascii``: force ASCII cards.
    """

    TITLE = "casino-tui"
    CSS_PATH: ClassVar[list[str | Path]] = css("app", "title")
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-narrow"), (110, "-wide")]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark,f1", "help", "Help", show=False, id="app.help"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, id="app.quit"),
    ]
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, *, config: GameConfig | None = None, state: State | None = None,
                 chooser_factory: Callable[[], Chooser] | None = None,
                 settings: Settings | None = None, ascii: bool = False,
                 save_settings_to_disk: bool = True) -> None:
        super().__init__()
        self.settings = settings if settings is not None else load_settings()
        self.force_ascii = ascii
        self.start_config = config
        self.start_state = state
        self.chooser_factory = chooser_factory
        self.save_settings_to_disk = save_settings_to_disk
        self.too_small = False
        self._pending_start: tuple[GameConfig | None, State | None] | None = None
        self._chooser: Chooser | None = None
        self.painter = self._make_painter()
        self.animation_level = "none"

    # ------------------------------------------------------------------ settings
    def _make_painter(self) -> CardPainter:
        return CardPainter(symbols=self.settings.symbols and not self.force_ascii,
                           four_colour=self.settings.four_colour)

    def apply_settings(self, settings: Settings) -> None:
        self.settings = settings
        self.painter = self._make_painter()
        if settings.theme in self.available_themes:
            self.theme = settings.theme
        if self.save_settings_to_disk:
            save_settings(settings)
        from .screens.game import GameScreen

        for screen in self.screen_stack:
            if isinstance(screen, GameScreen):
                screen.settings_changed()
            elif isinstance(screen, TitleScreen):
                screen.refresh_menu()

    # ------------------------------------------------------------------ start and size
    def get_default_screen(self) -> TitleScreen:
        return TitleScreen()

    def on_mount(self) -> None:
        if self.settings.theme in self.available_themes:
            self.theme = self.settings.theme
        if self.start_state is not None:
            self.start_game(self.start_config, self.start_state)
        self._check_size(self.size.width, self.size.height)

    def on_resize(self, event: events.Resize) -> None:
        self._check_size(event.size.width, event.size.height)

    def _check_size(self, width: int, height: int) -> None:
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        if small == self.too_small:
            return
        self.too_small = small
        if small:
            self.push_screen(TooSmallScreen())
            return
        if isinstance(self.screen, TooSmallScreen):
            self.pop_screen()
        if self._pending_start is not None:
            config, state = self._pending_start
            self._pending_start = None
            self.start_game(config, state)

    # ------------------------------------------------------------------ computer players
    def chooser(self) -> Chooser:
        if self._chooser is None:
            if self.chooser_factory is not None:
                self._chooser = self.chooser_factory()
            else:
                from .players import WorkerChooser

                self._chooser = WorkerChooser()
        return self._chooser

    async def action_quit(self) -> None:
        self.shutdown_chooser()
        self.exit()

    def shutdown_chooser(self) -> None:
        if self._chooser is not None:
            self._chooser.shutdown()
            self._chooser = None

    def on_unmount(self) -> None:
        self.shutdown_chooser()

    # ------------------------------------------------------------------ saves (later issue)
    def saved_game_label(self) -> str | None:
        """A description of the saved game that Continue would resume, if any."""
        return None

    def can_load(self) -> bool:
        return False

    # ------------------------------------------------------------------ navigation
    def action_help(self) -> None:
        from .screens.help import HelpScreen

        screen = self.screen
        if isinstance(screen, HelpScreen) or self.too_small:
            return
        sections = getattr(screen, "help_sections", lambda: [])()
        self.push_screen(HelpScreen(sections))

    def show_rules(self, rules: Rules | None, num_players: int | None) -> None:
        from casino_tui.engine import Rules as _Rules

        from .screens.rules import RulesScreen

        browse = rules is None
        if rules is None:
            preset = self.start_config.preset if self.start_config else "classic"
            rules = _Rules.preset(preset)
        self.push_screen(RulesScreen(rules, self.painter, num_players, browse=browse))

    def show_settings(self) -> None:
        from .screens.settings import SettingsScreen

        def done(result: Settings | None) -> None:
            if result is not None:
                self.apply_settings(result)

        themes = sorted(self.available_themes)
        self.push_screen(SettingsScreen(self.settings, themes, self.force_ascii), done)

    def show_setup(self, config: GameConfig | None = None) -> None:
        from .screens.setup import SetupScreen
        from .session import GameConfig as _GameConfig

        levels = self.levels()
        cfg = config or self.start_config or _GameConfig()
        self.push_screen(SetupScreen(cfg, levels), self._setup_done)

    def levels(self) -> tuple[str, ...]:
        from casino_tui.ai import LEVELS

        return tuple(LEVELS)

    def _setup_done(self, config: GameConfig | None) -> None:
        if config is not None:
            self.start_config = config
            self.start_game(config, None)

    def start_game(self, config: GameConfig | None, state: State | None) -> None:
        from .screens.game import GameScreen
        from .session import GameConfig as _GameConfig
        from .session import GameSession

        if self.too_small:  # start when the terminal is large enough
            self._pending_start = (config, state)
            return
        cfg = config or _GameConfig()
        session = GameSession(cfg, state)
        self.push_screen(GameScreen(session, self.chooser()))

    def game_over_choice(self, choice: GameOverChoice | None) -> None:
        if choice == "quit":
            self.shutdown_chooser()
            self.exit()
            return
        self.back_to_title()
        if choice == "new":
            self.show_setup(self.start_config)

    def back_to_title(self) -> None:
        """Close every screen above the title screen, at once (a new screen may follow)."""
        while len(self.screen_stack) > 1:
            self.pop_screen()
