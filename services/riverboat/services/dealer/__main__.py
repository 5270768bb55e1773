"""``python -m riverboat.services.dealer``: run the dealer service (see docs/dealer-service.md)."""

from riverboat.services.dealer.server import main

raise SystemExit(main())
