"""Widgets of the game table and the menus."""
