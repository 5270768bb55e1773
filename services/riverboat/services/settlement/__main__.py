"""``python -m riverboat.services.settlement``: run the settlement service."""

from riverboat.services.settlement.server import main

raise SystemExit(main())
