"""``python -m citelint``: the same entry point as the console script."""

from citelint.cli import main_exit

main_exit()
