"""``python -m pbem.cli``: the ``pbem`` command from a checkout, before the package is installed."""

from pbem.cli import main

main()
