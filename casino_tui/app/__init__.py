"""The Textual user interface of casino-tui.

Importing this package is cheap: the App lives in :mod:`casino_tui.app.app`, screens in
:mod:`casino_tui.app.screens`, widgets in :mod:`casino_tui.app.widgets`.
"""
