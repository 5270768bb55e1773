"""``python -m riverboat.cli``: the same as the ``riverboat`` command."""

from riverboat.cli import main

raise SystemExit(main())
