"""A stylesheet whose parsed rules are shared by every app of the process, and by every game
forked from the server's fork server.

Textual keeps the rules it parsed per stylesheet, and parses every source again from scratch
whenever a screen brings a file of its own (``reparse`` starts from a new, empty stylesheet) or
the theme changes. So a game parsed all its CSS (Textual's widgets' and ours, about 50 sources)
before its title's first frame, although the fork server it was forked from had parsed the
same text already, and again when it first showed the table: a quarter of a login's CPU.

:class:`SharedStylesheet` keeps what it parsed in one cache per process, keyed by the CSS
variables (the theme) as well as the source, so that an app parses a source only if no app of
the process (or the fork server before the fork) parsed it with the same variables. Textual
shares parsed rules between the parses of one stylesheet in the same way: they are never
changed once parsed.

:class:`SharedStylesheet` also builds its rules from what it had when a widget brings new
sources and nothing else changed: Textual builds the whole list of rules, and the map of each
selector name to its rules, again from every source whenever one is added (each widget class
the app shows for the first time adds its ``DEFAULT_CSS``: the round's summary added three,
in two rebuilds, at every player's first round's end). The new sources come last (a source's
place is where it was first added), so their rules go at the end of the list, and of each
name's list in the map: what Textual's full build gives, in the same order. Anything else
(a source changed, one whose CSS was invalid) is built in full, as from Textual.

:func:`parse_ahead` parses files no screen has brought yet into that cache: the fork server
parses every screen's file so, so that no game parses one when it first shows that screen (the
round's summary, at the end of every player's first round, at once for a crowd).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from pathlib import PurePath
from typing import TypeVar

from textual.css.model import RuleSet
from textual.css.stylesheet import CSSLocation, CssSource, Stylesheet
from textual.css.tokenize import tokenize_values
from textual.css.tokenizer import Token
from textual.theme import Theme

_Variables = tuple[tuple[str, str], ...]
# (variables, css, where it was read from, is default CSS, tie breaker, scope) -> its rules
_Key = tuple[_Variables, str, CSSLocation, bool, int, str]
MAX_PARSED = 512  # sources kept: about 50 a theme, so about ten themes
MAX_THEMES = 16  # variables and their tokens kept: one set a theme
_parsed: dict[_Key, list[RuleSet]] = {}
_tokens: dict[_Variables, dict[str, list[Token]]] = {}
_themes: dict[Hashable, tuple[Theme, dict[str, str]]] = {}
_K = TypeVar("_K", bound=Hashable)
_V = TypeVar("_V")


def _keep(cache: dict[_K, _V], key: _K, value: _V, most: int) -> None:
    if len(cache) >= most:
        cache.pop(next(iter(cache)))  # the oldest
    cache[key] = value


def theme_variables(theme: Theme, defaults: dict[str, str],
                    generate: Callable[[], dict[str, str]]) -> dict[str, str]:
    """The CSS variables of ``theme`` over ``defaults`` (a copy): ``generate()`` (Textual's
    ``App.get_css_variables``) the first time in this process, then what it returned. Kept by
    the theme's name and the defaults, and only while the name is still that theme object."""
    key = (theme.name, tuple(sorted(defaults.items())))
    known = _themes.get(key)
    if known is None or known[0] is not theme:
        known = (theme, dict(generate()))
        _keep(_themes, key, known, MAX_THEMES)
    return dict(known[1])


class SharedStylesheet(Stylesheet):
    """A :class:`Stylesheet` that parses a source only once per process and theme."""

    def __init__(self, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self._variables_key: _Variables | None = None
        # the sources the rules were last built from, in order (None: not built from them)
        self._built_from: list[tuple[CSSLocation, CssSource]] | None = None
        # the last map of selector names built, with the rules it was built from
        self._map_of: tuple[list[RuleSet], dict[str, list[RuleSet]]] | None = None

    def set_variables(self, variables: dict[str, str]) -> None:
        super().set_variables(variables)
        self._variables_key = None

    def _variables_now(self) -> _Variables:
        if self._variables_key is None:
            self._variables_key = tuple(sorted(self._variables.items()))
        return self._variables_key

    @property
    def _variable_tokens(self) -> dict[str, list[Token]]:
        """Textual's tokens of every variable's value, made once per process and variables
        (never changed once made: Textual itself reuses them for every parse)."""
        key = self._variables_now()
        tokens = _tokens.get(key)
        if tokens is None:
            tokens = tokenize_values(self._variables)
            _keep(_tokens, key, tokens, MAX_THEMES)
        return tokens

    def _parse_rules(self, css: str, read_from: CSSLocation, is_default_rules: bool = False,
                     tie_breaker: int = 0, scope: str = "") -> list[RuleSet]:
        key = (self._variables_now(), css, read_from, is_default_rules, tie_breaker, scope)
        rules = _parsed.get(key)
        if rules is None:
            rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
            _keep(_parsed, key, rules, MAX_PARSED)
        return rules

    def parse(self) -> None:
        """Textual's ``parse``, but only the sources added since the last one when nothing
        else changed (see the module): their rules after the ones already built."""
        sources = list(self.source.items())
        built, done = self._built_from, len(self._built_from or ())
        if (built is None or not done or done >= len(sources) or self._invalid_css
                or sources[:done] != built):
            super().parse()
            self._built_from = sources if not self._invalid_css else None
            return
        added = self._sheet_of(sources[done:])
        try:
            added.parse()
        except Exception:
            self._invalid_css.update(added._invalid_css)
            self._built_from = None
            raise
        before, new = self._rules, added._rules
        self._rules = before + new
        self._rules_map = None
        self._require_parse = False
        self._built_from = sources
        if self._map_of is not None and self._map_of[0] is before:
            rules_map = dict(self._map_of[1])
            for rule in new:
                for name in rule.selector_names:
                    rules_map[name] = [*rules_map.get(name, ()), rule]
            self._rules_map = rules_map
            self._map_of = (self._rules, rules_map)

    def _sheet_of(self, sources: Iterable[tuple[CSSLocation, CssSource]]) -> SharedStylesheet:
        """A new stylesheet with this one's variables and ``sources`` (not parsed yet)."""
        sheet = SharedStylesheet(variables=self._variables)
        sheet._variables_key = self._variables_key
        for read_from, (css, is_defaults, tie_breaker, scope) in sources:
            sheet.add_source(css, read_from=read_from, is_default_css=is_defaults,
                             tie_breaker=tie_breaker, scope=scope)
        return sheet

    @property
    def rules_map(self) -> dict[str, list[RuleSet]]:
        """Textual's map of each selector name to its rules (kept with its rules, to be
        extended when sources are added)."""
        if self._rules_map is None:
            rules_map = super().rules_map
            self._map_of = (self._rules, rules_map)
        assert self._rules_map is not None
        return self._rules_map

    def reparse(self) -> None:
        """Textual's ``reparse`` (parse every source again with the current variables, keeping
        this stylesheet as it is if that fails), from a stylesheet sharing the parsed rules."""
        fresh = self._sheet_of(self.source.items())
        try:
            fresh.parse()
        except Exception:
            self._invalid_css.update(fresh._invalid_css)
            raise
        self._rules = fresh.rules
        self._rules_map = None
        self.source = fresh.source
        self._require_parse = False
        self._built_from = fresh._built_from


def parse_ahead(paths: Iterable[str | PurePath], variables: dict[str, str]) -> None:
    """Parse the CSS files ``paths`` with ``variables`` (an app's ``get_css_variables()``)
    into the process's cache, as an app's stylesheet reads and parses them when a screen
    brings them (``App._load_screen_css``), so that no app of the process parses them again
    with the same variables. No app's stylesheet is changed."""
    sheet = SharedStylesheet(variables=variables)
    for path in paths:
        sheet.read(path)
    sheet.parse()
