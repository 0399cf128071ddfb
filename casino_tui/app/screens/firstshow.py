"""A screen shown for the first time: its widgets styled once, laid out twice, drawn once.

When a screen is pushed, Textual styles each of its widgets as it mounts them, then lays the
screen out and draws all of it (``Screen._on_screen_resume``), and on top of that:

- it styles the whole screen again at that first resume (``ScreenResume.refresh_styles``),
  although most of its widgets were styled as they were mounted, with the classes they still
  have;
- the first layout sends the screen a resize to the size it was just laid out at, and
  Textual's handler of it lays the screen out again, lays out every screen under it again, and
  sets the breakpoint classes (``-narrow``, ...), which styles the whole screen a third time;
- it asks for all of it to be drawn again at the next refresh: the same frame twice;
- before the first resume, a widget whose classes or pseudo-classes change is styled again
  with all it holds, each time: an ``Input`` sets ``-textual-compact`` and ``-valid`` as it
  is made (styled then, out of the DOM, and again as it is mounted), a field is focused, a
  row disabled. Each of the New game screen's four fields was styled three or four times
  before its first frame, each time with its four component classes.

:class:`FirstShow` drops them: the breakpoint classes are set as the screen is made (so its
widgets are styled with them at once), a resize to the size the screen is already laid out at
only sets them (any other resize, a real one, goes on to Textual), the second drawing of the
whole first frame is dropped (what changed since the first frame is still drawn, and whatever
asks for a repaint later gets it), and a restyle of a node of the screen before its first
resume, or of a node not in the DOM, is left out (:func:`restyle_held`, from the app's
``update_styles``). A node is styled as it is mounted, with the classes it has by then; the
first resume restyles, instead of the whole screen, only the nodes whose restyle was held
(each with what it holds, with the classes they have by then) and the screen itself (styled as
it was pushed, before the app read the CSS files it brings): on the New game screen 3 of its 26
nodes (the screen, the focused field, the cycler disabled for two players), on the table 1 of
17. What each node ends up with is what a full restyle gives it (tests/ui/test_restyle.py).
(Skipping that restyle altogether once left the key hints' ``@click`` links dead in a browser,
tests/web/test_web_browser.py, and the screen itself without the rules of its own CSS file:
the New game screen's ``align``, its box a column to the left.) The second drawing is asked
for once the push's widgets are all mounted (Textual's ``AwaitMount``, on the app's queue),
and for the table also once the New game screen it replaces is removed: so it is dropped from
the app's queue, after those (the layout they ask for stays: what it moves is drawn). Until
then the app's drawing is held (its ``batch_update``, from just after the first frame): on a
busy host the app's queue is late, and the screen's update timer (a frame after its first
resume) drew the whole again, and laid the screen out a third time, before the second
drawing was dropped. What a screen seen through this one (the table under a dialog) had
changed before the first frame, which drew it as it was then, is not drawn again either:
Textual had the dialog draw all of itself for it once that screen's update came. The picture
is the same (every snapshot unchanged). A screen whose
picture differs when its breakpoint classes are there before it is styled sets
``EARLY_BREAKPOINTS = False`` and gets them at the first resize, as from Textual (the New
game screen did, when the first resume did not restyle: its box landed one column to the
left). The title screen does the same in its own way (``TitleScreen``).

A screen that sets ``SECOND_LAYOUT = False`` (the round's summary, the game over screen) is
also laid out once, not twice: Textual lays a pushed screen out again once its widgets have
their first sizes (each widget's virtual size, set by the first layout, asks for a layout) and
once its push's widgets are mounted (which they were at the first layout); both find what the
first did. A widget that shows a scroll bar after the first layout (that takes room) keeps the
second layout, as from Textual; whatever asks for a layout after the first gets it.

The notifications' rack Textual adds to every screen (``ToastRack``, hidden by its CSS) is
hidden by an inline rule as it is made: Textual's first resume of a screen shows the
notifications on its rack (``ToastRack.show``), which sets that rule, ``display: none`` when
there are none, a new rule that asked for a layout of the screen, and so the round's summary
was laid out twice in every served game (a game's screen has the rack; a test's app has it
only with ``notifications=True``). With the rule there already, ``show`` changes nothing
unless there are notifications to show (then they are shown and laid out, as from Textual).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from textual import events, messages
from textual._time import get_time  # (the clock of a message's time)
from textual.geometry import Size
from textual.widgets._toast import ToastRack  # (the notifications' rack, each screen's)

if TYPE_CHECKING:  # pragma: no cover
    from textual.dom import DOMNode
    from textual.screen import Screen
    from textual.widget import Widget

    _Base = Screen[Any]
else:
    _Base = object


def restyle_held(node: DOMNode) -> bool:
    """Whether a restyle of ``node`` and its descendants (Textual's ``App.update_styles``, for
    a class or pseudo-class changed) can be left out, because they will be styled anyway:

    - ``node`` is not in the app's DOM (a widget being made, whose ``__init__`` sets a class,
      as every ``Input`` does twice; or one taken out): a widget is styled as it is mounted
      (``App._register``), with the classes it has by then;
    - ``node`` is in a :class:`FirstShow` screen that was never shown (a widget mounted in it
      gets a class, the focus): its first resume restyles ``node`` and what it holds, with
      the classes they have by then (:meth:`FirstShow._restyle_the_held`)."""
    from textual.app import App
    from textual.screen import Screen

    if isinstance(node, App):
        return False
    screen: DOMNode | None = node
    while screen is not None and not isinstance(screen, Screen):
        screen = screen._parent  # type: ignore[assignment]
    if screen is None or screen._parent is None:  # (a screen's parent is the app)
        return True
    if isinstance(screen, FirstShow) and not screen._first_resume_done:
        screen._hold_restyle(node)
        return True
    return False


def drop_undrawn(screen: Screen[Any]) -> None:
    """Forget what ``screen`` changed and has not drawn (its widgets to repaint, its dirty
    regions): for a screen whose changes are already on the terminal, or hidden."""
    screen._repaint_required = False
    screen._dirty_widgets.clear()
    screen._compositor._dirty_regions.clear()


def breakpoint_classes(screen: Screen[Any], size: Size) -> dict[str, bool]:
    """The breakpoint classes of ``screen`` at ``size`` (``HORIZONTAL_BREAKPOINTS`` and
    ``VERTICAL_BREAKPOINTS``, the screen's own or else the app's), each with whether it
    applies, as Textual chooses them at a resize (``Screen._on_resize``)."""
    app = screen.app
    horizontal = (app.HORIZONTAL_BREAKPOINTS if screen.HORIZONTAL_BREAKPOINTS is None
                  else screen.HORIZONTAL_BREAKPOINTS) or []
    vertical = (app.VERTICAL_BREAKPOINTS if screen.VERTICAL_BREAKPOINTS is None
                else screen.VERTICAL_BREAKPOINTS) or []
    reached = screen._get_breakpoint_classes(size.width, horizontal) \
        | screen._get_breakpoint_classes(size.height, vertical)
    return {name: name in reached for _, name in horizontal + vertical}


class FirstShow(_Base):
    """Mixed into a screen (before Textual's ``Screen`` or ``ModalScreen``) that is pushed
    often: its first showing styled, laid out and drawn once (see the module)."""

    _first_resume_done = False
    _restyle_held = False  # a restyle was held until the first resume (restyle_held)
    _held_nodes: dict[int, DOMNode] | None = None  # (those nodes, by id(), in order)
    # False: the first resize to the size the screen is laid out at goes on to Textual (which
    # lays it out again; its breakpoint classes, already set, change nothing)
    SKIP_SAME_RESIZE = True
    # False: the breakpoint classes are set at the first resize, as from Textual
    EARLY_BREAKPOINTS = True
    # False: laid out once as it is first shown, not twice (see :meth:`_after_first_layout`)
    SECOND_LAYOUT = True
    _first_layout_done = False
    _laid_out_once = False  # the second layout dropped (True once the first is done)
    _first_layout_from = 0.0  # (Textual's clock) the first layout began after this
    _first_frame_kept = False  # (the second drawing of the whole first frame dropped)
    _first_frame_drawn = False  # (its first frame drawn, at its first resume)
    _updates_held: contextlib.ExitStack | None = None  # (the app's batch, until then)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # before the screen and its widgets are styled (made outside a running app, it gets
        # them at its first resize, as from Textual)
        with contextlib.suppress(RuntimeError):  # (Textual's NoActiveAppError)
            if self.EARLY_BREAKPOINTS:
                self.update_classes(breakpoint_classes(self, self.app.size), update=False)

    async def _compose(self) -> None:
        # The CSS files the screen brings, read before its widgets are made and mounted (each
        # is styled as it is mounted, and the first resume restyles only what was held): as
        # Textual's push_screen reads them before the screen's task runs, unless that task
        # runs at once, as Textual's App.run has every task do on Python 3.12 and later
        # (asyncio's eager task factory), where they came after the widgets were styled
        self.app._load_screen_css(self)
        await super()._compose()

    def _extend_compose(self, widgets: list[Widget]) -> None:
        super()._extend_compose(widgets)  # (Textual's own widgets: the tooltip, the rack)
        for widget in widgets:
            if isinstance(widget, ToastRack):
                # hidden as it is by its CSS, as its first showing hides it when there is
                # nothing to show (no refresh: it is not mounted yet; see the module)
                widget.styles.inline.set_rule("display", "none")

    def on_mount(self) -> None:
        if not self.SECOND_LAYOUT:
            # (immediate: called at the end of each layout of the screen, as it is done)
            self.screen_layout_refresh_signal.subscribe(self, self._after_first_layout,
                                                        immediate=True)

    def _after_first_layout(self, _screen: Screen[Any]) -> None:
        """The screen's first layout is done (at its first resume, with every widget of its
        push mounted): the layout Textual asks for after it is dropped, unless something asks
        for one that could change what this one arranged.

        The first layout gives each widget its virtual size (from nothing), a reactive that
        asks for a layout of the widget, and so of its container and the screen: a second
        layout, the same as the first, since a widget's virtual size is what its content
        gives and moves nothing (only a scroll bar it shows takes room: a widget that shows
        one keeps its ask, and the screen is laid out again); and the push's ``AwaitMount``
        asks for a layout of the whole screen once its widgets are mounted, which they
        already were (dropped with the repaint it asks for: :meth:`_keep_first_frame`).
        What asks for a layout after this (a widget's answer to its first size, a change)
        gets it."""
        if self._first_layout_done or not self._first_resume_done:
            return
        self._first_layout_done = True
        if any(w.show_vertical_scrollbar or w.show_horizontal_scrollbar
               for w in self._compositor.widgets):
            return  # (a scroll bar, shown: laid out again, as from Textual)
        self._laid_out_once = True
        for widget in self._compositor.widgets:
            widget._layout_required = False  # (its virtual size, given by this layout)

    def on_layout(self, message: messages.Layout) -> None:
        # (runs before Textual's own handler, which is on a base class)
        if self._laid_out_once and message.time < self._first_layout_from:
            # asked before the first layout (as the push's widgets were mounted), which laid
            # out what they were then: Textual's handler, in Screen, is not run
            message.stop()
            message.prevent_default()

    def on_resize(self, event: events.Resize) -> None:
        if not self.SKIP_SAME_RESIZE:
            return
        if event.size == self.region.size and self.is_current:  # the size it is laid out at
            event.prevent_default()  # (Textual's handler, in Screen, is not run)
            self.update_classes(breakpoint_classes(self, event.size), animate=False)

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        # (runs before Textual's own handler, which is on a base class)
        if not self._first_resume_done:
            self._first_resume_done = True
            self._first_layout_from = get_time()
            # not the whole screen again (Textual's handler, next): only the nodes whose
            # restyle was held, each with what it holds
            event.refresh_styles = False
            self._restyle_the_held()
            # on the app's queue, after the push's AwaitMount and the replaced screen's
            # removal, which ask for the whole again
            self.app.call_next(self._keep_first_frame)
            # (on the screen's queue: right after Textual's handler, which drew the frame)
            self.call_next(self._hold_updates)

    def _hold_restyle(self, node: DOMNode) -> None:
        """A restyle of ``node`` (and what it holds), left for the first resume."""
        self._restyle_held = True
        if self._held_nodes is None:
            self._held_nodes = {}
        self._held_nodes.setdefault(id(node), node)

    def _restyle_the_held(self) -> None:
        """At the first resume: every node whose restyle was held (:func:`restyle_held`) and
        is still in this screen, with its descendants, each once, as Textual's
        ``App.update_styles`` would have restyled them. The other nodes were styled as they
        were mounted, with the classes they have (nothing asked for their restyle since)."""
        held, self._held_nodes = self._held_nodes or {}, None
        nodes: dict[int, DOMNode] = {}
        for node in held.values():
            if id(node) in nodes:
                continue  # (in a held node restyled with what it holds)
            if self not in node.ancestors_with_self:
                continue  # (taken out since, or now in another screen)
            for each in node.walk_children(with_self=True):
                nodes.setdefault(id(each), each)
        # the screen itself, always: it was styled as it was pushed, before the app read
        # the CSS files it brings (App._load_screen_css)
        nodes.setdefault(id(self), self)
        self.app.stylesheet.update_nodes(nodes.values(), animate=False)

    def _compositor_refresh(self) -> None:
        super()._compositor_refresh()
        if not self._first_frame_drawn and self._first_resume_done and self is self.app.screen:
            self._first_frame_drawn = True

    def _hold_updates(self) -> None:
        """Nothing is drawn until the first frame is kept: the screen's update timer, resumed
        once the screen is idle, would otherwise draw the whole again (and lay it out again)
        whenever the app's queue takes longer than a frame to get to
        :meth:`_keep_first_frame`, as on a busy host. What is asked meanwhile is drawn
        then.

        And what the screens seen through this one (a dialog's, under it) had changed before
        its first frame is taken as drawn: that frame drew them as they are now, and Textual
        would have this screen draw all of itself again for it once their update came (the
        round's summary was drawn whole twice, the same picture: the table under it had just
        noted the round's end and shown the summary's keys). A screen under it with a layout
        to do keeps what it changed (what it moves is drawn)."""
        if self._first_frame_drawn:
            for under in self.app._background_screens:
                if not under._layout_required and not under._scroll_required:
                    drop_undrawn(under)
        if not self._first_frame_kept and self._updates_held is None:
            self._updates_held = contextlib.ExitStack()
            self._updates_held.enter_context(self.app.batch_update())

    def _keep_first_frame(self) -> None:
        self._first_frame_kept = True
        try:
            self._drop_second_drawing()
        finally:
            if self._updates_held is not None:
                self._updates_held.close()  # (the app's batch ends)
                self._updates_held = None
                self.check_idle()  # (the screen's update timer, held, goes on)

    def _drop_second_drawing(self) -> None:
        if self.is_current:
            self._repaint_required = False
            if self._laid_out_once and not self._layout_widgets:
                # (the push's layout, with nothing asked since the first: see above)
                self._layout_required = False
